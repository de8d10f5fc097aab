import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { refuseUpdates } from '../helpers/triggers.ts';
import { CONTENT_KINDS } from '../../src/store/repos/content.ts';
import { immediate } from '../../src/store/db.ts';
import {
  call,
  createdJob,
  getAutopilot,
  getJob,
  ledgerOf,
  NO_MATCH,
  PLUMBING,
  postAutopilot,
  postJob,
  run,
  settle,
  startContentApp,
  tenant,
  type Tenant,
} from './helpers/harness.ts';

/**
 * docs/reliability.md C.27-C.34 through real content jobs and Autopilot runs: reservations in the accepting transaction,
 * released once on failure, charged once on success, never overshooting either window (the boundary of each
 * window exact on the fake clock), and left-behind reservations settled once by the reconciler. Jobs that succeed
 * cheaply supply a draft on a researched topic (no writing); jobs that fail have no draft.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let t: TestApp;

beforeAll(async () => {
  t = await startContentApp();
});
afterAll(async () => {
  await t?.close();
});

const failing = (clientId: string) => ({ topic: NO_MATCH, client_id: clientId, page_contract: 'article' });
const succeeding = (clientId: string) => ({
  topic: PLUMBING,
  client_id: clientId,
  draft_body: '# Our page\n\nWe fix pipes at night. Call us when water is where it should not be.\n',
});

interface WindowView {
  limit: number;
  used: number;
  reserved: number;
}
const usage = async (key: string) =>
  (await call<{ windows: { '24h': WindowView; '7d': WindowView } }>(t, 'GET', '/usage', { key })).body.windows;

describe('C. usage reservations through content jobs', () => {
  it('C.27 a starter pool (100 units) and 11 concurrent job requests (10 units each): exactly 10 accepted, 1 refused 429; no overshoot', async () => {
    const s = await tenant(t, 'starter');
    const answers = await Promise.all(Array.from({ length: 11 }, () => postJob(t, s.key, failing(s.clientId))));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual([[429, 'usage_limit_reached']]);
    const rows = await t.db
      .selectFrom('usage_ledger')
      .select(['units', 'state'])
      .where('org_id', '=', s.orgId)
      .execute();
    expect(rows.reduce((n, r) => n + r.units, 0)).toBe(100);
    expect(await usage(s.key)).toMatchObject({ '24h': { limit: 100, used: 0, reserved: 100 } });
    // An Autopilot start (25 units) does not fit either.
    const pilot = await postAutopilot(t, s.key, { ...failing(s.clientId) });
    expect([pilot.status, pilot.body.error.code]).toEqual([429, 'usage_limit_reached']);
    await run(t);
  });

  it('C.28 a failing job releases its reservation exactly once; the windows are restored exactly', async () => {
    const s = await tenant(t, 'starter');
    const before = await usage(s.key);
    const job = await createdJob(t, s.key, failing(s.clientId));
    expect((await usage(s.key))['24h']).toMatchObject({ used: 0, reserved: 10 });
    expect(await settle(t, job.job_id)).toBe('failed');
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'released', units: 10 }]);
    expect(await usage(s.key)).toEqual(before);
    // A later release is a logged no-op.
    expect(await t.engine.usage.release(t.db, CONTENT_KINDS.job, job.job_id)).toBe(false);
    expect(t.logs!.text()).toContain('usage release skipped');
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'released', units: 10 }]);
  });

  it('C.28 a failing Autopilot run releases its 25 units once: released true, charged false', async () => {
    const s = await tenant(t, 'starter');
    const started = await postAutopilot(t, s.key, failing(s.clientId));
    expect((await usage(s.key))['24h']).toMatchObject({ reserved: 25 });
    expect(await settle(t, started.body.job_id)).toBe('failed');
    expect((await getAutopilot(t, s.key, started.body.job_id)).body).toMatchObject({ charged: false, released: true });
    expect((await usage(s.key))['24h']).toMatchObject({ used: 0, reserved: 0 });
  });

  it('C.29 a second completion of a finished job is a logged no-op: charged once', async () => {
    const s = await tenant(t, 'starter');
    const job = await createdJob(t, s.key, succeeding(s.clientId));
    expect(await settle(t, job.job_id)).toBe('completed');
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'charged', units: 10 }]);
    expect((await usage(s.key))['24h']).toMatchObject({ used: 10, reserved: 0 });
    expect(await t.engine.usage.charge(t.db, CONTENT_KINDS.job, job.job_id)).toBe(false);
    expect(await immediate(t.db, (trx) => t.engine.usage.chargeOrDefer(trx, CONTENT_KINDS.job, job.job_id))).toBe(
      'noop',
    );
    expect(t.logs!.text()).toContain('usage charge skipped');
    expect((await usage(s.key))['24h']).toMatchObject({ used: 10, reserved: 0 });
  });

  it('C.30 release after charge and charge after release are no-ops; the ledger keeps its final state', async () => {
    const s = await tenant(t, 'starter');
    const done = await createdJob(t, s.key, succeeding(s.clientId));
    const broken = await createdJob(t, s.key, failing(s.clientId));
    await settle(t, done.job_id);
    await settle(t, broken.job_id);
    expect(await t.engine.usage.release(t.db, CONTENT_KINDS.job, done.job_id)).toBe(false);
    expect(await t.engine.usage.charge(t.db, CONTENT_KINDS.job, broken.job_id)).toBe(false);
    expect(await ledgerOf(t, done.job_id)).toEqual([{ state: 'charged', units: 10 }]);
    expect(await ledgerOf(t, broken.job_id)).toEqual([{ state: 'released', units: 10 }]);
    expect((await getJob(t, s.key, done.job_id)).body.billing).toEqual({ charged: true, released: false });
    expect((await getJob(t, s.key, broken.job_id)).body.billing).toEqual({ charged: false, released: true });
    expect((await usage(s.key))['24h']).toMatchObject({ used: 10, reserved: 0 });
  });
});

describe('C.31 / C.32 windows on the fake clock (starter: 100 units per 24 h, 400 per 7 d)', () => {
  let s: Tenant;
  let day0: number;
  const accept = async (n: number) => {
    for (let i = 0; i < n; i++) expect((await postJob(t, s.key, failing(s.clientId))).status).toBe(201);
  };

  beforeAll(async () => {
    s = await tenant(t, 'starter');
    day0 = t.clock.now();
    // A full 24 h window at day 0 (the runner is held: the jobs stay reserved).
    await accept(10);
  });

  it('C.32 24 h boundary: usage accepted at t−24h+1s still counts; at t−24h (the boundary is excluded) and after it does not', async () => {
    t.clock.set(day0 + DAY - 1_000);
    const inside = await postJob(t, s.key, failing(s.clientId));
    expect(inside.status).toBe(429);
    expect(inside.body.error.details).toMatchObject({ window: '24h', limit: 100, in_use: 100 });
    expect(inside.body.error.details!.recovers_at).toBe(new Date(day0 + DAY).toISOString());
    t.clock.set(day0 + DAY);
    expect((await postJob(t, s.key, failing(s.clientId))).status, 'the boundary itself is outside the window').toBe(
      201,
    );
    t.clock.set(day0 + DAY + 1_000);
    await accept(9);
  });

  it('C.31 allowed by the 24 h window but over the 7 d window: refused, naming 7d; nothing reserved', async () => {
    // Days 2 and 3 fill up too: 400 units in 7 d.
    for (const d of [2, 3]) {
      t.clock.set(day0 + d * DAY + 1_000);
      await accept(10);
    }
    t.clock.set(day0 + 4 * DAY + 2_000);
    const rows = await t.db.selectFrom('usage_ledger').select('id').where('org_id', '=', s.orgId).execute();
    const r = await postJob(t, s.key, failing(s.clientId));
    expect(r.status).toBe(429);
    expect(r.body.error.details).toMatchObject({ window: '7d', limit: 400, in_use: 400, requested: 10 });
    expect(r.body.error.details!.recovers_at).toBe(new Date(day0 + 7 * DAY).toISOString());
    expect(await t.db.selectFrom('usage_ledger').select('id').where('org_id', '=', s.orgId).execute()).toHaveLength(
      rows.length,
    );
    expect(await usage(s.key)).toMatchObject({ '24h': { used: 0, reserved: 0 }, '7d': { reserved: 400 } });
  });

  it('C.32 7 d boundary: day 0 still counts at +7d−1s and no longer at +7d+1s', async () => {
    t.clock.set(day0 + 7 * DAY - 1_000);
    expect((await postJob(t, s.key, failing(s.clientId))).body.error.details).toMatchObject({ window: '7d' });
    t.clock.set(day0 + 7 * DAY + 1_000);
    expect((await postJob(t, s.key, failing(s.clientId))).status).toBe(201);
    expect((await usage(s.key))['7d']).toMatchObject({ reserved: 310 });
    await run(t);
  });
});

describe('C.33 left-behind reservations', () => {
  it('a job accepted just before the process stopped (its run never started) runs after the restart and is charged once; the sweeper leaves it alone meanwhile', async () => {
    const s = await tenant(t, 'starter');
    const job = await createdJob(t, s.key, succeeding(s.clientId));
    await t.stop();
    t = await startContentApp({ dbPath: t.dbPath, clock: t.clock });
    t.clock.advance(HOUR);
    // Its run is pending, not lost: the reconciler does not touch it.
    expect(await t.engine.usage.reconcile(t.db, 60_000)).toEqual({ charged: 0, released: 0 });
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'reserved', units: 10 }]);
    expect(await settle(t, job.job_id)).toBe('completed');
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'charged', units: 10 }]);
  });

  it('a reservation whose run is gone is released by the sweeper once the grace has passed, exactly once', async () => {
    const s = await tenant(t, 'starter');
    const job = await createdJob(t, s.key, failing(s.clientId));
    await t.db.deleteFrom('runs').where('resource_id', '=', job.job_id).execute();
    expect(await t.engine.usage.reconcile(t.db, 60_000)).toEqual({ charged: 0, released: 0 });
    t.clock.advance(61_000);
    expect(await t.engine.usage.reconcile(t.db, 60_000)).toEqual({ charged: 0, released: 1 });
    expect(await t.engine.usage.reconcile(t.db, 60_000)).toEqual({ charged: 0, released: 0 });
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'released', units: 10 }]);
  });

  it('a charge that fails at completion (temp trigger) leaves the job completed and the reservation pending; the reconciler charges it once', async () => {
    const s = await tenant(t, 'starter');
    const job = await createdJob(t, s.key, succeeding(s.clientId));
    const restore = await refuseUpdates(t.db, {
      name: 'refuse_charge',
      table: 'usage_ledger',
      when: "new.state = 'charged'",
      message: 'charge refused by test',
    });
    try {
      expect(await settle(t, job.job_id)).toBe('completed');
    } finally {
      await restore();
    }
    expect(t.logs!.text()).toContain('usage charge failed; the reconciler will retry it');
    expect((await getJob(t, s.key, job.job_id)).body).toMatchObject({
      status: 'completed',
      billing: { charged: false, released: false },
    });
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'reserved', units: 10 }]);
    t.clock.advance(2 * 60_000);
    expect(await t.engine.usage.reconcile(t.db, 60_000)).toEqual({ charged: 1, released: 0 });
    expect(await t.engine.usage.reconcile(t.db, 60_000)).toEqual({ charged: 0, released: 0 });
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'charged', units: 10 }]);
    expect((await getJob(t, s.key, job.job_id)).body.billing).toEqual({ charged: true, released: false });
  });
});

describe('C.34 invariant after a randomized soak of content work', () => {
  it('creates, failures and completions across rolling windows: charged + reserved never exceed a window; every reservation ends settled', async () => {
    const s = await tenant(t, 'starter');
    let seed = 20_261_101;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const statuses = new Map<number, number>();
    let ops = 0;
    for (let batch = 0; batch < 24; batch++) {
      const size = 5 + Math.floor(rand() * 15);
      const answers = await Promise.all(
        Array.from({ length: size }, () => {
          const r = rand();
          if (r < 0.2) return postAutopilot(t, s.key, failing(s.clientId));
          return postJob(t, s.key, r < 0.6 ? succeeding(s.clientId) : failing(s.clientId));
        }),
      );
      ops += size;
      for (const a of answers) {
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        expect([201, 202, 429]).toContain(a.status);
        if (a.status === 429) expect(a.body.error.code).toBe('usage_limit_reached');
      }
      if (rand() < 0.6) await run(t);
      // Between 1 and 12 hours pass (and the per-minute request allowance refills).
      t.clock.advance(HOUR + Math.floor(rand() * 11 * HOUR));
    }
    await run(t);
    expect(ops).toBeGreaterThan(200);
    expect(statuses.get(429) ?? 0).toBeGreaterThan(0);
    expect((statuses.get(201) ?? 0) + (statuses.get(202) ?? 0)).toBeGreaterThan(20);

    const rows = await t.db.selectFrom('usage_ledger').selectAll().where('org_id', '=', s.orgId).execute();
    // Every reservation is settled: nothing is left reserved once all runs are done.
    expect(rows.filter((r) => r.state === 'reserved')).toEqual([]);
    expect(rows.some((r) => r.state === 'charged') && rows.some((r) => r.state === 'released')).toBe(true);
    // Charged + reserved within any window ending at any acceptance never exceeds the pool (released rows were
    // counted while reserved, so the live sum at each acceptance is bounded too).
    for (const [w, limit] of [
      [DAY, 100],
      [7 * DAY, 400],
    ] as const) {
      for (const r of rows) {
        const load = rows
          .filter((x) => x.state !== 'released' && x.created_at > r.created_at - w && x.created_at <= r.created_at)
          .reduce((n, x) => n + x.units, 0);
        expect(load, `window ${w} at ${r.created_at}`).toBeLessThanOrEqual(limit);
      }
    }
    for (const r of rows) expect(r.units).toBeGreaterThan(0);
    // Each job's ledger matches its outcome.
    const jobs = await t.db.selectFrom('content_jobs').select(['id', 'status']).where('org_id', '=', s.orgId).execute();
    const state = new Map(rows.map((r) => [r.resource_id, r.state]));
    for (const j of jobs) expect(state.get(j.id), j.id).toBe(j.status === 'completed' ? 'charged' : 'released');
    expect(jobs).toHaveLength(rows.length);
    // About a hundred completing jobs each research their topic: room for a loaded machine.
  }, 90_000);
});
