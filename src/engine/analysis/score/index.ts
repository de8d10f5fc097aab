import type { TermAnalyzer } from '../terms/types.ts';
import { buildRecommendations } from './advice.ts';
import { runChecks, type TermRow } from './checks.ts';
import { buildCompetitorModel, type CompetitorModel } from './model.ts';
import { CATEGORIES, type AnalyzedPage, type Category, type EntityRow, type ScoreResult } from './types.ts';
import { scoreV3 } from './v3/score.ts';

export type * from './types.ts';
export type { CompetitorModel, ModelTerm } from './model.ts';
export { buildCompetitorModel, modelVersion } from './model.ts';
export { textStats } from './readability.ts';

/**
 * The formula's version: saved with every result so a stored score can be traced to the rules that made it. New
 * runs are scored by version 3; a model saved by version 2 is scored by version 2 (`modelVersion`).
 */
export const SCORING_VERSION = '3';

const round1 = (x: number) => Math.round(x * 10) / 10;

function entityRow(r: TermRow): EntityRow {
  return {
    term: r.model.display,
    kind: r.model.kind,
    importance: r.model.importance,
    sourceCount: r.model.pages,
    competitorRange: { p25: r.target.low, median: r.target.mid, p75: r.target.high },
    sourceUses: r.use.count,
    status: r.status,
  };
}

/**
 * Scores `source` against a competitor model (docs/scoring.md) with the model's version: a pure, deterministic
 * function of its inputs.
 */
export function scoreAgainstModel(analyzer: TermAnalyzer, source: AnalyzedPage, model: CompetitorModel): ScoreResult {
  return model.v3 ? scoreV3(analyzer, source, { ...model, v3: model.v3 }) : scoreV2(analyzer, source, model);
}

/** Version 2's formula (models saved without version 3's part). */
function scoreV2(analyzer: TermAnalyzer, source: AnalyzedPage, model: CompetitorModel): ScoreResult {
  const { details, rows, termAdvice } = runChecks({ source, model, analyzer });
  const categoryScores: Partial<Record<Category, number>> = {};
  for (const cat of CATEGORIES) {
    const inCat = details.filter((d) => d.category === cat);
    const possible = inCat.reduce((a, d) => a + d.possible, 0);
    categoryScores[cat] = possible ? Math.round((inCat.reduce((a, d) => a + d.earned, 0) / possible) * 1000) / 10 : 100;
  }
  const total = details.reduce((a, d) => a + d.earned, 0);
  return {
    scoringVersion: '2',
    rankabilityScore: round1(total),
    categoryScores,
    scoreDetails: details,
    entities: [...rows.terms.map(entityRow), ...rows.entities.map(entityRow)],
    sourceWordCount: source.extraction.wordCount,
    recommendations: buildRecommendations(details, termAdvice),
  };
}

/** Scores `source` against `competitors` for `keyword`: builds their model, then scores against it. */
export function scorePage(
  analyzer: TermAnalyzer,
  source: AnalyzedPage,
  competitors: readonly AnalyzedPage[],
  keyword: string,
  language: string,
): ScoreResult {
  return scoreAgainstModel(analyzer, source, buildCompetitorModel(analyzer, competitors, keyword, language));
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
