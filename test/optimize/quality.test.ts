import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headTerms, stemSet } from '../../src/engine/analysis/score/relevance.ts';
import {
  call,
  getOptimization,
  idem,
  settle,
  started,
  type Optimization,
  type OptimizationResult,
} from './helpers/harness.ts';
import {
  BRAND_WORDS,
  PAGES,
  SITES,
  startQualityWorld,
  TOPIC,
  type PageKey,
  type QualityWorld,
} from './helpers/quality-web.ts';

/**
 * Quality properties of Optimize on a one-topic loopback web ("descale espresso machine"): which ranking pages are
 * competitors and why the others are not, which terms may be recommended, and whether the recommendations agree
 * with each other. See helpers/quality-web.ts for the sites and pages.
 */

type ScoreResponse = Pick<OptimizationResult, 'rankabilityScore' | 'scoreDetails' | 'recommendations'>;

/** The ranking pages of TOPIC, in rank order: 6 competitors on 5 sites, 2 own-site pages, 1 off topic, 1 over the cap. */
const RANKING: PageKey[] = ['a1', 'b1', 'own1', 'c1', 'a2', 'd1', 'distractor', 'e1', 'a3', 'own2'];

/** Units of measure the fixture's pages use; none may be recommended on its own. */
const UNITS = new Set(
  'f in inch inches ounce ounces oz g gram grams l liter liters litre ml ppm minute minutes min second seconds month months week weeks year years cup cups'.split(
    ' ',
  ),
);

const HEAD = headTerms(TOPIC, 'en-US');

let w: QualityWorld;
let key: string;
/** The main run: the target page against RANKING. */
let main: Optimization;

async function run(body: Record<string, unknown>, idempotencyKey = idem('quality')): Promise<Optimization> {
  const o = await started(w.t, key, body, idempotencyKey);
  await settle(w.t, o.optimization_id);
  const full = (await getOptimization(w.t, key, o.optimization_id, { view: 'full' })).body;
  expect(full.status, full.error ?? '').toBe('complete');
  return full;
}

const hostOf = (url: string) => new URL(url).hostname;
const urls = (pages: PageKey[]) => pages.map((p) => w.web.url(p));
const excludedAs = (r: OptimizationResult, reason: string) =>
  r.excluded_competitors.filter((e) => e.reason === reason).map((e) => e.url);

/** Every term a result asks the writer to add or use more: the recommendations' and the missing/under entity rows. */
/** The terms a run asks for: term advice (a fact, `add_fact`, is checked on its own) and terms it marks lacking. */
function recommendedTerms(r: Pick<OptimizationResult, 'recommendations' | 'entities'>): string[] {
  const termKinds = new Set(['add_term', 'use_more', 'use_less']);
  return [
    ...r.recommendations.flatMap((x) => (x.term === null || !termKinds.has(x.kind) ? [] : [x.term])),
    ...r.entities.filter((e) => e.status === 'missing' || e.status === 'under').map((e) => e.term),
  ];
}

/** True when `term` is made only of the keyword's head terms (by stem). */
function isHeadTerm(term: string): boolean {
  const stems = [...stemSet(term, 'en-US')];
  return stems.length > 0 && stems.every((s) => HEAD.stems.includes(s));
}

/** A list a person can follow: sorted, every item worth something, prioritised by points, and not self-contradicting. */
function expectCoherent(r: ScoreResponse): void {
  const recs = r.recommendations;
  expect(recs.length).toBeGreaterThan(0);
  for (let i = 1; i < recs.length; i++) expect(recs[i - 1]!.points).toBeGreaterThanOrEqual(recs[i]!.points);
  for (const x of recs) {
    expect(x.points, x.id).toBeGreaterThan(0);
    expect(x.priority, `${x.id} (${x.points} points)`).toBe(
      x.points >= 2 ? 'high' : x.points >= 0.75 ? 'medium' : 'low',
    );
  }
  const wanted = new Set(
    recs.filter((x) => x.kind === 'add_term' || x.kind === 'use_more').map((x) => x.term!.toLowerCase()),
  );
  const lessOf = recs.filter((x) => x.kind === 'use_less').map((x) => x.term!.toLowerCase());
  expect(lessOf.filter((t) => wanted.has(t))).toEqual([]);
  const length = r.scoreDetails.find((d) => d.id === 'length.words')!;
  if (length.recommendation?.startsWith('Trim')) {
    expect(recs.filter((x) => /\bexpand/i.test(x.recommendation)).map((x) => x.recommendation)).toEqual([]);
  }
}

beforeAll(async () => {
  w = await startQualityWorld();
  key = (await w.t.tenant('agency')).key;
  w.serp.set(TOPIC, RANKING);
  main = await run({ url: w.web.url('target'), keyword: TOPIC });
}, 60_000);
afterAll(async () => {
  await w?.close();
});

describe('which ranking pages are competitors', () => {
  it("leaves out the pages of the scored page's own site as same_site and never counts them", () => {
    const r = main.result!;
    expect(excludedAs(r, 'same_site').sort()).toEqual(urls(['own1', 'own2']).sort());
    expect(r.competitors.map((c) => hostOf(c.url))).not.toContain(SITES.own.host);
    expect(r.competitorCount).toBe(r.competitors.length);
    expect(r.competitorCount).toBe(6);
    for (const e of r.entities) expect(e.sourceCount).toBeLessThanOrEqual(6);
  });

  it('excludes a page that shares only one word with the keyword as off_topic, saying which words it lacks', () => {
    const r = main.result!;
    expect(excludedAs(r, 'off_topic')).toEqual(urls(['distractor']));
    const detail = r.excluded_competitors.find((e) => e.reason === 'off_topic')!.detail;
    expect(detail).toMatch(/"descale"/);
    expect(detail).toMatch(/"machine"/);
    expect(r.competitors.map((c) => c.url)).not.toContain(w.web.url('distractor'));
  });

  it('compares at most two pages of one site, in rank order; the third is excluded as domain_cap', () => {
    const r = main.result!;
    const perHost = new Map<string, number>();
    for (const c of r.competitors) perHost.set(hostOf(c.url), (perHost.get(hostOf(c.url)) ?? 0) + 1);
    for (const [host, n] of perHost) expect(n, host).toBeLessThanOrEqual(2);
    expect(r.competitors.map((c) => c.url)).toEqual(urls(['a1', 'b1', 'c1', 'a2', 'd1', 'e1']));
    expect(r.competitors.map((c) => c.position)).toEqual([1, 2, 4, 5, 6, 8]);
    expect(r.excluded_competitors.find((e) => e.reason === 'domain_cap')).toMatchObject({
      url: w.web.url('a3'),
      position: 9,
    });
    for (const c of r.competitors) expect(c.relevance).toBeGreaterThanOrEqual(0.7);
  });

  it('competitor_urls replaces the search: the given pages are the candidates and an off-topic one is excluded', async () => {
    const keyword = `${TOPIC} 4`;
    const given = urls(['b1', 'c1', 'd1', 'distractor']);
    const o = await run({ url: w.web.url('target'), keyword, competitor_urls: given });
    expect(w.serp.calls(keyword)).toBe(0);
    const r = o.result!;
    expect(r.competitors.map((c) => c.url)).toEqual(urls(['b1', 'c1', 'd1']));
    expect(r.competitors.map((c) => c.position)).toEqual([1, 2, 3]);
    expect(r.excluded_competitors).toEqual([
      expect.objectContaining({ url: w.web.url('distractor'), position: 4, reason: 'off_topic' }),
    ]);
    expect((o.evidence as { search: { provider: string } }).search.provider).toBe('competitor_urls');
  });

  it('force_competitors keeps every given page: off topic, the own site and a third page of one site', async () => {
    const keyword = `${TOPIC} 5`;
    const given = urls(['b1', 'distractor', 'own1', 'a1', 'a2', 'a3']);
    const o = await run({ url: w.web.url('target'), keyword, competitor_urls: given, force_competitors: true });
    expect(w.serp.calls(keyword)).toBe(0);
    const r = o.result!;
    expect(r.competitors.map((c) => c.url)).toEqual(given);
    expect(r.excluded_competitors).toEqual([]);
    expect(r.competitorCount).toBe(6);
  });

  it("exclude_domains excludes a site's pages as excluded_domain before anything is fetched", async () => {
    const keyword = `${TOPIC} 6`;
    w.serp.set(keyword, RANKING);
    const fetchedBefore = w.web.requests.filter((p) => p.startsWith(`${SITES.b.host}/`)).length;
    const o = await run({ url: w.web.url('target'), keyword, exclude_domains: [SITES.b.host] });
    const r = o.result!;
    expect(excludedAs(r, 'excluded_domain')).toEqual(urls(['b1']));
    expect(r.excluded_competitors.find((e) => e.reason === 'excluded_domain')!.position).toBe(2);
    expect(r.competitors.map((c) => hostOf(c.url))).not.toContain(SITES.b.host);
    expect(r.competitorCount).toBe(5);
    expect(w.web.requests.filter((p) => p.startsWith(`${SITES.b.host}/`)).length).toBe(fetchedBefore);
  });

  it('validates the new fields: competitor_urls are checked like url, exclude_domains are hosts, force_competitors needs competitor_urls', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ competitor_urls: [w.web.url('b1'), 'http://10.0.0.7/admin'] }, 'competitor_urls.1'],
      [{ competitor_urls: ['ftp://example.com/x'] }, 'competitor_urls.0'],
      [{ competitor_urls: [] }, 'competitor_urls'],
      [{ exclude_domains: ['not a host'] }, 'exclude_domains.0'],
      [{ force_competitors: true }, 'force_competitors'],
    ];
    for (const [extra, field] of cases) {
      const r = await call<{ error: { code: string; details: { fields: { path: string }[] } } }>(
        w.t,
        'POST',
        '/optimize',
        { key, body: { url: w.web.url('target'), keyword: TOPIC, ...extra }, headers: { 'idempotency-key': idem() } },
      );
      expect(r.status, field).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details.fields.map((f) => f.path)).toContain(field);
    }
  });

  it('rates confidence normal with 3 or more competitors, and low with a warning with fewer', async () => {
    expect(main.result!).toMatchObject({ confidence: 'normal', warnings: [] });
    const keyword = `${TOPIC} 2`;
    w.serp.set(keyword, ['b1', 'distractor', 'own1', 'c1']);
    const o = await run({ url: w.web.url('target'), keyword });
    const r = o.result!;
    expect(r.competitorCount).toBe(2);
    expect(r.confidence).toBe('low');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/fewer than 3 competitors/);
    expect(r.warnings[0]).toMatch(/off topic/);
    expect(o.summary).toMatchObject({ confidence: 'low', warnings: r.warnings });
    expectCoherent(r);
  });
});

describe('which terms are recommended', () => {
  it('recommends no single character, letterless token, lone unit, or competitor site name', () => {
    const r = main.result!;
    // The competitors' own vocabulary has all of these, so the filter is what keeps them out.
    const a = w.t.engine.analysis;
    const docs = r.competitors.map((c) => {
      const page = (Object.keys(PAGES) as PageKey[]).find((k) => w.web.url(k) === c.url)!;
      return a.analyze(c.url, a.extract(w.web.html(page), c.url), 'en-US').terms;
    });
    const raw = a.analyzer.analyzeCompetitors(docs);
    const rawNames = [...raw.terms, ...raw.entities].map((x) => x.display);
    // Units after a number ("18 grams") belong to the quantity and are never candidates at all.
    for (const junk of ['Bellweather Roasters', 'Bellweather', 'F', '2024', 'Round', 'Rock'])
      expect(rawNames).toContain(junk);
    for (const unit of ['grams', 'inches']) expect(rawNames).not.toContain(unit);

    const terms = recommendedTerms(r);
    expect(terms.length).toBeGreaterThan(0);
    const names = Object.values(SITES).map((s) => s.name.toLowerCase());
    const nameWords = names.map((n) => n.split(' '));
    for (const term of terms) {
      const lower = term.toLowerCase();
      expect(term.match(/\p{L}/gu)?.length ?? 0, `"${term}" has fewer than 2 letters`).toBeGreaterThanOrEqual(2);
      expect(UNITS.has(lower), `"${term}" is a lone unit`).toBe(false);
      expect(names, `"${term}" is a site name`).not.toContain(lower);
      for (const b of BRAND_WORDS) expect(lower, `"${term}" names ${b}`).not.toContain(b.toLowerCase());
      // A capitalised run of a site name's words ("Kettlebrook Coffee", "Brew Lab") names the site.
      if (/^\p{Lu}/u.test(term)) {
        const words = lower.split(/\s+/);
        const inName = nameWords.some((nw) => nw.some((_, i) => words.every((x, k) => nw[i + k] === x)));
        expect(inName, `"${term}" is part of a site name`).toBe(false);
      }
    }
    // Nor does the model weigh them at all (any status).
    for (const e of r.entities) for (const b of BRAND_WORDS) expect(e.term).not.toContain(b);
  });

  it('keeps multi-word names whole: "Round Rock" is recommended, "Round" and "Rock" alone are not', () => {
    const r = main.result!;
    const terms = recommendedTerms(r).map((t) => t.toLowerCase());
    expect(terms).toContain('round rock');
    expect(r.recommendations.find((x) => x.term === 'Round Rock')).toMatchObject({ kind: 'add_term' });
    const everything = [...terms, ...r.entities.map((e) => e.term.toLowerCase())];
    expect(everything).not.toContain('round');
    expect(everything).not.toContain('rock');
  });

  it('never tells a normal page to use a keyword head term less', () => {
    const r = main.result!;
    expect(HEAD.words).toEqual(['descale', 'espresso', 'machine']);
    const heads = r.recommendations.filter((x) => x.kind === 'use_less' && x.term !== null && isHeadTerm(x.term));
    expect(heads, JSON.stringify(heads)).toEqual([]);
    for (const e of r.entities.filter((x) => isHeadTerm(x.term))) expect(e.status, e.term).not.toBe('over');
  });
});

describe('coherent advice', () => {
  it('recommendations are sorted by points, each worth points with a matching priority, and none contradicts another', () => {
    expectCoherent(main.result!);
  });

  it('on a page far longer than the ranking pages says trim and nowhere expand, and still agrees with itself', async () => {
    const keyword = `${TOPIC} 3`;
    w.serp.set(keyword, RANKING);
    const o = await run({ url: w.web.url('own2'), keyword });
    const r = o.result!;
    const length = r.scoreDetails.find((d) => d.id === 'length.words')!;
    expect(length.recommendation).toMatch(/^Trim/);
    expect(r.recommendations.some((x) => x.check === 'length.words')).toBe(true);
    expectCoherent(r);
  });

  it('view=summary carries 1-5 recommendations: the first items of result.recommendations', async () => {
    const summary = (await getOptimization(w.t, key, main.optimization_id, { view: 'summary' })).body.summary!;
    const all = main.result!.recommendations;
    expect(summary.recommendations.length).toBeGreaterThanOrEqual(1);
    expect(summary.recommendations.length).toBeLessThanOrEqual(5);
    expect(summary.recommendations).toEqual(all.slice(0, summary.recommendations.length));
    expect(summary.recommendations).toHaveLength(Math.min(5, all.length));
    expect(summary).toMatchObject({ confidence: main.result!.confidence, warnings: main.result!.warnings });
  });
});

describe('keyword checks and determinism', () => {
  it('reads the title and H1 by lemma: "Descaling Your Espresso Machine" earns full keyword points for "descale espresso machine"', async () => {
    const r = main.result!;
    const title = r.scoreDetails.find((d) => d.id === 'metadata.title_keyword')!;
    expect(title.evidence.title).toBe(PAGES.target.spec.title);
    expect(title.earned).toBe(title.possible);
    const h1 = r.scoreDetails.find((d) => d.id === 'headings.h1_keyword')!;
    expect(h1.evidence.h1).toBe('Descaling Your Espresso Machine');
    expect(h1.earned).toBe(h1.possible);
    // The same through score_content with only a title given.
    const scored = await call<ScoreResponse>(w.t, 'POST', `/optimizations/${main.optimization_id}/score`, {
      key,
      body: { content: 'Scale slows every shot.', format: 'text', title: 'Descaling Your Espresso Machine' },
    });
    expect(scored.status).toBe(200);
    const viaDraft = scored.body.scoreDetails.find((d) => d.id === 'metadata.title_keyword')!;
    expect(viaDraft.earned).toBe(viaDraft.possible);
    // A title with only one of the three head terms earns nothing.
    const partial = await call<ScoreResponse>(w.t, 'POST', `/optimizations/${main.optimization_id}/score`, {
      key,
      body: { content: 'Scale slows every shot.', format: 'text', title: 'Caring for your espresso' },
    });
    expect(partial.body.scoreDetails.find((d) => d.id === 'metadata.title_keyword')!.earned).toBe(0);
  });

  it('is deterministic: the same run twice (different idempotency keys) gives the same body but for ids, timestamps and duration', async () => {
    const again = await run({ url: w.web.url('target'), keyword: TOPIC }, idem('again'));
    expect(again.optimization_id).not.toBe(main.optimization_id);
    const volatile = new Set([
      'optimization_id',
      'created_at',
      'started_at',
      'completed_at',
      'fetchedAt',
      'completedAt',
      'duration',
    ]);
    const strip = (x: unknown): unknown =>
      Array.isArray(x)
        ? x.map(strip)
        : x && typeof x === 'object'
          ? Object.fromEntries(
              Object.entries(x)
                .filter(([k]) => !volatile.has(k))
                .map(([k, v]) => [k, strip(v)]),
            )
          : x;
    expect(strip(again)).toEqual(strip(main));
    expect(JSON.stringify(strip(again.result))).toBe(JSON.stringify(strip(main.result)));
  });
});
