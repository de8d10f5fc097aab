/**
 * Quality ratchet for main-content extraction on a fixed, deterministic subset of the shared datasets (the full
 * run with the Readability comparison is `npm run bench -- extraction`): the first 90 Zyte pages by id, and the
 * first 20 pages of each WCXB page type by id among those under 600,000 characters. The subset keeps this test
 * near 15 s of CPU. Thresholds sit just below the figures measured when they were set; raise them when the
 * extractor improves, never lower them to make a change pass.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasetsRoot, loadWcxb, loadZyte } from '../../../bench/lib/extraction-datasets.ts';
import { wcxbWordF1, zyteMetrics, zyteShingleMatching } from '../../../bench/lib/extraction-scorers.ts';
import { extract } from '../../../src/engine/analysis/extract/index.ts';

const ZYTE_PAGES = 90;
const WCXB_PER_TYPE = 20;
const WCXB_MAX_CHARS = 600_000;

// Measured on the subset above; each threshold is the measured figure minus about 0.005 (0.01 per page type).
// Measured with extraction profiled by page type: Zyte 0.9561 (0.9580 before: a few news pages classified as other
// types lose Readability's retries); WCXB 0.8430 (article 0.9517, service 0.8891, listing 0.8237, forum 0.8395,
// product 0.7065, documentation 0.9723, collection 0.7118).
// With page-type narrowing (product description sections, listing grids, repeated link-only controls, forum quotes
// and post meta lines, comments under Q&A posts, service pages keeping their sections): Zyte 0.9559; WCXB 0.8483
// (article 0.9517, service 0.8958, listing 0.8342, forum 0.8570, product 0.7106, documentation 0.9723, collection
// 0.7094: one shop page loses a repeated swatch link, the floor still holds).
const ZYTE_F1 = 0.953;
const WCXB_F1 = 0.843;
const WCXB_TYPE_F1: Record<string, number> = {
  article: 0.941,
  service: 0.885,
  listing: 0.824,
  forum: 0.847,
  product: 0.7,
  documentation: 0.965,
  collection: 0.701,
};

const root = datasetsRoot();
const present = existsSync(join(root, 'zyte-aeb')) && existsSync(join(root, 'wcxb-dev'));

describe.skipIf(!present)('extraction quality ratchet', () => {
  it('keeps Zyte F1 (shingle scorer) at or above the ratchet', () => {
    const pages = loadZyte(join(root, 'zyte-aeb'), ZYTE_PAGES);
    expect(pages).toHaveLength(ZYTE_PAGES);
    const rows = pages.map((p) => zyteShingleMatching(p.articleBody, extract(p.html, { url: p.url }).mainText));
    const f1 = zyteMetrics(rows).f1;
    process.stderr.write(`zyte subset F1 ${f1.toFixed(4)} on ${pages.length} pages\n`);
    expect(f1).toBeGreaterThanOrEqual(ZYTE_F1);
  }, 120_000);

  it('keeps WCXB F1 (word scorer) overall and per page type at or above the ratchet', () => {
    const pages = loadWcxb(join(root, 'wcxb-dev'), WCXB_PER_TYPE, WCXB_MAX_CHARS);
    const byType = new Map<string, number[]>();
    for (const p of pages) {
      const f1 = wcxbWordF1(extract(p.html, { url: p.url }).mainText, p.mainContent)[2];
      byType.set(p.pageType, [...(byType.get(p.pageType) ?? []), f1]);
    }
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const all = mean([...byType.values()].flat());
    const summary = [...byType].map(([t, xs]) => `${t} ${mean(xs).toFixed(4)}/${xs.length}`).join(', ');
    process.stderr.write(`wcxb subset F1 ${all.toFixed(4)} on ${pages.length} pages (${summary})\n`);
    expect([...byType.keys()].sort()).toEqual(Object.keys(WCXB_TYPE_F1).sort());
    expect(all).toBeGreaterThanOrEqual(WCXB_F1);
    for (const [type, xs] of byType) expect(mean(xs), type).toBeGreaterThanOrEqual(WCXB_TYPE_F1[type] ?? 0);
  }, 120_000);
});
