import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { iso } from '../../src/clock.ts';
import { ApiError } from '../../src/errors.ts';
import { PLAN_LIMITS } from '../../src/engine/accounts/plans.ts';
import { createUsageService, WINDOWS, type UsageService, type WindowName } from '../../src/engine/platform/usage.ts';
import { immediate, type Db, type OpenedDatabase, type TxDb } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { insertRun, type RunRow } from '../../src/store/repos/runs.ts';
import type { StepOutputs, WriteContext } from '../../src/engine/runner/types.ts';
import { insertReservation } from '../../src/store/repos/usage-ledger.ts';
import type { Plan } from '../../src/store/schema.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { errorHeaders } from '../../src/transport/http/headers.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startBillableProvider, type BillableProvider } from '../helpers/billable-provider.ts';
import { createFakeClock, type FakeClock } from '../helpers/clock.ts';
import { captureLogger } from '../helpers/logs.ts';
import { openTestStore, type TestStore } from '../helpers/store.ts';
import { widgetOperations, widgetPipeline } from '../helpers/widget.ts';

/**
 * docs/reliability.md C (usage reservations): against the ledger service on a real store (a SQLite file, or a
 * PostgreSQL database) with a fake clock, and over REST through the test widget where the case is about acceptance or
 * the runner.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GRACE = 60_000;

/** The context the runner gives a pipeline's write hooks, to call a hook by hand (a duplicate event). */
function hookContext(trx: TxDb, run: RunRow, orgId: string, now: number): WriteContext<unknown, StepOutputs> {
  return {
    trx,
    runId: run.id,
    resourceId: run.resource_id,
    orgId,
    now,
    input: undefined,
    checkpoint: {},
    output: (name) => {
      throw new Error(`no output ${name}`);
    },
  };
}

type Ledger = {
  db: Db;
  clock: FakeClock;
  usage: UsageService;
  logs: ReturnType<typeof captureLogger>;
  org(plan?: Plan): Promise<string>;
  /** Reserves in its own BEGIN IMMEDIATE transaction, with a pending run (as an operation would) unless `run` is false. */
  reserve(orgId: string, plan: Plan, units: number, opts?: { id?: string; run?: boolean }): Promise<string>;
  load(orgId: string, w: WindowName): Promise<number>;
  rows(
    orgId: string,
  ): Promise<{ resource_id: string; state: string; units: number; settled_at: number | null; created_at: number }[]>;
};

describe('C. usage ledger (service)', () => {
  let store: TestStore;
  let database: OpenedDatabase;
  let L: Ledger;

  beforeEach(async () => {
    store = await openTestStore();
    database = store.opened;
    // These cases are about ledger logic under interleaving, not power-cut durability (the crash tests cover that):
    // on SQLite, WAL with synchronous=NORMAL skips the per-commit fsync and keeps the 1,000-op soak fast.
    if (database.dialect === 'sqlite') database.raw.pragma('synchronous = NORMAL');
    await migrateToLatest(database.db);
    const db = database.db;
    const clock = createFakeClock();
    const logs = captureLogger('info');
    const usage = createUsageService({ clock, logger: logs.logger });
    L = {
      db,
      clock,
      usage,
      logs,
      org: async (plan = 'starter') =>
        (await createOrganisation(db, { name: 'o', plan, subscription: 'active' }, clock.now())).id,
      async reserve(orgId, plan, units, opts = {}) {
        const id = opts.id ?? randomUUID();
        await immediate(db, async (trx) => {
          await usage.reserve(trx, {
            orgId,
            plan,
            operation: 'content_job',
            units,
            resourceKind: 'widget',
            resourceId: id,
          });
          if (opts.run !== false)
            await insertRun(trx, { kind: 'widget', resourceId: id, orgId, maxAttempts: 3 }, clock.now());
        });
        return id;
      },
      async load(orgId, w) {
        // Recomputed here from the ledger rows, independently of the service's own queries.
        const r = await db
          .selectFrom('usage_ledger')
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('units'), eb.lit(0)).as('n'))
          .where('org_id', '=', orgId)
          .where('state', '!=', 'released')
          .where('created_at', '>', clock.now() - WINDOWS[w])
          .executeTakeFirstOrThrow();
        return Number(r.n);
      },
      rows: (orgId) =>
        db
          .selectFrom('usage_ledger')
          .select(['resource_id', 'state', 'units', 'settled_at', 'created_at'])
          .where('org_id', '=', orgId)
          .orderBy('created_at')
          .execute(),
    };
  });
  afterEach(async () => {
    await store.close();
  });

  const refusal = (err: unknown) => {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.code).toBe('usage_limit_reached');
    expect(e.status).toBe(429);
    return e;
  };

  it('C.27 pool limit 100: 100 concurrent reserve(1) plus one more, exactly 100 succeed, no overshoot', async () => {
    const orgId = await L.org('starter');
    const outcomes = await Promise.allSettled(Array.from({ length: 101 }, () => L.reserve(orgId, 'starter', 1)));
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(ok).toHaveLength(100);
    expect(refused).toHaveLength(1);
    const e = refusal(refused[0]!.reason);
    expect(e.details).toMatchObject({ window: '24h', limit: 100, in_use: 100, requested: 1 });
    expect(await L.load(orgId, '24h')).toBe(100);
    expect(await L.rows(orgId)).toHaveLength(100);
    // Nothing left for a single unit either, and the estimate agrees.
    expect(await L.usage.estimate(L.db, orgId, 'starter', 1)).toMatchObject({
      would_exceed: true,
      usage_impact: { included: false },
    });
  });

  it('C.27 a request larger than the free part of the pool is refused whole, never partly reserved', async () => {
    const orgId = await L.org('starter');
    await L.reserve(orgId, 'starter', 95);
    const err = await L.reserve(orgId, 'starter', 6).catch((e: unknown) => e);
    expect(refusal(err).details).toMatchObject({ window: '24h', in_use: 95, requested: 6 });
    await L.reserve(orgId, 'starter', 5);
    expect(await L.load(orgId, '24h')).toBe(100);
  });

  it('C.28 a failure releases the reservation exactly once and restores the available units exactly', async () => {
    const orgId = await L.org('starter');
    await L.reserve(orgId, 'starter', 30);
    const before = await L.usage.view(L.db, orgId, 'starter');
    const id = await L.reserve(orgId, 'starter', 25);
    expect((await L.usage.view(L.db, orgId, 'starter')).windows['24h'].reserved).toBe(55);
    expect(await L.usage.release(L.db, 'widget', id)).toBe(true);
    expect(await L.usage.release(L.db, 'widget', id)).toBe(false);
    expect(await L.usage.view(L.db, orgId, 'starter')).toEqual(before);
    const row = (await L.rows(orgId)).find((r) => r.resource_id === id)!;
    expect(row).toMatchObject({ state: 'released', settled_at: L.clock.now() });
  });

  it('C.29 a duplicate charge is counted once; the second is a logged no-op', async () => {
    const orgId = await L.org('starter');
    const id = await L.reserve(orgId, 'starter', 10);
    expect(await L.usage.charge(L.db, 'widget', id)).toBe(true);
    const settledAt = L.clock.now();
    L.clock.advance(5_000);
    expect(await L.usage.charge(L.db, 'widget', id)).toBe(false);
    const row = (await L.rows(orgId))[0]!;
    expect(row).toMatchObject({ state: 'charged', units: 10, settled_at: settledAt });
    const view = await L.usage.view(L.db, orgId, 'starter');
    expect(view.windows['24h']).toMatchObject({ used: 10, reserved: 0 });
    const skipped = L.logs
      .lines()
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'usage charge skipped: reservation is not reserved');
    expect(skipped).toEqual([expect.objectContaining({ resourceKind: 'widget', resourceId: id })]);
  });

  it('C.29 chargeOrDefer (the in-transaction charge pipelines use) also charges once and logs the duplicate', async () => {
    const orgId = await L.org('starter');
    const id = await L.reserve(orgId, 'starter', 4);
    expect(await immediate(L.db, (trx) => L.usage.chargeOrDefer(trx, 'widget', id))).toBe('charged');
    expect(await immediate(L.db, (trx) => L.usage.chargeOrDefer(trx, 'widget', id))).toBe('noop');
    expect(await L.usage.charge(L.db, 'widget', id)).toBe(false);
    expect((await L.rows(orgId))[0]).toMatchObject({ state: 'charged', units: 4 });
    expect(await L.load(orgId, '24h')).toBe(4);
    const skipped = L.logs
      .lines()
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'usage charge skipped: reservation is not reserved');
    expect(skipped).toHaveLength(2);
    expect(skipped.every((l) => l.resourceId === id)).toBe(true);
  });

  it('C.30 release after charge and charge after release are no-ops; the invariant holds', async () => {
    const orgId = await L.org('starter');
    const charged = await L.reserve(orgId, 'starter', 7);
    const released = await L.reserve(orgId, 'starter', 9);
    expect(await L.usage.charge(L.db, 'widget', charged)).toBe(true);
    expect(await L.usage.release(L.db, 'widget', released)).toBe(true);
    expect(await L.usage.release(L.db, 'widget', charged)).toBe(false);
    expect(await L.usage.charge(L.db, 'widget', released)).toBe(false);
    const rows = await L.rows(orgId);
    expect(rows.map((r) => [r.resource_id, r.state])).toEqual([
      [charged, 'charged'],
      [released, 'released'],
    ]);
    expect((await L.usage.view(L.db, orgId, 'starter')).windows['24h']).toMatchObject({ used: 7, reserved: 0 });
    const msgs = L.logs.lines().map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs.filter((m) => m.startsWith('usage release skipped'))).toHaveLength(1);
    expect(msgs.filter((m) => m.startsWith('usage charge skipped'))).toHaveLength(1);
    // A resource that never reserved anything: also a no-op.
    expect(await L.usage.charge(L.db, 'widget', randomUUID())).toBe(false);
  });

  it('C.31 allowed by the 24 h window but over the 7 d window: 429 naming 7d, nothing reserved', async () => {
    const orgId = await L.org('starter');
    const t0 = L.clock.now();
    for (let day = 0; day < 4; day++) {
      const id = await L.reserve(orgId, 'starter', 100);
      await L.usage.charge(L.db, 'widget', id);
      L.clock.advance(DAY + 60_000);
    }
    expect(await L.load(orgId, '24h')).toBe(0);
    expect(await L.load(orgId, '7d')).toBe(400);
    const err = await L.reserve(orgId, 'starter', 1).catch((e: unknown) => e);
    const e = refusal(err);
    expect(e.details).toMatchObject({
      window: '7d',
      limit: 400,
      in_use: 400,
      requested: 1,
      recovers_at: iso(t0 + 7 * DAY),
    });
    expect(Number(errorHeaders(e)['Retry-After'])).toBe(Math.ceil((t0 + 7 * DAY - L.clock.now()) / 1000));
    expect(await L.rows(orgId)).toHaveLength(4);
    expect(await L.db.selectFrom('runs').select('id').where('org_id', '=', orgId).execute()).toHaveLength(4);
    const view = await L.usage.view(L.db, orgId, 'starter');
    expect(view.windows['24h']).toMatchObject({ used: 0, remaining_percent: 100, recovers_at: null });
    expect(view.windows['7d']).toMatchObject({ used: 400, remaining_percent: 0, recovers_at: iso(t0 + 7 * DAY) });
    expect(await L.usage.estimate(L.db, orgId, 'starter', 1)).toMatchObject({ would_exceed: true });
  });

  it('C.32 sliding 24 h boundary: usage at t-24h+1s counts, at t-24h-1s does not (the boundary itself is out)', async () => {
    const orgId = await L.org('starter');
    const t0 = L.clock.now();
    await L.reserve(orgId, 'starter', 100);
    L.clock.set(t0 + DAY - 1_000);
    expect(await L.load(orgId, '24h')).toBe(100);
    refusal(await L.reserve(orgId, 'starter', 1).catch((e: unknown) => e));
    L.clock.set(t0 + DAY);
    expect(await L.load(orgId, '24h')).toBe(0);
    // Exactly 24 h old: out of the window (documented), as the service's view and estimate agree.
    expect((await L.usage.view(L.db, orgId, 'starter')).windows['24h']).toMatchObject({ used: 0, reserved: 0 });
    expect(await L.usage.estimate(L.db, orgId, 'starter', 100)).toMatchObject({ would_exceed: false });
    L.clock.set(t0 + DAY + 1_000);
    expect(await L.load(orgId, '24h')).toBe(0);
    expect((await L.usage.view(L.db, orgId, 'starter')).windows['24h'].remaining_percent).toBe(100);
    await L.reserve(orgId, 'starter', 100);
    expect(await L.load(orgId, '7d')).toBe(200);
  });

  it('C.32 sliding 7 d boundary: usage at t-7d+1s counts, at t-7d-1s does not', async () => {
    const orgId = await L.org('starter');
    const t0 = L.clock.now();
    for (let i = 0; i < 4; i++) {
      L.clock.set(t0 + i * (DAY + 1_000));
      await L.reserve(orgId, 'starter', 100);
    }
    L.clock.set(t0 + 7 * DAY - 1_000);
    expect(await L.load(orgId, '24h')).toBe(0);
    expect(await L.load(orgId, '7d')).toBe(400);
    expect(refusal(await L.reserve(orgId, 'starter', 1).catch((e: unknown) => e)).details).toMatchObject({
      window: '7d',
      recovers_at: iso(t0 + 7 * DAY),
    });
    L.clock.set(t0 + 7 * DAY);
    expect((await L.usage.view(L.db, orgId, 'starter')).windows['7d']).toMatchObject({ reserved: 300 });
    expect(await L.usage.estimate(L.db, orgId, 'starter', 100)).toMatchObject({ would_exceed: false });
    L.clock.set(t0 + 7 * DAY + 1_000);
    expect(await L.load(orgId, '7d')).toBe(300);
    await L.reserve(orgId, 'starter', 100);
    expect(await L.load(orgId, '7d')).toBe(400);
  });

  it('C.33 a reservation with no run is released by the reconciler after the grace, exactly once', async () => {
    const orgId = await L.org('starter');
    // As if the process died between reserve and run creation: a committed reservation without a run.
    const orphan = randomUUID();
    await insertReservation(
      L.db,
      { orgId, operation: 'content_job', resourceKind: 'widget', resourceId: orphan, units: 40 },
      L.clock.now(),
    );
    // Neighbours the reconciler must leave alone (queued or paused work) or settle by their run's outcome.
    const queued = await L.reserve(orgId, 'starter', 5);
    const waiting = await L.reserve(orgId, 'starter', 5);
    await L.db.updateTable('runs').set({ state: 'waiting' }).where('resource_id', '=', waiting).execute();
    const done = await L.reserve(orgId, 'starter', 5);
    await L.db.updateTable('runs').set({ state: 'done' }).where('resource_id', '=', done).execute();
    const failed = await L.reserve(orgId, 'starter', 5);
    await L.db.updateTable('runs').set({ state: 'failed' }).where('resource_id', '=', failed).execute();

    L.clock.advance(GRACE - 1);
    expect(await L.usage.reconcile(L.db, GRACE)).toEqual({ charged: 0, released: 0 });
    L.clock.advance(2);
    const [a, b] = await Promise.all([L.usage.reconcile(L.db, GRACE), L.usage.reconcile(L.db, GRACE)]);
    expect({ charged: a.charged + b.charged, released: a.released + b.released }).toEqual({ charged: 1, released: 2 });
    expect(await L.usage.reconcile(L.db, GRACE)).toEqual({ charged: 0, released: 0 });
    const state = Object.fromEntries((await L.rows(orgId)).map((r) => [r.resource_id, r.state]));
    expect(state).toEqual({
      [orphan]: 'released',
      [queued]: 'reserved',
      [waiting]: 'reserved',
      [done]: 'charged',
      [failed]: 'released',
    });
    expect(await L.load(orgId, '24h')).toBe(15);
  });

  it('C.34 randomized concurrent soak (1,000 ops with failures): the ledger invariants hold', async () => {
    const plans: Plan[] = ['starter', 'pro'];
    const orgs = await Promise.all(plans.map(async (plan) => ({ plan, id: await L.org(plan) })));
    let seed = 0x5eed;
    const rand = () => {
      // mulberry32: reproducible runs.
      seed = (seed + 0x6d2b79f5) | 0;
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
    };
    const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(rand() * xs.length)];
    type Res = { id: string; orgId: string; units: number; orphan: boolean; settled: 'charged' | 'released' | null };
    const accepted: Res[] = [];
    const stats = {
      accepted: 0,
      refused: 0,
      rolledBack: 0,
      charged: 0,
      released: 0,
      noops: 0,
      orphans: 0,
      reconciled: 0,
    };
    class HandlerFailure extends Error {}

    const settle = async (r: Res, to: 'charged' | 'released') => {
      // A completion (or failure) event: run state and ledger move in one transaction, as the runner does.
      await immediate(L.db, async (trx) => {
        const moved = await trx
          .updateTable('runs')
          .set({ state: to === 'charged' ? 'done' : 'failed' })
          .where('resource_id', '=', r.id)
          .where('state', '=', 'pending')
          .executeTakeFirst();
        const first = Number(moved.numUpdatedRows) === 1;
        const ok =
          to === 'charged' ? await L.usage.charge(trx, 'widget', r.id) : await L.usage.release(trx, 'widget', r.id);
        // The ledger moves exactly when the run moves: a duplicate event is a no-op.
        expect(ok).toBe(first);
        if (ok) {
          r.settled = to;
          stats[to]++;
        } else stats.noops++;
      });
    };

    const op = async () => {
      const roll = rand();
      const org = pick(orgs)!;
      if (roll < 0.4) {
        const units = 1 + Math.floor(rand() * 12);
        const id = randomUUID();
        const failAfter = rand() < 0.1;
        const orphan = !failAfter && rand() < 0.05;
        try {
          await immediate(L.db, async (trx) => {
            await L.usage.reserve(trx, {
              orgId: org.id,
              plan: org.plan,
              operation: 'content_job',
              units,
              resourceKind: 'widget',
              resourceId: id,
            });
            if (failAfter) throw new HandlerFailure();
            if (!orphan)
              await insertRun(trx, { kind: 'widget', resourceId: id, orgId: org.id, maxAttempts: 3 }, L.clock.now());
          });
          accepted.push({ id, orgId: org.id, units, orphan, settled: null });
          stats.accepted++;
          if (orphan) stats.orphans++;
        } catch (err) {
          if (err instanceof HandlerFailure) stats.rolledBack++;
          else {
            const e = refusal(err);
            const d = e.details as { window: WindowName; limit: number; in_use: number; requested: number };
            expect(d.in_use + d.requested).toBeGreaterThan(d.limit);
            stats.refused++;
          }
        }
      } else if (roll < 0.6) {
        const r = pick(accepted.filter((x) => !x.orphan && x.settled !== 'released'));
        if (r) await settle(r, 'charged');
      } else if (roll < 0.72) {
        const r = pick(accepted.filter((x) => !x.orphan && x.settled !== 'charged'));
        if (r) await settle(r, 'released');
      } else if (roll < 0.8) {
        const r = pick(accepted.filter((x) => x.settled !== null));
        if (r) {
          const ok =
            rand() < 0.5 ? await L.usage.charge(L.db, 'widget', r.id) : await L.usage.release(L.db, 'widget', r.id);
          expect(ok).toBe(false);
          stats.noops++;
        }
      } else if (roll < 0.85) {
        const out = await L.usage.reconcile(L.db, GRACE);
        expect(out.charged).toBe(0);
        stats.reconciled += out.released;
      } else if (roll < 0.93) {
        L.clock.advance(Math.floor(rand() * 3 * HOUR));
      } else {
        // Read inside a transaction: `now` is then read after every committed reservation (none is newer than it).
        const view = await immediate(L.db, (trx) => L.usage.view(trx, org.id, org.plan));
        for (const w of Object.values(view.windows)) {
          expect(w.used).toBeGreaterThanOrEqual(0);
          expect(w.reserved).toBeGreaterThanOrEqual(0);
          expect(w.used + w.reserved).toBeLessThanOrEqual(w.limit);
          expect(w.remaining_percent).toBeGreaterThanOrEqual(0);
        }
      }
    };

    const queue = new PQueue({ concurrency: 16 });
    await Promise.all(Array.from({ length: 1_000 }, () => queue.add(op)));
    // The sweeper catches the orphans whose grace has passed.
    L.clock.advance(GRACE + 1);
    stats.reconciled += (await L.usage.reconcile(L.db, GRACE)).released;

    expect(stats.refused).toBeGreaterThan(10);
    expect(stats.accepted).toBeGreaterThan(100);
    expect(stats.reconciled).toBe(stats.orphans);

    // Σ charged + Σ reserved ≤ limit for every window: checked at every entry's time, the only points the load grows.
    for (const org of orgs) {
      for (const w of Object.keys(WINDOWS) as WindowName[]) {
        const limit = w === '24h' ? PLAN_LIMITS[org.plan].units24h : PLAN_LIMITS[org.plan].units7d;
        const worst = await sql<{ load: number | null }>`
          select max(load) as load from (
            select sum(b.units) as load from usage_ledger a
            join usage_ledger b on b.org_id = a.org_id and b.state != 'released'
              and b.created_at > a.created_at - ${WINDOWS[w]} and b.created_at <= a.created_at
            where a.org_id = ${org.id} group by a.id) as loads`.execute(L.db);
        expect(Number(worst.rows[0]?.load ?? 0), `${org.plan} ${w}`).toBeLessThanOrEqual(limit);
      }
    }
    const rows = await L.db.selectFrom('usage_ledger').selectAll().execute();
    expect(rows).toHaveLength(accepted.length);
    const byId = new Map(accepted.map((r) => [r.id, r]));
    for (const row of rows) {
      expect(row.units).toBeGreaterThan(0);
      const model = byId.get(row.resource_id)!;
      expect(row.units).toBe(model.units);
      expect(row.settled_at === null).toBe(row.state === 'reserved');
      if (model.orphan) expect(row.state).toBe('released');
      else expect(row.state).toBe(model.settled ?? 'reserved');
    }
    // Every reservation is terminal or belongs to a run that is still pending or waiting.
    const open = await L.db
      .selectFrom('usage_ledger as l')
      .leftJoin('runs as r', (j) =>
        j.onRef('r.kind', '=', 'l.resource_kind').onRef('r.resource_id', '=', 'l.resource_id'),
      )
      .select(['l.resource_id', 'r.state as run_state'])
      .where('l.state', '=', 'reserved')
      .execute();
    for (const o of open) expect(['pending', 'waiting']).toContain(o.run_state);
    // Terminal runs and their ledger rows agree.
    const mismatched = await sql<{ n: number }>`
      select count(*) as n from runs r join usage_ledger l on l.resource_kind = r.kind and l.resource_id = r.resource_id
      where (r.state = 'done' and l.state != 'charged') or (r.state = 'failed' and l.state != 'released')
         or (r.state in ('pending', 'waiting') and l.state != 'reserved')`.execute(L.db);
    expect(Number(mismatched.rows[0]!.n)).toBe(0);
    expect(stats.charged).toBe(rows.filter((r) => r.state === 'charged').length);
  });
});

describe('C. usage ledger over REST', () => {
  let t: TestApp;
  let provider: BillableProvider;
  type Widget = { widget_id: string; status: string; billing: string };
  type ErrorBody = { error: { code: string; details?: Record<string, unknown> } };
  type Usage = {
    windows: Record<
      WindowName,
      { limit: number; used: number; reserved: number; remaining_percent: number; recovers_at: string | null }
    >;
  };

  beforeAll(async () => {
    provider = await startBillableProvider();
    t = await startTestApp({
      env: { AGENT_API_MAX_ATTEMPTS: '2' },
      operations: [...OPERATIONS, ...widgetOperations()],
      pipelines: (e) => [widgetPipeline(e, () => provider.url)],
    });
  });
  afterAll(async () => {
    await t.close();
    await provider.close();
  });

  const create = (key: string, body: Record<string, unknown>) =>
    t.request<Widget & ErrorBody>('POST', '/widgets', { key, body });
  const usage = async (key: string) => (await t.request<Usage>('GET', '/usage', { key })).body;
  const ledger = (orgId: string) => t.db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId).execute();

  it('C.27 101 concurrent acceptances against a 1,500-unit pool (agency, 15 units each): exactly 100 succeed', async () => {
    // Acceptance is what is under test: no widget pipeline here, so the 100 runs stay queued and reserved.
    const app = await startTestApp({ operations: [...OPERATIONS, ...widgetOperations()] });
    try {
      const { orgId, clientId, key } = await app.tenant('agency');
      const answers = await Promise.all(
        Array.from({ length: 101 }, (_, i) =>
          app.request<Widget & ErrorBody>('POST', '/widgets', {
            key,
            body: { client_id: clientId, label: `c27-${i}`, units: 15 },
          }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(100);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.body.error).toMatchObject({
        code: 'usage_limit_reached',
        details: { window: '24h', limit: 1_500, in_use: 1_500, requested: 15 },
      });
      const rows = await app.db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId).execute();
      expect(rows).toHaveLength(100);
      expect(rows.reduce((a, r) => a + r.units, 0)).toBe(1_500);
      expect(await app.db.selectFrom('runs').select('id').where('org_id', '=', orgId).execute()).toHaveLength(100);
      const u = await app.request<Usage>('GET', '/usage', { key });
      expect(u.body.windows['24h']).toMatchObject({ limit: 1_500, used: 0, reserved: 1_500, remaining_percent: 0 });
    } finally {
      await app.close();
    }
  });

  it('C.28 a permanent provider failure releases the reservation once; usage is restored exactly', async () => {
    const { orgId, clientId, key } = await t.tenant('starter');
    expect((await create(key, { client_id: clientId, label: 'ok', units: 20 })).status).toBe(201);
    await t.engine.runner.runUntilIdle();
    const before = await usage(key);
    const r = await create(key, { client_id: clientId, label: 'doomed', units: 30, fail: 'permanent' });
    expect(r.status).toBe(201);
    expect(r.body.billing).toBe('reserved');
    await t.engine.runner.runUntilIdle();
    const got = await t.request<Widget>('GET', `/widgets/${r.body.widget_id}`, { key });
    expect(got.body).toMatchObject({ status: 'failed', billing: 'released' });
    expect(await usage(key)).toEqual(before);
    expect(await t.engine.usage.release(t.db, 'widget', r.body.widget_id)).toBe(false);
    expect(await t.engine.usage.charge(t.db, 'widget', r.body.widget_id)).toBe(false);
    expect(await usage(key)).toEqual(before);
    expect((await ledger(orgId)).map((x) => x.state).sort()).toEqual(['charged', 'released']);
  });

  it('C.28 retries exhausted (provider failing every attempt) release the reservation once', async () => {
    const { clientId, key } = await t.tenant('starter');
    const before = await usage(key);
    provider.failNext(2);
    const r = await create(key, { client_id: clientId, label: 'flaky', units: 12 });
    expect(r.status).toBe(201);
    await t.engine.runner.runUntilIdle();
    const mid = await t.db
      .selectFrom('runs')
      .selectAll()
      .where('resource_id', '=', r.body.widget_id)
      .executeTakeFirstOrThrow();
    expect(mid).toMatchObject({ state: 'pending', attempts: 1 });
    expect((await usage(key)).windows['24h'].reserved).toBe(12);
    t.clock.advance(1_000);
    await t.engine.runner.runUntilIdle();
    const got = await t.request<Widget>('GET', `/widgets/${r.body.widget_id}`, { key });
    expect(got.body).toMatchObject({ status: 'failed', billing: 'released' });
    expect(provider.callsFor(`${mid.id}:call`)).toBe(2);
    const after = await usage(key);
    expect(after.windows['24h']).toEqual(before.windows['24h']);
    expect(after.windows['7d']).toEqual(before.windows['7d']);
    const skipped = t.logs!.lines().filter((l) => l.includes('usage release skipped') && l.includes(r.body.widget_id));
    expect(skipped).toHaveLength(0);
  });

  it('C.29 a duplicate completion event (the pipeline hook twice) charges once, the second is a logged no-op', async () => {
    const { orgId, clientId, key } = await t.tenant('starter');
    const r = await create(key, { client_id: clientId, label: 'twice', units: 8 });
    await t.engine.runner.runUntilIdle();
    const run = await t.db
      .selectFrom('runs')
      .selectAll()
      .where('resource_id', '=', r.body.widget_id)
      .executeTakeFirstOrThrow();
    expect(run.state).toBe('done');
    const pipeline = widgetPipeline(t.engine, () => provider.url);
    await immediate(t.db, (trx) => pipeline.onComplete(hookContext(trx, run, orgId, t.clock.now())));
    expect((await usage(key)).windows['24h']).toMatchObject({ used: 8, reserved: 0 });
    expect(
      t.logs!.lines().filter((l) => l.includes('usage charge skipped') && l.includes(r.body.widget_id)),
    ).toHaveLength(1);
    // A late failure event for the finished run changes nothing either.
    await immediate(t.db, (trx) => pipeline.onFail(hookContext(trx, run, orgId, t.clock.now()), 'late'));
    expect((await ledger(orgId)).map((x) => x.state)).toEqual(['charged']);
  });

  it('C.31 allowed by 24 h but over 7 d over REST: 429 with details.window 7d, nothing reserved', async () => {
    const { orgId, clientId, key } = await t.tenant('starter');
    const t0 = t.clock.now();
    for (let day = 0; day < 4; day++) {
      const r = await create(key, { client_id: clientId, label: `day-${day}`, units: 100 });
      expect(r.status).toBe(201);
      await t.engine.runner.runUntilIdle();
      t.clock.advance(DAY + 60_000);
    }
    const u = await usage(key);
    expect(u.windows['24h']).toMatchObject({ used: 0, remaining_percent: 100 });
    expect(u.windows['7d']).toMatchObject({ used: 400, remaining_percent: 0, recovers_at: iso(t0 + 7 * DAY) });
    const refused = await create(key, { client_id: clientId, label: 'one more' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'usage_limit_reached',
      details: { window: '7d', recovers_at: iso(t0 + 7 * DAY) },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await ledger(orgId)).toHaveLength(4);
    expect(await t.db.selectFrom('runs').select('id').where('org_id', '=', orgId).execute()).toHaveLength(4);
  });

  it('C.33 after a crash, the restarted server sweeps a run-less reservation once the grace has passed', async () => {
    const first = await startTestApp();
    const { orgId } = await first.tenant('starter');
    const orphan = randomUUID();
    await insertReservation(
      first.db,
      { orgId, operation: 'content_job', resourceKind: 'widget', resourceId: orphan, units: 50 },
      first.clock.now(),
    );
    await first.stop();
    // Default lease 30 s: the sweeper's grace is max(2 × lease, 60 s).
    const second = await startTestApp({
      dbPath: first.dbPath,
      clock: createFakeClock(first.clock.now() + GRACE + 1),
      background: true,
    });
    try {
      const row = await second.db
        .selectFrom('usage_ledger')
        .selectAll()
        .where('resource_id', '=', orphan)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ state: 'released', settled_at: second.clock.now() });
      expect(await second.engine.usage.reconcile(second.db, GRACE)).toEqual({ charged: 0, released: 0 });
      expect(
        second.logs!.lines().filter((l) => l.includes('usage reconciler settled stale reservations')),
      ).toHaveLength(1);
    } finally {
      await second.close();
      first.cleanup();
    }
  });
});
