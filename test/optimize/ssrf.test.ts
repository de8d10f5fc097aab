import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structured } from '../helpers/mcp.ts';
import { ssrfSchemeCases, ssrfUrlCases, type SsrfUrlCase } from '../helpers/ssrf-cases.ts';
import {
  drain,
  footprint,
  getOptimization,
  idem,
  mcpClient,
  postOptimize,
  settle,
  started,
  startWorld,
  type ErrorBody,
  type World,
} from './helpers/harness.ts';
import { KEYWORD } from './helpers/web.ts';

/**
 * docs/reliability.md E through POST /optimize (400 validation_error) and start_optimization (isError validation_error):
 * every unsafe URL is refused before any reservation, run or row exists, and the loopback canary (whose port the
 * URLs carry) never gets a connection. Redirects into private space, by the page or by a competitor, are refused
 * at the hop, and the canary stays untouched.
 */

let w: World;
let cases: SsrfUrlCase[];

beforeAll(async () => {
  w = await startWorld({ competitors: ['/c/1'] });
  const seen = new Set<string>();
  cases = [...ssrfUrlCases(w.canary.port), ...ssrfSchemeCases(w.canary.port)].filter(
    (c) => !seen.has(c.url) && (seen.add(c.url), true),
  );
});
afterAll(async () => {
  await w?.close();
});

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

const ids = () => [...new Set(cases.map((c) => c.id))];

describe('E. unsafe URLs are refused at request time', () => {
  it('covers the cases of the shared SSRF list', () => {
    expect(ids()).toEqual(
      expect.arrayContaining([
        'E.43',
        'E.44',
        'E.45',
        'E.46',
        'E.47',
        'E.48',
        'E.49',
        'E.50',
        'E.51',
        'E.52',
        'E.58',
        'E.59',
      ]),
    );
    expect(cases.length).toBeGreaterThan(60);
  });

  for (const id of ['E.43', 'E.44', 'E.45', 'E.46', 'E.47', 'E.48', 'E.49', 'E.50', 'E.51', 'E.52', 'E.58', 'E.59']) {
    it(`${id} POST /optimize and start_optimization answer 400 validation_error naming url; nothing is created and the canary is untouched`, async () => {
      const { orgId, key } = await w.t.tenant('agency');
      const mine = cases.filter((c) => c.id === id);
      expect(mine.length).toBeGreaterThan(0);
      const c = await mcpClient(w.t, key);
      try {
        for (const { url } of mine) {
          const r = await postOptimize(w.t, key, { url, keyword: KEYWORD }, idem(id));
          expect(r.status, url).toBe(400);
          expect(r.body.error.code, url).toBe('validation_error');
          expect(
            (r.body.error.details!.fields as { path: string }[]).map((f) => f.path),
            url,
          ).toEqual(['url']);
          const m = (await c.client.callTool({
            name: 'start_optimization',
            arguments: { url, keyword: KEYWORD, idempotency_key: idem(id) },
          })) as ToolResult;
          expect(m.isError, url).toBe(true);
          expect(structured<ErrorBody>(m), url).toEqual(r.body);
        }
      } finally {
        await c.close();
      }
      await drain(w.t);
      expect(await footprint(w.t, orgId)).toMatchObject({ optimizations: 0, reservations: 0, runs: 0, keys: 0 });
      expect(w.canary.connections).toBe(0);
    });
  }
});

describe('E.57 redirects into private addresses during a run', () => {
  it('a competitor that redirects to a private address is omitted (not counted); the canary is untouched', async () => {
    const { key } = await w.t.tenant('agency');
    const keyword = `${KEYWORD} 57`;
    w.serp.set(keyword, ['/c/1', '/c/private', '/c/2']);
    const o = await started(w.t, key, { url: w.web.url('/target/thorough'), keyword });
    await settle(w.t, o.optimization_id);
    const full = (await getOptimization(w.t, key, o.optimization_id, { view: 'full' })).body;
    expect(full.status).toBe('complete');
    expect(full.result!.competitorCount).toBe(2);
    expect(full.result!.competitors.map((c) => c.url)).toEqual([w.web.url('/c/1'), w.web.url('/c/2')]);
    const evidence = full.evidence!.competitors as { url: string; included: boolean; reason: string | null }[];
    const redirected = evidence.find((c) => c.url === w.web.url('/c/private'))!;
    expect(redirected.included).toBe(false);
    expect(redirected.reason).toMatch(/^blocked/);
    expect(w.web.count('/c/private')).toBe(1);
    expect(w.canary.connections).toBe(0);
  });

  it('a page that redirects to a private address fails the run (released); the canary is untouched', async () => {
    const { key } = await w.t.tenant('agency');
    const o = await started(w.t, key, { url: w.web.url('/target/private'), keyword: KEYWORD });
    await settle(w.t, o.optimization_id);
    const r = (await getOptimization(w.t, key, o.optimization_id, { view: 'status' })).body;
    expect(r).toMatchObject({ status: 'failed', billing_status: 'released' });
    expect(r.error).toMatch(/blocked/);
    expect(w.canary.connections).toBe(0);
  });
});
