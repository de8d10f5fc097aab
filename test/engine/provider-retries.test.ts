import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drain, settle, startWorld, started, type World } from '../optimize/helpers/harness.ts';
import { KEYWORD } from '../optimize/helpers/web.ts';

/**
 * One retry layer (docs/architecture.md §5): provider adapters make one HTTP attempt per call and the runner retries
 * the step, so a step sends each provider request at most AGENT_API_MAX_ATTEMPTS times, whatever fails, and never
 * sooner than the provider's Retry-After.
 */
describe('paid provider calls per step', () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld({ env: { AGENT_API_MAX_ATTEMPTS: '5', AGENT_API_RETRY_BASE_MS: '1000' } });
  });
  afterAll(async () => {
    await w?.close();
  });

  const searchesFor = (keyword: string) => w.serp.fake.requests.filter((r) => r.query.q === keyword).length;

  it('a search provider that always fails is called exactly AGENT_API_MAX_ATTEMPTS (5) times, then the run fails', async () => {
    const { key } = await w.t.tenant('agency');
    const keyword = `${KEYWORD} 5`;
    w.serp.fake.failNext(503, 6);
    const o = await started(w.t, key, { url: w.web.url('/target/thorough'), keyword });
    await settle(w.t, o.optimization_id);
    const row = await w.t.db
      .selectFrom('optimizations')
      .select(['status', 'error'])
      .where('id', '=', o.optimization_id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/search: .*HTTP 503/);
    expect(searchesFor(keyword)).toBe(5);
    w.serp.fake.reset();
  });

  it("the next attempt waits for the provider's Retry-After when it is longer than the backoff, then succeeds", async () => {
    const { key } = await w.t.tenant('agency');
    const keyword = `${KEYWORD} 429`;
    w.serp.fake.failNext(429, 1, { retryAfter: '300' });
    const before = w.t.clock.now();
    const o = await started(w.t, key, { url: w.web.url('/target/thorough'), keyword });
    await drain(w.t);
    const run = await w.t.db
      .selectFrom('runs')
      .select(['run_after', 'attempts', 'state'])
      .where('resource_id', '=', o.optimization_id)
      .executeTakeFirstOrThrow();
    expect(run.state).toBe('pending');
    expect(run.run_after - before).toBeGreaterThanOrEqual(300_000);
    expect(searchesFor(keyword)).toBe(1);
    await settle(w.t, o.optimization_id);
    const done = await w.t.db
      .selectFrom('optimizations')
      .select('status')
      .where('id', '=', o.optimization_id)
      .executeTakeFirstOrThrow();
    expect(done.status).toBe('complete');
    expect(searchesFor(keyword)).toBe(2);
  });
});
