import type { TermAnalyzer } from '../terms/types.ts';
import { runChecks, TOP_ENTITIES, TOP_TERMS } from './checks.ts';
import { CATEGORIES, type AnalyzedPage, type Category, type EntityRow, type ScoreResult } from './types.ts';

export type * from './types.ts';
export { textStats } from './readability.ts';

/** The formula's version: saved with every result so a stored score can be traced to the rules that made it. */
export const SCORING_VERSION = '1';

/**
 * Scores `source` against `competitors` for `keyword` with the published formula (docs/scoring.md): a pure,
 * deterministic function of its inputs.
 */
export function scorePage(
  analyzer: TermAnalyzer,
  source: AnalyzedPage,
  competitors: readonly AnalyzedPage[],
  keyword: string,
  language: string,
): ScoreResult {
  const stats = analyzer.analyzeCompetitors(
    competitors.map((c) => c.terms),
    { source: source.terms },
  );
  const details = runChecks({ source, competitors, stats, keyword, language, analyzer });
  const categoryScores = {} as Record<Category, number>;
  for (const cat of CATEGORIES) {
    const rows = details.filter((d) => d.category === cat);
    const possible = rows.reduce((a, d) => a + d.possible, 0);
    categoryScores[cat] = possible ? Math.round((rows.reduce((a, d) => a + d.earned, 0) / possible) * 1000) / 10 : 100;
  }
  const total = details.reduce((a, d) => a + d.earned, 0);
  const entities: EntityRow[] = [
    ...stats.terms.slice(0, TOP_TERMS).map((t) => ({
      term: t.display,
      kind: 'term' as const,
      importance: t.importance,
      sourceCount: t.pages,
      competitorRange: t.count,
      sourceUses: t.sourceCount ?? 0,
      status: t.status ?? 'missing',
    })),
    ...stats.entities.slice(0, TOP_ENTITIES).map((e) => ({
      term: e.display,
      kind: 'entity' as const,
      importance: e.importance,
      sourceCount: e.pages,
      competitorRange: e.count,
      sourceUses: e.sourceCount ?? 0,
      status: e.status ?? 'missing',
    })),
  ];
  return {
    rankabilityScore: Math.round(total * 10) / 10,
    categoryScores,
    scoreDetails: details,
    entities,
    sourceWordCount: source.extraction.wordCount,
  };
}

/** Each competitor scored against the others (leave one out), so a page's score reads against theirs. */
export function scoreCompetitors(
  analyzer: TermAnalyzer,
  competitors: readonly AnalyzedPage[],
  keyword: string,
  language: string,
): number[] {
  return competitors.map((c, i) =>
    competitors.length < 2
      ? 0
      : scorePage(
          analyzer,
          c,
          competitors.filter((_, j) => j !== i),
          keyword,
          language,
        ).rankabilityScore,
  );
}
