import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOptimization, settle, startWorld, started, type World } from './helpers/harness.ts';

/**
 * A finished run keeps its result and evidence, not its working data: the pipeline's transient step outputs (search
 * results, fetched pages with their extractions and term analyses) are dropped from the run's checkpoint when it ends
 * (docs/architecture.md, "Pipelines").
 */
describe('storage of a finished optimization', () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld({ env: { SERP_PROVIDER: 'archive', AGENT_API_OFFLINE: '1', AGENT_API_TEST_FETCH_ALLOW: '' } });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('keeps at most 2x the bytes of its view=full body across every row it wrote', async () => {
    const { key } = await w.t.tenant('agency');
    const o = await started(w.t, key, { url: 'https://www.rapidflowplumbing.com/', keyword: 'emergency plumber' });
    await settle(w.t, o.optimization_id);
    const full = await getOptimization(w.t, key, o.optimization_id, { view: 'full' });
    expect(full.body.status).toBe('complete');
    const viewBytes = Buffer.byteLength(JSON.stringify(full.body));

    const rowBytes = (row: Record<string, unknown> | undefined) =>
      Object.values(row ?? {}).reduce<number>(
        (n, v) => n + (typeof v === 'string' ? Buffer.byteLength(v) : v === null ? 0 : 8),
        0,
      );
    const id = o.optimization_id;
    const optimization = await w.t.db.selectFrom('optimizations').selectAll().where('id', '=', id).executeTakeFirst();
    const run = await w.t.db.selectFrom('runs').selectAll().where('resource_id', '=', id).executeTakeFirst();
    const ledger = await w.t.db.selectFrom('usage_ledger').selectAll().where('resource_id', '=', id).execute();
    const keys = await w.t.db.selectFrom('idempotency_keys').selectAll().where('resource_id', '=', id).execute();
    const stored =
      rowBytes(optimization) +
      rowBytes(run) +
      ledger.reduce((n, r) => n + rowBytes(r), 0) +
      keys.reduce((n, r) => n + rowBytes(r), 0);

    expect(run?.state).toBe('done');
    expect(JSON.parse(run!.checkpoint)).toEqual({});
    expect(stored).toBeLessThanOrEqual(2 * viewBytes);
  });
});
