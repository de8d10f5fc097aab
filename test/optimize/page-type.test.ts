import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeExchange, uuidV5RecordId } from '../../src/providers/web/archive/writer.ts';
import type { TestApp } from '../helpers/app.ts';
import { startArchiveApp } from './helpers/calibration.ts';
import { structured } from '../helpers/mcp.ts';
import {
  getOptimization,
  idem,
  settle,
  started,
  tool,
  type Optimization,
  type OptimizationResult,
  type Recommendation,
} from './helpers/harness.ts';

/**
 * Page types in real Optimize runs, offline: an archive written at run time from test/fixtures/page-type-intent/
 * (pages.json maps each page to its URL) and searched by the archive search. The keyword is a roundup query, "best
 * laptops under $500"; the scored page is a shop's product page (VoltMart's Novabook 14). What ranks: five editorial
 * roundups (articles), a shop category page, a forum thread, another shop's product page, a ranking list, and
 * VoltMart's own buying guide (an article on the scored page's site).
 */

const DIR = fileURLToPath(new URL('../fixtures/page-type-intent/', import.meta.url));
const SPEC = JSON.parse(readFileSync(join(DIR, 'pages.json'), 'utf8')) as {
  keyword: string;
  target: string;
  pages: Record<string, string>;
};
const KEYWORD = SPEC.keyword;
const url = (file: string) => SPEC.pages[`${file}.html`]!;
const TARGET = url('voltmart-novabook-14');
const OWN_GUIDE = url('voltmart-blog-roundup');
const ROUNDUPS = [
  'gadgetlab-roundup',
  'pcverdict-roundup',
  'reviewnest-roundup',
  'thriftytech-roundup',
  'studentdesk-roundup',
];
const OTHER_KINDS: Record<string, string> = {
  [url('bytebarn-collection')]: 'collection',
  [url('campuschat-forum')]: 'forum',
  [url('pixelpeak-zentra-air-15')]: 'product',
  [url('laptoprank-listing')]: 'listing',
};

interface Intent {
  page_type: string;
  pages: number;
  of: number;
  dominant: boolean;
}
type Rec = Omit<Recommendation, 'kind'> & { kind: string };
type Excluded = OptimizationResult['excluded_competitors'][number] & { page_type?: string };
type TypedResult = Omit<OptimizationResult, 'recommendations' | 'excluded_competitors'> & {
  page_type?: string;
  page_type_confidence?: number;
  search_intent?: Intent;
  recommendations: Rec[];
  excluded_competitors: Excluded[];
};
type EvidenceCompetitor = {
  url: string;
  included: boolean;
  excludedAs: string | null;
  page_type?: string;
  page_type_confidence?: number;
};
type TypedEvidence = {
  page: { page_type?: string; page_type_confidence?: number };
  competitors: EvidenceCompetitor[];
  search_intent?: Intent;
};

/** Every fixture page as one gzipped WARC, as a web archive crawl would have stored it. */
async function writeArchive(file: string): Promise<void> {
  const recordId = uuidV5RecordId('agent-api-page-type-intent');
  const parts: Uint8Array[] = [];
  for (const [name, pageUrl] of Object.entries(SPEC.pages))
    parts.push(
      await serializeExchange(
        {
          url: pageUrl,
          date: '2025-04-01T09:00:00Z',
          status: 200,
          statusText: 'OK',
          headers: [['Content-Type', 'text/html; charset=utf-8']],
          payload: Buffer.from(readFileSync(join(DIR, name), 'utf8'), 'utf8'),
        },
        { gzip: true, recordId },
      ),
    );
  writeFileSync(file, Buffer.concat(parts));
}

let dir: string;
let t: TestApp;
let key: string;
/** The run on the search results: the product page for the roundup keyword. */
let main: Optimization;

async function run(body: Record<string, unknown>): Promise<Optimization> {
  const o = await started(t, key, { keyword: KEYWORD, ...body }, idem('page-type'));
  await settle(t, o.optimization_id);
  const full = (await getOptimization(t, key, o.optimization_id, { view: 'full' })).body;
  expect(full.status, full.error ?? '').toBe('complete');
  return full;
}

const resultOf = (o: Optimization) => o.result as unknown as TypedResult;
const summaryRecs = (o: Optimization) => o.summary!.recommendations as Rec[];
const evidenceOf = (o: Optimization) => o.evidence as unknown as TypedEvidence;
const mismatches = (r: TypedResult) => r.excluded_competitors.filter((e) => e.reason === 'page_type_mismatch');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'page-type-intent-'));
  const warc = join(dir, 'page-type-intent.warc.gz');
  await writeArchive(warc);
  t = await startArchiveApp(warc, dir);
  void t.engine.analysis.analyzer;
  key = (await t.tenant('agency')).key;
  main = await run({ url: TARGET });
}, 120_000);

afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a product page scored for a roundup keyword whose ranking pages are articles', () => {
  it('reads the search intent: the roundups are the dominant type', () => {
    const r = resultOf(main);
    expect(r.page_type).toBe('product');
    expect(r.page_type_confidence).toBeGreaterThanOrEqual(0.5);
    expect(r.search_intent).toMatchObject({ page_type: 'article', pages: ROUNDUPS.length, dominant: true });
    expect(r.search_intent!.of).toBeGreaterThan(ROUNDUPS.length);
    expect(evidenceOf(main).search_intent).toEqual(r.search_intent);
  });

  it('puts the page_type advice first: which type ranks, the true count, what that means, and the own-site guide', () => {
    const r = resultOf(main);
    const first = r.recommendations[0]!;
    expect(first).toMatchObject({
      id: 'page_type',
      check: 'page_type',
      category: 'structure',
      kind: 'page_type',
      term: null,
      priority: 'high',
    });
    expect(first.points).toBe(Math.max(2, ...r.recommendations.slice(1).map((x) => x.points)));
    for (let i = 1; i < r.recommendations.length; i++)
      expect(r.recommendations[i - 1]!.points).toBeGreaterThanOrEqual(r.recommendations[i]!.points);
    const { pages, of } = r.search_intent!;
    expect(first.recommendation).toContain(`${pages} of the ${of} relevant ranking pages are articles`);
    expect(first.recommendation).toContain('this page is a product page');
    expect(first.recommendation).toContain('a single product page rarely ranks');
    expect(first.recommendation).toContain(`Your site already has an article in these results: ${OWN_GUIDE}`);
    expect(r.recommendations.filter((x) => x.kind === 'page_type')).toHaveLength(1);
    expect(summaryRecs(main)[0]).toEqual(first);
  });

  it('excludes the relevant pages of another type as page_type_mismatch and compares only the roundups', () => {
    const r = resultOf(main);
    expect(r.competitors.length).toBe(ROUNDUPS.length);
    expect(r.competitors.map((c) => c.url).sort()).toEqual(ROUNDUPS.map(url).sort());
    for (const c of r.competitors) {
      expect(c).toMatchObject({ page_type: 'article' });
      expect((c as { page_type_confidence?: number }).page_type_confidence).toBeGreaterThan(0.5);
    }
    const other = mismatches(r);
    // Every other kind of page the search found is left out, with its type, in words.
    expect(other.length).toBe(r.search_intent!.of - ROUNDUPS.length);
    expect(other.length).toBeGreaterThanOrEqual(3);
    for (const e of other) {
      expect(e.page_type).toBe(OTHER_KINDS[e.url]);
      expect(e.detail).toMatch(new RegExp(`; ${ROUNDUPS.length} of the \\d+ relevant ranking pages are articles$`));
    }
    expect(other.find((e) => e.url === url('pixelpeak-zentra-air-15'))?.detail).toMatch(/^a product page; /);
    expect(r.confidence).toBe('normal');
  });

  it('records page types in the evidence: the page, every fetched candidate, and the own-site guide fetched for its type', () => {
    const e = evidenceOf(main);
    expect(e.page).toMatchObject({ page_type: 'product' });
    for (const c of e.competitors) {
      expect(c.page_type, c.url).toBeTruthy();
      expect(c.page_type_confidence).toBeGreaterThan(0);
      expect(c.page_type_confidence).toBeLessThanOrEqual(1);
      expect(Math.round(c.page_type_confidence! * 1000) / 1000).toBe(c.page_type_confidence);
    }
    const guide = e.competitors.find((c) => c.url === OWN_GUIDE)!;
    expect(guide).toMatchObject({ included: false, excludedAs: 'same_site', page_type: 'article' });
    const sameSite = resultOf(main).excluded_competitors.find((x) => x.url === OWN_GUIDE);
    expect(sameSite).toMatchObject({ reason: 'same_site', page_type: 'article' });
    for (const c of e.competitors.filter((x) => x.excludedAs === 'page_type_mismatch'))
      expect(c.page_type).toBe(OTHER_KINDS[c.url]);
  });

  it('answers the same over MCP (get_optimization, view full)', async () => {
    const m = await tool(t, key, 'get_optimization', { optimization_id: main.optimization_id, view: 'full' });
    expect(m.isError).toBeFalsy();
    const body = structured<Optimization>(m);
    const r = body.result as unknown as TypedResult;
    expect(r.page_type).toBe('product');
    expect(r.search_intent).toEqual(resultOf(main).search_intent);
    expect(r.competitors).toEqual(resultOf(main).competitors);
    expect(r.excluded_competitors).toEqual(resultOf(main).excluded_competitors);
    expect(r.recommendations[0]).toEqual(resultOf(main).recommendations[0]);
    expect(summaryRecs(body)[0]!.kind).toBe('page_type');
  });

  it('is deterministic: the same run again gives the same result', async () => {
    const again = await run({ url: TARGET });
    expect(JSON.stringify(resultOf(again))).toBe(JSON.stringify(resultOf(main)));
  });
});

describe('when the dominant type is too thin to act on', () => {
  it('with 2 roundups among 4 pages: nothing is excluded for its type and no page_type advice is given', async () => {
    const given = ['gadgetlab-roundup', 'pcverdict-roundup', 'bytebarn-collection', 'campuschat-forum'].map(url);
    const r = resultOf(await run({ url: TARGET, competitor_urls: given }));
    expect(r.search_intent).toEqual({ page_type: 'article', pages: 2, of: 4, dominant: false });
    expect(mismatches(r)).toEqual([]);
    expect(r.competitors.map((c) => c.url)).toEqual(given);
    expect(r.competitors.map((c) => c.page_type)).toEqual(['article', 'article', 'collection', 'forum']);
    expect(r.recommendations.some((x) => x.kind === 'page_type')).toBe(false);
  });

  it('with 3 roundups among 7 mixed pages (fewer than half): nothing is excluded for its type', async () => {
    const given = [
      'gadgetlab-roundup',
      'bytebarn-collection',
      'pcverdict-roundup',
      'campuschat-forum',
      'reviewnest-roundup',
      'pixelpeak-zentra-air-15',
      'laptoprank-listing',
    ].map(url);
    const r = resultOf(await run({ url: TARGET, competitor_urls: given }));
    expect(r.search_intent).toEqual({ page_type: 'article', pages: 3, of: 7, dominant: false });
    expect(mismatches(r)).toEqual([]);
    expect(r.competitorCount).toBe(7);
    expect(r.recommendations.some((x) => x.kind === 'page_type')).toBe(false);
  });
});

describe('when the dominant type has 3 pages', () => {
  const given = [
    'gadgetlab-roundup',
    'bytebarn-collection',
    'pcverdict-roundup',
    'campuschat-forum',
    'reviewnest-roundup',
  ];

  it('excludes the other types as page_type_mismatch, keeps the 3, and advises the product page (no own-site page to name)', async () => {
    const r = resultOf(await run({ url: TARGET, competitor_urls: given.map(url) }));
    expect(r.search_intent).toEqual({ page_type: 'article', pages: 3, of: 5, dominant: true });
    expect(mismatches(r)).toEqual([
      {
        url: url('bytebarn-collection'),
        position: 2,
        reason: 'page_type_mismatch',
        detail: 'a shop category page; 3 of the 5 relevant ranking pages are articles',
        page_type: 'collection',
      },
      {
        url: url('campuschat-forum'),
        position: 4,
        reason: 'page_type_mismatch',
        detail: 'a forum thread; 3 of the 5 relevant ranking pages are articles',
        page_type: 'forum',
      },
    ]);
    expect(r.competitors.map((c) => c.url)).toEqual(
      ['gadgetlab-roundup', 'pcverdict-roundup', 'reviewnest-roundup'].map(url),
    );
    expect(r.confidence).toBe('normal');
    const first = r.recommendations[0]!;
    expect(first.kind).toBe('page_type');
    expect(first.recommendation).toContain('3 of the 5 relevant ranking pages are articles');
    expect(first.recommendation).not.toContain('Your site');
  });

  it('gives a page of the dominant type no page_type advice; its comparison still leaves the other types out', async () => {
    const r = resultOf(await run({ url: OWN_GUIDE, competitor_urls: given.map(url) }));
    expect(r.page_type).toBe('article');
    expect(r.recommendations.some((x) => x.kind === 'page_type')).toBe(false);
    expect(mismatches(r).map((e) => e.url)).toEqual([url('bytebarn-collection'), url('campuschat-forum')]);
  });

  it('keeps every candidate the caller forced, and still says which type ranks', async () => {
    const r = resultOf(await run({ url: TARGET, competitor_urls: given.map(url), force_competitors: true }));
    expect(mismatches(r)).toEqual([]);
    expect(r.competitorCount).toBe(5);
    expect(r.search_intent).toMatchObject({ page_type: 'article', pages: 3, dominant: true });
    expect(r.recommendations[0]!.kind).toBe('page_type');
  });
});
