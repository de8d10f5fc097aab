import { beforeAll, describe, expect, it } from 'vitest';
import { createAnalysis, type Analysis } from '../../../src/engine/analysis/analysis.ts';
import {
  scoreCompetitors,
  scorePage,
  textStats,
  type AnalyzedPage,
  type ScoreResult,
} from '../../../src/engine/analysis/score/index.ts';
import { CATEGORIES, CATEGORIES_V3, type Category } from '../../../src/engine/analysis/score/types.ts';
import {
  competitorSpec,
  KEYWORD,
  partialSpec,
  renderPage,
  SECTIONS,
  thinSpec,
  thoroughSpec,
  type PageSpec,
} from '../../optimize/helpers/pages.ts';

/**
 * Properties of the published scoring formula (src/engine/analysis/score, docs/scoring.md), on pages analysed the
 * way the Optimize pipeline analyses them: extract, then term analysis, then scorePage against the competitors.
 */

const ORIGIN = 'https://plumbing.example';
let analysis: Analysis;
let competitors: AnalyzedPage[];

function analyse(a: Analysis, path: string, spec: PageSpec, language = 'en-US'): AnalyzedPage {
  const url = `${ORIGIN}${path}`;
  return a.analyze(url, a.extract(renderPage(spec), url), language);
}

function competitorPages(a: Analysis, n = 10, language = 'en-US'): AnalyzedPage[] {
  return Array.from({ length: n }, (_, i) => analyse(a, `/c/${i + 1}`, competitorSpec(i, ORIGIN), language));
}

const score = (page: AnalyzedPage, comps: readonly AnalyzedPage[] = competitors, language = 'en-US') =>
  scorePage(analysis.analyzer, page, comps, KEYWORD, language);

/** The invariants every result must satisfy, whatever the page. */
function expectWellFormed(r: ScoreResult): void {
  expect(r.rankabilityScore).toBeGreaterThanOrEqual(0);
  expect(r.rankabilityScore).toBeLessThanOrEqual(100);
  expect(r.scoreDetails.reduce((a, d) => a + d.possible, 0)).toBeCloseTo(100, 6);
  const earned = r.scoreDetails.reduce((a, d) => a + d.earned, 0);
  expect(Math.abs(earned - r.rankabilityScore)).toBeLessThanOrEqual(0.1);
  // Each version has its categories: version 3 adds facts, prose, originality and the answer.
  const categories: readonly string[] = r.scoreDetails.some((d) => d.category === 'prose') ? CATEGORIES_V3 : CATEGORIES;
  const ids = new Set<string>();
  for (const d of r.scoreDetails) {
    expect(ids.has(d.id), `duplicate check ${d.id}`).toBe(false);
    ids.add(d.id);
    expect(categories).toContain(d.category);
    expect(d.earned, d.id).toBeGreaterThanOrEqual(0);
    expect(d.earned, d.id).toBeLessThanOrEqual(d.possible);
    expect(d.label.length).toBeGreaterThan(0);
    expect(typeof d.evidence).toBe('object');
    if (d.earned === d.possible) expect(d.recommendation, d.id).toBeNull();
    else {
      expect(typeof d.recommendation, d.id).toBe('string');
      expect(d.recommendation!.trim().length, d.id).toBeGreaterThan(0);
    }
  }
  for (const cat of categories as readonly Category[]) {
    const rows = r.scoreDetails.filter((d) => d.category === cat);
    expect(rows.length, cat).toBeGreaterThan(0);
    const pct = (rows.reduce((a, d) => a + d.earned, 0) / rows.reduce((a, d) => a + d.possible, 0)) * 100;
    expect(Math.abs(r.categoryScores[cat]! - pct), cat).toBeLessThanOrEqual(0.05);
  }
  expect(Object.keys(r.categoryScores).sort()).toEqual([...categories].sort());
  for (const e of r.entities) {
    expect(['missing', 'under', 'ok', 'over']).toContain(e.status);
    expect(e.importance).toBeGreaterThanOrEqual(0);
    expect(e.importance).toBeLessThanOrEqual(1);
    expect(e.sourceCount).toBeGreaterThan(0);
    expect(e.competitorRange.p25).toBeLessThanOrEqual(e.competitorRange.median);
    expect(e.competitorRange.median).toBeLessThanOrEqual(e.competitorRange.p75);
    if (e.status === 'missing') expect(e.sourceUses).toBe(0);
    else expect(e.sourceUses).toBeGreaterThan(0);
  }
}

beforeAll(() => {
  analysis = createAnalysis();
  competitors = competitorPages(analysis);
});

describe('scorePage', () => {
  it('is deterministic: the same inputs give byte-identical JSON, also from a fresh analysis of the same HTML', () => {
    const page = analyse(analysis, '/target/partial', partialSpec(ORIGIN));
    const first = JSON.stringify(score(page));
    expect(JSON.stringify(score(page))).toBe(first);
    const fresh = createAnalysis();
    const again = scorePage(
      fresh.analyzer,
      analyse(fresh, '/target/partial', partialSpec(ORIGIN)),
      competitorPages(fresh),
      KEYWORD,
      'en-US',
    );
    expect(JSON.stringify(again)).toBe(first);
  });

  it('does not depend on the order the competitors come in', () => {
    const page = analyse(analysis, '/target/partial', partialSpec(ORIGIN));
    const shuffled = [
      competitors[3]!,
      competitors[9]!,
      competitors[0]!,
      competitors[6]!,
      competitors[1]!,
      competitors[8]!,
      competitors[2]!,
      competitors[7]!,
      competitors[4]!,
      competitors[5]!,
    ];
    expect(JSON.stringify(score(page, shuffled))).toBe(JSON.stringify(score(page)));
  });

  it('scores a thorough page clearly higher (>= 15 points) than a thin page on the same keyword and competitors', () => {
    const thorough = score(analyse(analysis, '/target/thorough', thoroughSpec(ORIGIN)));
    const thin = score(analyse(analysis, '/target/thin', thinSpec()));
    expectWellFormed(thorough);
    expectWellFormed(thin);
    expect(thorough.rankabilityScore - thin.rankabilityScore).toBeGreaterThanOrEqual(15);
    expect(thorough.categoryScores.coverage!).toBeGreaterThan(thin.categoryScores.coverage!);
    expect(thorough.categoryScores.length!).toBeGreaterThan(thin.categoryScores.length!);
    expect(thin.sourceWordCount).toBeLessThan(thorough.sourceWordCount);
    // The thin page is told what it lacks, in terms of what the ranking pages use.
    const terms = thin.scoreDetails.find((d) => d.id === 'coverage.terms')!;
    expect(terms.recommendation).toMatch(/lacks/);
    expect(thin.entities.filter((e) => e.kind === 'term' && e.status === 'missing').length).toBeGreaterThan(
      thorough.entities.filter((e) => e.kind === 'term' && e.status === 'missing').length,
    );
  });

  it('raises the score when the missing sections are added', () => {
    const partialPage = analyse(analysis, '/target/partial', partialSpec(ORIGIN));
    const partial = score(partialPage);
    const missing = SECTIONS.filter((s) => !partialSpec(ORIGIN).sections.includes(s));
    expect(missing.length).toBeGreaterThan(0);
    const completed = score(
      analyse(analysis, '/target/partial', {
        ...partialSpec(ORIGIN),
        sections: [...partialSpec(ORIGIN).sections, ...missing],
      }),
    );
    expectWellFormed(partial);
    expectWellFormed(completed);
    expect(completed.rankabilityScore).toBeGreaterThan(partial.rankabilityScore);
    expect(completed.categoryScores.coverage!).toBeGreaterThan(partial.categoryScores.coverage!);
    const missingTerms = (r: ScoreResult) => r.entities.filter((e) => e.status === 'missing').length;
    expect(missingTerms(completed)).toBeLessThanOrEqual(missingTerms(partial));
  });

  it('keeps every check within its points, the checks summing to the score and recommendations null exactly when nothing is missing', () => {
    for (const spec of [thoroughSpec(ORIGIN), partialSpec(ORIGIN), thinSpec()])
      expectWellFormed(score(analyse(analysis, '/t', spec)));
    // Also with very few competitors, the edge of the term statistics (a term needs fewer pages to count).
    expectWellFormed(score(analyse(analysis, '/t', partialSpec(ORIGIN)), competitors.slice(0, 1)));
    expectWellFormed(score(analyse(analysis, '/t', thinSpec()), competitors.slice(0, 2)));
  });

  it('counts only the competitors it is given: the statistics describe exactly that set', () => {
    const page = analyse(analysis, '/target/partial', partialSpec(ORIGIN));
    for (const n of [1, 3, 10]) {
      const r = score(page, competitors.slice(0, n));
      for (const e of r.entities) expect(e.sourceCount).toBeLessThanOrEqual(n);
      const length = r.scoreDetails.find((d) => d.id === 'length.words')!;
      const counts = competitors
        .slice(0, n)
        .map((c) => c.extraction.wordCount)
        .sort((a, b) => a - b);
      expect(length.evidence.competitor_p25).toBeGreaterThanOrEqual(counts[0]!);
      expect(length.evidence.competitor_p75).toBeLessThanOrEqual(counts[n - 1]!);
    }
  });

  it('uses the English reading-ease check for English language tags (en, en-US, en-GB), and word length for others', () => {
    const page = analyse(analysis, '/target/thorough', thoroughSpec(ORIGIN));
    for (const language of ['en', 'en-US', 'en-GB', 'EN-us']) {
      const ids = scorePage(analysis.analyzer, page, competitors, KEYWORD, language).scoreDetails.map((d) => d.id);
      expect(ids, language).toContain('readability.reading_ease');
      expect(ids, language).not.toContain('readability.word_length');
    }
    const german = scorePage(analysis.analyzer, page, competitors, KEYWORD, 'de-DE').scoreDetails.map((d) => d.id);
    expect(german).toContain('readability.word_length');
    expect(textStats('The cat sat. It was happy.', 'en-US').fleschReadingEase).not.toBeNull();
    expect(textStats('Die Katze sass.', 'de').fleschReadingEase).toBeNull();
  });
});

describe('scoreCompetitors', () => {
  it('scores each competitor against the others, deterministically, one score per competitor', () => {
    const few = competitors.slice(0, 4);
    const a = scoreCompetitors(analysis.analyzer, few, KEYWORD, 'en-US');
    expect(a).toHaveLength(4);
    for (const s of a) {
      expect(s).toBeGreaterThan(0);
      expect(s).toBeLessThanOrEqual(100);
    }
    expect(scoreCompetitors(analysis.analyzer, few, KEYWORD, 'en-US')).toEqual(a);
    expect(a[2]).toBe(score(few[2]!, [few[0]!, few[1]!, few[3]!]).rankabilityScore);
  });
});
