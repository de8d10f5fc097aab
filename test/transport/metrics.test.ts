import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/store.ts';
import { NO_MATCH, PLUMBING, postJob, run, startContentApp, tenant } from '../content/helpers/harness.ts';

/** GET /metrics: its own token, the Prometheus text format, and figures that move with the work (both dialects). */

const TOKEN = 'metrics-token-0123456789abcdef';

/** One sample of the text format: `name{a="x",b="y"} value`, labels in any order; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/i.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const keys = Object.keys(labels);
    if (keys.length === Object.keys(have).length && keys.every((k) => have[k] === labels[k])) return Number(m[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  let t: TestApp;
  const scrape = async (token: string | null = TOKEN) =>
    fetch(`${t.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    t = await startContentApp({ env: { AGENT_API_METRICS_TOKEN: TOKEN, AGENT_API_FAILED_AUTH_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers the Prometheus text format to its token only: none or a wrong one is 401, counted per address (429 past it)', async () => {
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await ok.text();
    expect(body).toContain('# TYPE agent_api_queue_depth gauge');
    expect(body).toContain('# TYPE agent_api_run_seconds histogram');
    expect(body).toContain('agent_api_process_cpu_seconds_total');
    const none = await scrape(null);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect((await scrape('metrics-token-0123456789abcdeX')).status).toBe(401);
    expect((await scrape('short')).status).toBe(401);
    expect((await scrape('another-wrong-token-000000')).status).toBe(429);
    // The right token still passes from an address past its allowance.
    expect((await scrape()).status).toBe(200);
    t.clock.advance(60_000);
  });

  it('queue depth counts due runs by kind; run, step and provider figures move when the runner works', async () => {
    const s = await tenant(t, 'agency');
    expect(sample(await text(), 'agent_api_queue_depth', { kind: 'content_job' })).toBe(0);
    for (const topic of [PLUMBING, NO_MATCH]) {
      const res = await postJob(t, s.key, { topic, client_id: s.clientId, page_contract: 'article' });
      expect(res.status).toBe(201);
    }
    const before = await text();
    expect(sample(before, 'agent_api_queue_depth', { kind: 'content_job' })).toBe(2);
    expect(sample(before, 'agent_api_runs', { kind: 'content_job', state: 'due' })).toBe(2);
    await run(t);
    const after = await text();
    expect(sample(after, 'agent_api_queue_depth', { kind: 'content_job' })).toBe(0);
    expect(sample(after, 'agent_api_run_claim_wait_seconds_count', { kind: 'content_job' })).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'agent_api_run_step_seconds_count', { kind: 'content_job', outcome: 'ok' })).toBeGreaterThan(
      0,
    );
    // The off-topic job's research is refused: one run failed, not charged.
    expect(sample(after, 'agent_api_run_seconds_count', { kind: 'content_job', outcome: 'failed' })).toBe(1);
    expect(sample(after, 'agent_api_run_step_failures_total', { kind: 'content_job', disposition: 'final' })).toBe(1);
    expect(sample(after, 'agent_api_provider_calls_total', { kind: 'search', outcome: 'ok' })).toBeGreaterThan(0);
    expect(sample(after, 'agent_api_provider_call_seconds_count', { kind: 'search' })).toBeGreaterThan(0);
  });

  it('counts rejections: the request limit and the usage window', async () => {
    const s = await tenant(t, 'starter');
    const before = await text();
    const rate0 = sample(before, 'agent_api_rejections_total', { reason: 'rate_limit' })!;
    const usage0 = sample(before, 'agent_api_rejections_total', { reason: 'usage_limit' })!;
    // A starter pool holds 10 jobs of 10 units: the 11th is refused for usage.
    const jobs = [];
    for (let i = 0; i < 11; i++)
      jobs.push(await postJob(t, s.key, { topic: NO_MATCH, client_id: s.clientId, page_contract: 'article' }));
    expect(jobs.map((r) => r.status).filter((x) => x === 429)).toHaveLength(1);
    // 30 requests a minute: the 11 above and 19 more pass, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await t.request('GET', '/usage', { key: s.key })).status);
    expect(statuses.filter((x) => x === 429)).toHaveLength(2);
    const after = await text();
    expect(sample(after, 'agent_api_rejections_total', { reason: 'usage_limit' })).toBe(usage0 + 1);
    expect(sample(after, 'agent_api_rejections_total', { reason: 'rate_limit' })).toBe(rate0 + 2);
    await run(t);
  });

  it.runIf(onPostgres)('reports the PostgreSQL pool: size, open, idle and waiting connections', async () => {
    const body = await text();
    expect(sample(body, 'agent_api_db_pool_max')).toBe(10);
    expect(sample(body, 'agent_api_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(sample(body, 'agent_api_db_pool_connections', { state: 'waiting' })).toBe(0);
  });

  it.runIf(!onPostgres)('on SQLite there is no pool to report', async () => {
    expect(sample(await text(), 'agent_api_db_pool_max')).toBeUndefined();
  });
});

describe('without AGENT_API_METRICS_TOKEN', () => {
  it('there is no /metrics: 404', async () => {
    const t = await startTestApp();
    try {
      const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
