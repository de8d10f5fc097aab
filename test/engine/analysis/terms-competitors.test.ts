import { describe, expect, it } from 'vitest';
import {
  computeCompetitorStats,
  createTermAnalyzer,
  measureTermsThroughput,
  percentile,
  usageRange,
  usageStatus,
} from '../../../src/engine/analysis/terms/index.ts';
import type { DocEntity, DocTerm, DocumentTerms } from '../../../src/engine/analysis/terms/index.ts';

type TermSpec = [key: string, count: number, headingCount?: number, titleCount?: number];

function doc(wordCount: number, terms: TermSpec[], entities: Partial<DocEntity>[] = []): DocumentTerms {
  const docTerms: DocTerm[] = terms
    .map(([key, count, headingCount = 0, titleCount = 0]) => ({
      key,
      display: key,
      n: key.split(' ').length as 1 | 2 | 3,
      count,
      headingCount,
      titleCount,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  const docEntities: DocEntity[] = entities.map((e) => ({
    key: e.key ?? '',
    display: e.display ?? e.key ?? '',
    type: e.type ?? 'other',
    kind: e.kind ?? 'name',
    count: e.count ?? 1,
    headingCount: e.headingCount ?? 0,
    titleCount: e.titleCount ?? 0,
  }));
  return { language: 'en', method: 'wink', wordCount, terms: docTerms, entities: docEntities };
}

// Hand-computed set: 4 pages; see the expectations for the arithmetic.
const A = doc(
  1000,
  [
    ['espresso machine', 4, 1],
    ['grinder', 2],
    ['milk frother', 1],
  ],
  [{ key: 'breville', type: 'organization', count: 2 }],
);
const B = doc(
  500,
  [
    ['espresso machine', 2, 0, 1],
    ['grinder', 1],
  ],
  [{ key: 'breville', type: 'organization', count: 1 }],
);
const C = doc(
  2000,
  [
    ['espresso machine', 10],
    ['milk frother', 3, 1],
  ],
  [{ key: '2024', kind: 'date', count: 1 }],
);
const D = doc(
  1000,
  [
    ['espresso machine', 6],
    ['tamper', 1],
    ['grinder', 0, 1],
  ],
  [{ key: 'breville', type: 'other', count: 1 }],
);

describe('percentile', () => {
  it('interpolates linearly like numpy', () => {
    expect(percentile([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 0.75)).toBe(3.25);
    expect(percentile([1, 10], 0.25)).toBe(3.25);
    expect(percentile([7], 0.75)).toBe(7);
    expect(percentile([], 0.5)).toBe(0);
    expect(usageRange([10, 2, 6, 4])).toEqual({ p25: 3.5, median: 5, p75: 7 });
    expect(usageRange([1, 2, 4])).toEqual({ p25: 1.5, median: 2, p75: 3 });
    expect(usageRange([1, 1, 2])).toEqual({ p25: 1, median: 1, p75: 1.5 });
  });
});

describe('competitor stats', () => {
  it('computes document frequency, ranges, heading pages and importance exactly', () => {
    const stats = computeCompetitorStats([A, B, C, D]);
    expect(stats.pageCount).toBe(4);
    expect(stats.minPages).toBe(2);
    expect(stats.wordCount).toEqual({ p25: 875, median: 1000, p75: 1250 });
    expect(stats.terms.map((t) => t.key)).toEqual(['espresso machine', 'milk frother', 'grinder']);

    // counts [2, 4, 6, 10]; per 1,000 words [4, 4, 5, 6]; heading in A, title in B.
    // importance = 1 * 1 * (0.65 * 1 + 0.2 * 0.5 + 0.15 * min(1, 5 / 5)) = 0.9
    expect(stats.terms[0]).toEqual({
      key: 'espresso machine',
      display: 'espresso machine',
      n: 2,
      pages: 4,
      share: 1,
      count: { p25: 3.5, median: 5, p75: 7 },
      per1000: { p25: 4, median: 4.5, p75: 5.25 },
      headingPages: 2,
      importance: 0.9,
    });
    // counts [1, 3]; per 1,000 [1, 1.5]; heading in C. 0.65 * 0.5 + 0.2 * 0.25 + 0.15 * 0.4 = 0.435
    expect(stats.terms[1]).toMatchObject({
      pages: 2,
      share: 0.5,
      count: { p25: 1.5, median: 2, p75: 2.5 },
      per1000: { p25: 1.125, median: 1.25, p75: 1.375 },
      headingPages: 1,
      importance: 0.435,
    });
    // D uses it only in a heading: a heading page, not a using page. 0.85 * (0.325 + 0.05 + 0.15 * 0.3) = 0.357
    expect(stats.terms[2]).toMatchObject({
      pages: 2,
      count: { p25: 1.25, median: 1.5, p75: 1.75 },
      per1000: { p25: 2, median: 2, p75: 2 },
      headingPages: 1,
      importance: 0.357,
    });
    expect(stats.source).toBeUndefined();
    expect('status' in (stats.terms[0] ?? {})).toBe(false);
  });

  it('keeps terms used by a single page when there are fewer than three pages', () => {
    const stats = computeCompetitorStats([A, D]);
    expect(stats.minPages).toBe(1);
    expect(stats.terms.map((t) => t.key)).toContain('tamper');
    expect(computeCompetitorStats([]).terms).toEqual([]);
    expect(computeCompetitorStats([A, B, C, D], { maxTerms: 1 }).terms.map((t) => t.key)).toEqual(['espresso machine']);
  });

  it('compares a source page: missing, under, ok and over', () => {
    const source = doc(1000, [
      ['espresso machine', 3],
      ['milk frother', 8],
    ]);
    const stats = computeCompetitorStats([A, B, C, D], { source });
    const byKey = new Map(stats.terms.map((t) => [t.key, t]));
    // 3 < p25 count 3.5 (and 3 per 1,000 < 4).
    expect(byKey.get('espresso machine')).toMatchObject({ sourceCount: 3, sourcePer1000: 3, status: 'under' });
    expect(byKey.get('grinder')).toMatchObject({ sourceCount: 0, sourceHeadingCount: 0, status: 'missing' });
    // 8 per 1,000 > 1.5 * 1.375 and 8 > 2.5 + 2.
    expect(byKey.get('milk frother')).toMatchObject({ sourceCount: 8, status: 'over' });
    expect(stats.source).toEqual({
      wordCount: 1000,
      terms: { missing: 1, under: 1, ok: 0, over: 1 },
      entities: { missing: 1, under: 0, ok: 0, over: 0 },
    });

    const better = doc(1000, [
      ['espresso machine', 5],
      ['milk frother', 4],
      ['grinder', 0, 0, 1],
    ]);
    const byKey2 = new Map(computeCompetitorStats([A, B, C, D], { source: better }).terms.map((t) => [t.key, t]));
    expect(byKey2.get('espresso machine')?.status).toBe('ok');
    // Density is far above p75 but 4 is not more than p75 + 2 = 4.5: one extra mention is not stuffing.
    expect(byKey2.get('milk frother')?.status).toBe('ok');
    // Only in the title: present, but below the range.
    expect(byKey2.get('grinder')).toMatchObject({ sourceCount: 0, sourceHeadingCount: 1, status: 'under' });
  });

  it('applies the status rules at their boundaries', () => {
    const count = { p25: 2, median: 3, p75: 4 };
    const per1000 = { p25: 2, median: 3, p75: 4 };
    expect(usageStatus({ count: 0, per1000: 0, headingCount: 0 }, count, per1000)).toBe('missing');
    expect(usageStatus({ count: 2, per1000: 2, headingCount: 0 }, count, per1000)).toBe('ok');
    expect(usageStatus({ count: 2, per1000: 1.9, headingCount: 0 }, count, per1000)).toBe('under');
    expect(usageStatus({ count: 6, per1000: 6, headingCount: 0 }, count, per1000)).toBe('ok');
    expect(usageStatus({ count: 7, per1000: 6.1, headingCount: 0 }, count, per1000)).toBe('over');
    expect(usageStatus({ count: 7, per1000: 6, headingCount: 0 }, count, per1000)).toBe('ok');
  });

  it('aggregates entities with a voted type and kind', () => {
    const stats = computeCompetitorStats([A, B, C, D]);
    expect(stats.entities).toHaveLength(1);
    // mentions [2, 1, 1]; per 1,000 [2, 2, 1]; 0.7 * 0.75 + 0 + 0.1 * 0.2 = 0.545
    expect(stats.entities[0]).toEqual({
      key: 'breville',
      display: 'breville',
      type: 'organization',
      kind: 'name',
      pages: 3,
      share: 0.75,
      count: { p25: 1, median: 1, p75: 1.5 },
      per1000: { p25: 1.5, median: 2, p75: 2 },
      headingPages: 0,
      importance: 0.545,
    });
  });

  it('does not depend on the order of the pages', () => {
    const source = doc(800, [['grinder', 1]]);
    const one = JSON.stringify(computeCompetitorStats([A, B, C, D], { source }));
    expect(JSON.stringify(computeCompetitorStats([D, C, B, A], { source }))).toBe(one);
    expect(JSON.stringify(computeCompetitorStats([B, D, A, C], { source }))).toBe(one);
  });
});

describe('competitor stats from analysed pages', () => {
  const analyzer = createTermAnalyzer();
  const pages = [
    'The best espresso machines make rich coffee. Breville espresso machines heat fast, and a good grinder helps. ' +
      'Clean the milk frother daily.',
    'We tested espresso machines from Breville and De’Longhi. A burr grinder matters more than the espresso machine. ' +
      'Descale your espresso machine monthly.',
    'Espresso machines need fresh beans. Pair an espresso machine with a burr grinder; Breville makes both. ' +
      'Steam wands and milk frothers vary.',
  ];

  it('ranks what the pages agree on and flags what the source lacks', () => {
    const docs = pages.map((text) => analyzer.analyzeDocument({ text, headings: ['Best Espresso Machines'] }));
    const source = analyzer.analyzeDocument({ text: 'Our espresso machine review covers three espresso machines.' });
    const stats = analyzer.analyzeCompetitors(docs, { source });
    const top = stats.terms[0];
    expect(top).toMatchObject({ key: 'espresso machine', pages: 3, share: 1, headingPages: 3, status: 'ok' });
    expect(stats.terms.find((t) => t.key === 'burr grinder')).toMatchObject({ pages: 2, status: 'missing' });
    expect(stats.terms.find((t) => t.key === 'milk frother')?.pages).toBe(2);
    expect(stats.entities.find((e) => e.key === 'breville')).toMatchObject({ pages: 3, status: 'missing' });
    for (const t of stats.terms) expect(t.importance).toBeGreaterThanOrEqual(0);
    for (const t of stats.terms) expect(t.importance).toBeLessThanOrEqual(1);
    const again = analyzer.analyzeCompetitors(
      pages.map((text) => analyzer.analyzeDocument({ text, headings: ['Best Espresso Machines'] })),
      { source },
    );
    expect(JSON.stringify(again)).toBe(JSON.stringify(stats));
  });

  it('reports throughput for a bench', () => {
    const result = measureTermsThroughput(pages, analyzer);
    expect(result.pagesPerSecond).toBeGreaterThan(0);
    expect(result.msPerPage).toBeGreaterThan(0);
  });
});
