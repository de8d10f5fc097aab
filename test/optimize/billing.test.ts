import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getReservation } from '../../src/store/repos/usage-ledger.ts';
import { immediate } from '../../src/store/db.ts';
import { call, drain, footprint, getOptimization, settle, started, startWorld, type World } from './helpers/harness.ts';
import { KEYWORD } from './helpers/web.ts';
import { refuseUpdates } from '../helpers/triggers.ts';

/**
 * docs/reliability.md C.28-C.30 through real runs: a run that fails releases its reservation exactly once and the pool gets
 * the units back; a run that succeeds finalizes it exactly once; late duplicate charges and releases are logged
 * no-ops. A charge write that fails leaves a usable result with `reconciliation_pending` until the reconciler
 * charges it.
 */

let w: World;
const MAX_ATTEMPTS = 3;

beforeAll(async () => {
  w = await startWorld({ env: { AGENT_API_MAX_ATTEMPTS: String(MAX_ATTEMPTS), AGENT_API_RETRY_BASE_MS: '1000' } });
});
afterAll(async () => {
  await w?.close();
});

type Usage = { windows: Record<'24h' | '7d', { used: number; reserved: number; remaining_percent: number }> };
const usage = async (key: string) => (await call<Usage>(w.t, 'GET', '/usage', { key })).body.windows;
const ledger = (id: string) => getReservation(w.t.db, 'optimization', id);
const runOf = (id: string) =>
  w.t.db.selectFrom('runs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();

describe('C.28 a failed run releases its reservation exactly once', () => {
  it('the page answers 404: PermanentError, failed at once with the saved error, readable later, released, usage restored', async () => {
    const { orgId, key } = await w.t.tenant('starter');
    const before = await usage(key);
    const o = await started(w.t, key, { url: w.web.url('/target/missing'), keyword: KEYWORD });
    expect((await usage(key))['24h']).toMatchObject({ reserved: 4, used: 0 });
    await settle(w.t, o.optimization_id);
    const run = await runOf(o.optimization_id);
    expect(run).toMatchObject({ state: 'failed', attempts: 1 });
    expect(w.web.count('/target/missing')).toBe(1);
    const r = (await getOptimization(w.t, key, o.optimization_id, { view: 'full' })).body;
    expect(r).toMatchObject({ status: 'failed', billing_status: 'released', summary: null, result: null });
    expect(r.error).toBe('The page could not be analysed: it answered HTTP 404.');
    expect(r.completed_at).not.toBeNull();
    const entry = await ledger(o.optimization_id);
    expect(entry).toMatchObject({ state: 'released' });
    expect(await usage(key)).toEqual(before);
    // Still readable, unchanged, a day later.
    w.t.clock.advance(24 * 3_600_000);
    const later = (await getOptimization(w.t, key, o.optimization_id, { view: 'full' })).body;
    expect(later).toMatchObject({ status: 'failed', error: r.error, billing_status: 'released' });
    // C.30: finalize after release and a second release are no-ops.
    expect(await w.t.engine.usage.charge(w.t.db, 'optimization', o.optimization_id)).toBe(false);
    expect(await w.t.engine.usage.release(w.t.db, 'optimization', o.optimization_id)).toBe(false);
    expect(await ledger(o.optimization_id)).toEqual(entry);
    expect((await footprint(w.t, orgId)).reservations).toBe(1);
    expect(w.t.logs!.text()).toMatch(/usage charge skipped/);
  });

  it('the search provider refuses (401): failed, released once, usage restored', async () => {
    const { key } = await w.t.tenant('starter');
    const before = await usage(key);
    w.serp.fake.failNext(401, 1, { body: { error: 'Invalid API key.' } });
    const o = await started(w.t, key, { url: w.web.url('/target/thorough'), keyword: `${KEYWORD} 503` });
    await settle(w.t, o.optimization_id);
    const r = (await getOptimization(w.t, key, o.optimization_id, { view: 'status' })).body;
    expect(r).toMatchObject({ status: 'failed', billing_status: 'released' });
    expect(r.error).toMatch(/^search: /);
    expect(r.error).not.toMatch(/fake-serpapi-key/);
    expect(await usage(key)).toEqual(before);
  });

  for (const [what, path] of [
    ['resets the connection', '/target/reset'],
    ['answers 503', '/target/error'],
  ] as const) {
    it(`C.28 retries exhausted (the page ${what} every time): ${MAX_ATTEMPTS} attempts with backoff, then failed and released once`, async () => {
      const { key } = await w.t.tenant('starter');
      const before = await usage(key);
      const o = await started(w.t, key, { url: w.web.url(path), keyword: KEYWORD });
      const fetchesBefore = w.web.count(path);
      await drain(w.t);
      // After the first failure the run waits for its backoff (1 s, then 2 s) on the fake clock.
      let run = await runOf(o.optimization_id);
      expect(run).toMatchObject({ state: 'pending', attempts: 1 });
      expect(run.run_after).toBe(w.t.clock.now() + 1_000);
      expect((await getOptimization(w.t, key, o.optimization_id, { view: 'status' })).body).toMatchObject({
        status: 'running',
        billing_status: 'reserved',
      });
      await settle(w.t, o.optimization_id, 1_000);
      run = await runOf(o.optimization_id);
      expect(run).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS });
      expect(w.web.count(path) - fetchesBefore).toBe(MAX_ATTEMPTS);
      const r = (await getOptimization(w.t, key, o.optimization_id, { view: 'status' })).body;
      expect(r).toMatchObject({ status: 'failed', billing_status: 'released' });
      expect(r.error).toMatch(/^The page could not be analysed/);
      expect(await usage(key)).toEqual(before);
      expect(await w.t.engine.usage.release(w.t.db, 'optimization', o.optimization_id)).toBe(false);
      // Nothing is left to run: no infinite retry.
      w.t.clock.advance(3_600_000);
      await drain(w.t);
      expect(w.web.count(path) - fetchesBefore).toBe(MAX_ATTEMPTS);
    });
  }
});

describe('C.29 a successful run finalizes its reservation exactly once', () => {
  it('a run that succeeds after a transient failure is charged once; the search ran once (checkpointed)', async () => {
    const { orgId, key } = await w.t.tenant('starter');
    const keyword = `${KEYWORD} 29`;
    w.web.resetNext('/target/partial', 1);
    const o = await started(w.t, key, { url: w.web.url('/target/partial'), keyword });
    await settle(w.t, o.optimization_id, 1_000);
    const r = (await getOptimization(w.t, key, o.optimization_id, { view: 'summary' })).body;
    expect(r).toMatchObject({
      status: 'complete',
      billing_status: 'finalized',
      error: null,
      summary: { billingFinalized: true, competitorCount: 3 },
    });
    expect(w.serp.calls(keyword)).toBe(1);
    const entry = await ledger(o.optimization_id);
    expect(entry).toMatchObject({ state: 'charged', units: 4 });
    expect((await usage(key))['24h']).toMatchObject({ used: 4, reserved: 0 });

    // Duplicate completion events: a second charge, the deferred charge path and a late release change nothing.
    expect(await w.t.engine.usage.charge(w.t.db, 'optimization', o.optimization_id)).toBe(false);
    expect(
      await immediate(w.t.db, (trx) => w.t.engine.usage.chargeOrDefer(trx, 'optimization', o.optimization_id)),
    ).toBe('noop');
    expect(await w.t.engine.usage.release(w.t.db, 'optimization', o.optimization_id)).toBe(false);
    expect(await ledger(o.optimization_id)).toEqual(entry);
    expect((await usage(key))['24h']).toMatchObject({ used: 4, reserved: 0 });
    expect(w.t.logs!.text()).toMatch(/usage release skipped/);
    expect(await w.t.engine.usage.reconcile(w.t.db, 0)).toMatchObject({ charged: 0 });
    expect((await footprint(w.t, orgId)).ledger).toEqual([entry]);
  });
});

describe('reconciliation_pending: the charge write fails, the result stays usable, the reconciler charges it later', () => {
  it('reports reconciliation_pending with a usable result, then finalized once after reconcile', async () => {
    const { key } = await w.t.tenant('starter');
    const restore = await refuseUpdates(w.t.db, {
      name: 'fail_charge',
      table: 'usage_ledger',
      when: "new.state = 'charged'",
      message: 'billing down',
    });
    let id: string;
    try {
      id = (await started(w.t, key, { url: w.web.url('/target/thorough'), keyword: KEYWORD })).optimization_id;
      await settle(w.t, id);
      const full = (await getOptimization(w.t, key, id, { view: 'full' })).body;
      expect(full).toMatchObject({
        status: 'complete',
        billing_status: 'reconciliation_pending',
        error: null,
        summary: { billingFinalized: false },
      });
      expect(full.result!.rankabilityScore).toBeGreaterThan(0);
      expect(full.result!.competitorCount).toBe(full.result!.competitors.length);
      expect(await ledger(id)).toMatchObject({ state: 'reserved', settled_at: null });
      expect((await runOf(id)).state).toBe('done');
      expect(w.t.logs!.text()).toMatch(/usage charge failed; the reconciler will retry it/);
      // While billing is down the reconciler cannot charge it either (it may report the failure or skip the row),
      // and leaves it reserved for the next pass.
      w.t.clock.advance(120_000);
      const pass = await w.t.engine.usage.reconcile(w.t.db, 60_000).catch((err: Error) => err);
      if (pass instanceof Error) expect(pass.message).toMatch(/billing down/);
      else expect(pass.charged).toBe(0);
      expect(await ledger(id)).toMatchObject({ state: 'reserved' });
    } finally {
      await restore();
    }
    // A queued run's reservation is not the reconciler's to settle.
    await w.t.engine.runner.stop(0);
    try {
      const queued = await started(w.t, key, { url: w.web.url('/target/thorough'), keyword: KEYWORD });
      w.t.clock.advance(120_000);
      const settled = await w.t.engine.usage.reconcile(w.t.db, 60_000);
      expect(settled).toEqual({ charged: 1, released: 0 });
      expect(await ledger(queued.optimization_id)).toMatchObject({ state: 'reserved' });
    } finally {
      await w.t.engine.runner.start();
    }
    expect(await ledger(id)).toMatchObject({ state: 'charged' });
    const after = (await getOptimization(w.t, key, id, { view: 'summary' })).body;
    expect(after).toMatchObject({
      status: 'complete',
      billing_status: 'finalized',
      summary: { billingFinalized: true },
    });
    expect(await w.t.engine.usage.reconcile(w.t.db, 60_000)).toEqual({ charged: 0, released: 0 });
    expect(await ledger(id)).toMatchObject({ state: 'charged' });
    await drain(w.t);
  });
});
