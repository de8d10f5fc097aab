import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/clock.ts';
import { createProviderLimits } from '../../src/engine/platform/provider-limits.ts';
import { createProviderSlots, type ProviderSlots } from '../../src/store/provider-slots.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { captureLogger } from '../helpers/logs.ts';
import { onPostgres, openTestStore, type TestStore } from '../helpers/store.ts';

/**
 * Installation-wide provider slots (AGENT_API_*_GLOBAL_CONCURRENCY): session advisory locks held by one connection per
 * process. Each "process" here is its own slot store with its own connection to one database. PostgreSQL only.
 */
describe.skipIf(!onPostgres)('installation-wide provider slots on PostgreSQL', () => {
  let store: TestStore;
  const opened: ProviderSlots[] = [];
  let clock = createFakeClock();
  beforeEach(() => {
    clock = createFakeClock();
  });
  const processSlots = (pollMs = 100, at: Clock = clock) => {
    const slots = createProviderSlots(store.env.AGENT_API_DATABASE_URL!, {
      clock: at,
      logger: captureLogger().logger,
      pollMs,
    });
    opened.push(slots);
    return slots;
  };
  const roundTrip = () => store.db.selectNoFrom((eb) => eb.val(1).as('x')).execute();
  /** Waits until `n` callers are waiting on the clock for their next look (their first attempt is over). */
  const waitingOnClock = async (n = 1) => {
    for (let i = 0; i < 2_000 && clock.pending() < n; i++) await roundTrip();
    expect(clock.pending()).toBe(n);
  };
  /** Whether `p` has settled once every callback queued so far (database round trips included) has run. */
  const settledSoon = async (p: Promise<unknown>, roundTrips = 20) => {
    let settled = false;
    p.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < roundTrips && !settled; i++) await roundTrip();
    return settled;
  };
  /** Slot locks granted in this test's database (two-key advisory locks, objsubid 2). */
  const slotLocks = async () => {
    const r = await sql<{ n: number }>`select count(*)::int as n from pg_locks
      where locktype = 'advisory' and objsubid = 2 and granted
        and database = (select oid from pg_database where datname = current_database())`.execute(store.db);
    return r.rows[0]!.n;
  };

  beforeAll(async () => {
    store = await openTestStore();
  });
  afterAll(async () => {
    for (const s of opened) await s.close();
    await store.close();
  });

  it('a cap of 2 in one process: two calls hold slots, the third waits until one is freed, then takes it', async () => {
    const slots = processSlots();
    const first = await slots.acquire('writer', 2);
    const second = await slots.acquire('writer', 2);
    const third = slots.acquire('writer', 2);
    await waitingOnClock();
    expect(await settledSoon(third)).toBe(false);
    expect(await slotLocks()).toBe(2);
    await first();
    const release = await third;
    expect(await slotLocks()).toBe(2);
    await second();
    await release();
    await release(); // idempotent
    expect(await slotLocks()).toBe(0);
  });

  it('kinds are apart: a full writer cap leaves search free', async () => {
    const slots = processSlots();
    const writer = await slots.acquire('writer', 1);
    const search = await slots.acquire('search', 1);
    await Promise.all([writer(), search()]);
  });

  it('across processes: a slot freed by another process is taken at the next look (the engine clock decides when)', async () => {
    const a = processSlots();
    const b = processSlots();
    const held = await a.acquire('search', 1);
    const waiting = b.acquire('search', 1);
    await waitingOnClock();
    await held();
    // B does not hear of another process's release: it looks again after pollMs.
    expect(await settledSoon(waiting)).toBe(false);
    clock.advance(100);
    const release = await waiting;
    expect(await slotLocks()).toBe(1);
    await release();
  });

  it('a process that dies frees its slots with its connection', async () => {
    const dying = processSlots();
    const other = processSlots();
    await dying.acquire('fetch', 1);
    const waiting = other.acquire('fetch', 1);
    await waitingOnClock();
    await dying.close(); // the connection ends without an unlock, as when the process is killed
    clock.advance(100);
    const release = await waiting;
    await release();
    expect(await slotLocks()).toBe(0);
  });

  it('a waiting call whose signal aborts rejects, and takes no slot', async () => {
    const slots = processSlots();
    const held = await slots.acquire('answer', 1);
    const abort = new AbortController();
    const waiting = slots.acquire('answer', 1, abort.signal);
    await waitingOnClock();
    abort.abort(new Error('run cancelled'));
    await expect(waiting).rejects.toThrow('run cancelled');
    expect(await slotLocks()).toBe(1);
    await held();
    expect(await slotLocks()).toBe(0);
  });

  it('two processes, each allowed 4 writer calls, with a global cap of 2: never more than 2 in flight, all 16 complete', async () => {
    const limits = [0, 1].map(() =>
      createProviderLimits(
        { concurrency: { search: 4, fetch: 4, writer: 4, answer: 4 }, global: { writer: 2 } },
        processSlots(5, systemClock),
      ),
    );
    let inFlight = 0;
    let most = 0;
    const call = async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      // A provider call that takes a few database round trips.
      for (let i = 0; i < 3; i++) await store.db.selectNoFrom((eb) => eb.val(1).as('x')).execute();
      inFlight--;
      return 'ok';
    };
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => limits[i % 2]!.writer.add(call)));
    expect(results).toEqual(Array(16).fill('ok'));
    expect(most).toBe(2);
    expect(await slotLocks()).toBe(0);
  });
});
