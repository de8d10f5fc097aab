import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../src/engine/analysis/score/types.ts';
import {
  getOptimization,
  settle,
  started,
  startWorld,
  type Optimization,
  type OptimizationResult,
  type World,
} from './helpers/harness.ts';
import { GOOD_COMPETITORS, KEYWORD } from './helpers/web.ts';
import { thoroughSpec } from './helpers/pages.ts';

/**
 * Real runs end to end (search, fetch, extract, analyse, score) against the loopback web: the explained result, the
 * saved evidence, omitted competitors, determinism and thin < thorough through the API; and the same on the sample
 * web archive with no network at all.
 */

type Evidence = {
  search: {
    provider: string;
    platform: string;
    query: string;
    language: string;
    fetchedAt: string;
    results: { position: number; url: string; title: string }[];
  };
  page: {
    url: string;
    finalUrl: string;
    status: number;
    contentHash: string;
    fetchedAt: string;
    source: string;
    title: string;
    wordCount: number;
  };
  competitors: {
    url: string;
    position: number;
    included: boolean;
    status: number | null;
    contentHash: string | null;
    reason: string | null;
  }[];
  scoringVersion: string;
  completedAt: string;
};

/** A result a person can act on: every point accounted for and explained. */
function expectExplained(r: OptimizationResult): void {
  expect(r.rankabilityScore).toBeGreaterThan(0);
  expect(r.rankabilityScore).toBeLessThanOrEqual(100);
  expect(Object.keys(r.categoryScores)).toEqual(expect.arrayContaining([...CATEGORIES]));
  expect(Math.abs(r.scoreDetails.reduce((a, d) => a + d.earned, 0) - r.rankabilityScore)).toBeLessThanOrEqual(0.1);
  expect(r.scoreDetails.reduce((a, d) => a + d.possible, 0)).toBeCloseTo(100, 6);
  for (const d of r.scoreDetails) {
    expect(d.earned).toBeLessThanOrEqual(d.possible);
    expect(d.label).toBeTruthy();
    expect(d.evidence).toBeTypeOf('object');
    expect(d.recommendation === null).toBe(d.earned === d.possible);
  }
  expect(r.entities.length).toBeGreaterThan(0);
  for (const e of r.entities) {
    expect(e).toMatchObject({
      term: expect.any(String),
      importance: expect.any(Number),
      sourceCount: expect.any(Number),
      competitorRange: { p25: expect.any(Number), median: expect.any(Number), p75: expect.any(Number) },
    });
    expect(['missing', 'under', 'ok', 'over']).toContain(e.status);
    expect(e.sourceCount).toBeLessThanOrEqual(r.competitorCount);
  }
  expect(r.sourceWordCount).toBeGreaterThan(0);
  expect(r.competitorCount).toBe(r.competitors.length);
  for (const c of r.competitors) {
    expect(c).toMatchObject({
      url: expect.any(String),
      title: expect.any(String),
      wordCount: expect.any(Number),
      score: expect.any(Number),
    });
    expect(c.position).toBeGreaterThanOrEqual(1);
  }
  expect(r.duration).toBeGreaterThanOrEqual(0);
  expect(r.scoringVersion).toBeTruthy();
}

describe('Optimize runs on the loopback web', () => {
  let w: World;
  let key: string;
  beforeAll(async () => {
    w = await startWorld();
    key = (await w.t.tenant('agency')).key;
  });
  afterAll(async () => {
    await w?.close();
  });

  async function run(body: Record<string, unknown>): Promise<Optimization> {
    const o = await started(w.t, key, body);
    await settle(w.t, o.optimization_id);
    return (await getOptimization(w.t, key, o.optimization_id, { view: 'full' })).body;
  }

  it('scores the page against the ten ranking pages and saves the result with its evidence; the page itself is not its own competitor', async () => {
    const keyword = `${KEYWORD} 1`;
    const self = w.web.url('/target/thorough');
    w.serp.set(keyword, [`${self}/`, ...GOOD_COMPETITORS]);
    const o = await run({ url: self, keyword });
    expect(o).toMatchObject({ status: 'complete', error: null, billing_status: 'finalized' });
    const r = o.result!;
    expectExplained(r);
    // Ten results came back; one of them is the page itself (with a trailing slash), so nine are competitors.
    expect(r.competitorCount).toBe(9);
    expect(r.competitors.map((c) => c.url)).toEqual(GOOD_COMPETITORS.slice(0, 9).map((p) => w.web.url(p)));
    expect(r.competitors.map((c) => c.position)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(o.summary).toMatchObject({
      rankabilityScore: r.rankabilityScore,
      competitorCount: 9,
      sourceWordCount: r.sourceWordCount,
    });

    const e = o.evidence as unknown as Evidence;
    expect(e.search).toMatchObject({ provider: 'serpapi', platform: 'organic', query: keyword, language: 'en-US' });
    expect(e.search.results).toHaveLength(10);
    expect(e.page).toMatchObject({ url: self, status: 200, source: 'live' });
    expect(e.page.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(e.page.wordCount).toBe(r.sourceWordCount);
    expect(e.competitors).toHaveLength(9);
    for (const c of e.competitors) {
      expect(c.included).toBe(true);
      expect(c.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
    expect(e.scoringVersion).toBe(r.scoringVersion);
    // The page is fetched once, each competitor once.
    expect(w.web.requests.filter((p) => p === '/target/thorough')).toHaveLength(1);
  });

  it('reads the page metadata it scores (title, description) from a page that starts with a doctype', async () => {
    const o = await run({ url: w.web.url('/target/thorough'), keyword: KEYWORD });
    const e = o.evidence as unknown as Evidence;
    expect(e.page.title).toBe(thoroughSpec(w.web.origin).title);
    const metadata = o.result!.scoreDetails.filter(
      (d) => d.id === 'metadata.title' || d.id === 'metadata.title_keyword' || d.id === 'metadata.description',
    );
    expect(metadata).toHaveLength(3);
    for (const d of metadata) expect(d.earned, d.id).toBe(d.possible);
  });

  it('omits competitors that answer 404, are not HTML or redirect into private space; they are not counted and do not change the score', async () => {
    const keyword = `${KEYWORD} 2`;
    w.serp.set(keyword, ['/c/1', '/c/404', '/c/2', '/c/pdf', '/c/private', '/c/3']);
    const withOmitted = await run({ url: w.web.url('/target/partial'), keyword });
    const r = withOmitted.result!;
    expectExplained(r);
    expect(r.competitorCount).toBe(3);
    expect(r.competitors.map((c) => c.url)).toEqual(['/c/1', '/c/2', '/c/3'].map((p) => w.web.url(p)));
    expect(r.competitors.map((c) => c.position)).toEqual([1, 3, 6]);
    const e = withOmitted.evidence as unknown as Evidence;
    const reasons = Object.fromEntries(
      e.competitors.filter((c) => !c.included).map((c) => [new URL(c.url).pathname, c.reason]),
    );
    expect(reasons['/c/404']).toBe('answered HTTP 404');
    expect(reasons['/c/pdf']).toMatch(/^is not HTML \(application\/pdf\)/);
    expect(reasons['/c/private']).toMatch(/^blocked/);
    expect(Object.keys(reasons)).toHaveLength(3);
    expect(w.canary.connections).toBe(0);

    // The same page against only the three usable competitors: the same score, the same explanation.
    w.serp.set(keyword, ['/c/1', '/c/2', '/c/3']);
    const clean = (await run({ url: w.web.url('/target/partial'), keyword })).result!;
    expect(clean.rankabilityScore).toBe(r.rankabilityScore);
    expect(clean.scoreDetails).toEqual(r.scoreDetails);
    expect(clean.entities).toEqual(r.entities);
  });

  it('is deterministic through the API: the same page, keyword and competitors give the same result', async () => {
    const a = await run({ url: w.web.url('/target/partial'), keyword: KEYWORD });
    const b = await run({ url: w.web.url('/target/partial'), keyword: KEYWORD });
    expect(b.optimization_id).not.toBe(a.optimization_id);
    expect(JSON.stringify(b.result)).toBe(JSON.stringify(a.result));
  });

  it('scores a thorough page clearly higher than a thin page on the same keyword and competitors', async () => {
    const thorough = (await run({ url: w.web.url('/target/thorough'), keyword: KEYWORD })).result!;
    const thin = (await run({ url: w.web.url('/target/thin'), keyword: KEYWORD })).result!;
    expectExplained(thorough);
    expect(thorough.rankabilityScore - thin.rankabilityScore).toBeGreaterThanOrEqual(15);
    expect(thin.competitors).toEqual(thorough.competitors);
  });

  it('fails (released) when no ranking page can be compared with, with a message that says why', async () => {
    const none = `${KEYWORD} 3`;
    w.serp.set(none, []);
    const empty = await run({ url: w.web.url('/target/thorough'), keyword: none });
    expect(empty).toMatchObject({ status: 'failed', billing_status: 'released', result: null });
    expect(empty.error).toMatch(/returned no ranking pages/);
    const broken = `${KEYWORD} 4`;
    w.serp.set(broken, ['/c/404', '/c/pdf']);
    const unusable = await run({ url: w.web.url('/target/thorough'), keyword: broken });
    expect(unusable).toMatchObject({ status: 'failed', billing_status: 'released' });
    expect(unusable.error).toMatch(
      /None of the 2 ranking pages .* is a competitor to compare with \(1 unfetchable, 1 not HTML\)/,
    );
  });
});

describe('Optimize on the sample web archive, offline', () => {
  let w: World;
  beforeAll(async () => {
    // The defaults: archive search and the archive as the web; nothing may go live.
    w = await startWorld({ env: { SERP_PROVIDER: 'archive', AGENT_API_OFFLINE: '1', AGENT_API_TEST_FETCH_ALLOW: '' } });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('scores https://www.rapidflowplumbing.com/ for "emergency plumber" with a full, explained result', async () => {
    const { key } = await w.t.tenant('agency');
    const o = await started(w.t, key, { url: 'https://www.rapidflowplumbing.com/', keyword: 'emergency plumber' });
    await settle(w.t, o.optimization_id);
    const full = (await getOptimization(w.t, key, o.optimization_id, { view: 'full' })).body;
    expect(full).toMatchObject({ status: 'complete', error: null, billing_status: 'finalized' });
    const r = full.result!;
    expectExplained(r);
    expect(r.competitorCount).toBeGreaterThanOrEqual(2);
    expect(r.competitors.map((c) => c.url)).not.toContain('https://www.rapidflowplumbing.com/');
    for (const c of r.competitors) expect(c.title).not.toBe('');
    const e = full.evidence as unknown as Evidence;
    expect(e.search.provider).toBe('archive');
    expect(e.page).toMatchObject({ source: 'archive', status: 200 });
    expect(e.page.title).not.toBe('');
    expect(w.serp.fake.requests).toHaveLength(0);
    expect(w.canary.connections).toBe(0);
  });
});
