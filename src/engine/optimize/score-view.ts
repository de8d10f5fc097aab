/**
 * score_content's answer sized for an assistant that rewrites and scores again: by default the score, the category
 * scores, the top recommendations and what changed since the previous score of the same optimization; `view=full`
 * answers every check, term and recommendation (the whole answer it always gave).
 */
import type { EntityRow, Recommendation, ScoreCheck } from '../analysis/score/types.ts';
import { SUMMARY_RECOMMENDATIONS, SUMMARY_TERMS } from './contract.ts';

export const SCORE_VIEWS = ['summary', 'full'] as const;
export type ScoreView = (typeof SCORE_VIEWS)[number];

/** Recommendation ids a delta lists per side (resolved, new); the counts are always whole. */
const DELTA_IDS = 10;

/** The whole answer (view=full). */
export interface FullScore {
  optimization_id: string;
  rankabilityScore: number;
  categoryScores: Record<string, number>;
  scoreDetails: ScoreCheck[];
  recommendations: Recommendation[];
  entities: EntityRow[];
  sourceWordCount: number;
  competitorCount: number;
  scoringVersion: string;
}

/** What a score keeps for the next score of the same optimization to compare with. */
export interface ScoreFigures {
  rankabilityScore: number;
  categoryScores: Record<string, number>;
  /** Recommendation ids, most points first. */
  recommendations: string[];
}

/** A previous score: its figures and when it was made (ms since the epoch). */
export interface PreviousScore extends ScoreFigures {
  scoredAt: number;
}

/** What changed since the previous score of the same optimization. */
export interface ScoreDelta {
  since: string;
  previousScore: number;
  scoreChange: number;
  /** Categories whose score moved, by how much. */
  categoryChanges: Record<string, number>;
  resolvedCount: number;
  /** Up to 10 ids of recommendations the previous score made and this one does not. */
  resolved: string[];
  newCount: number;
  /** Up to 10 ids of recommendations this score makes and the previous one did not. */
  new: string[];
}

// Scores are given to one decimal; differences of such figures are rounded back to it (float noise aside).
const diff = (a: number, b: number) => Math.round((a - b) * 10) / 10;

export function figuresOf(score: FullScore): ScoreFigures {
  return {
    rankabilityScore: score.rankabilityScore,
    categoryScores: score.categoryScores,
    recommendations: score.recommendations.map((r) => r.id),
  };
}

/** The change from `previous` to `current`. */
export function scoreDelta(current: ScoreFigures, previous: PreviousScore): ScoreDelta {
  const categoryChanges: Record<string, number> = {};
  for (const [category, value] of Object.entries(current.categoryScores)) {
    const change = diff(value, previous.categoryScores[category] ?? 0);
    if (change !== 0) categoryChanges[category] = change;
  }
  const now = new Set(current.recommendations);
  const before = new Set(previous.recommendations);
  const resolved = previous.recommendations.filter((id) => !now.has(id));
  const added = current.recommendations.filter((id) => !before.has(id));
  return {
    since: new Date(previous.scoredAt).toISOString(),
    previousScore: previous.rankabilityScore,
    scoreChange: diff(current.rankabilityScore, previous.rankabilityScore),
    categoryChanges,
    resolvedCount: resolved.length,
    resolved: resolved.slice(0, DELTA_IDS),
    newCount: added.length,
    new: added.slice(0, DELTA_IDS),
  };
}

/**
 * The summary view: every field of the whole answer, the bulky ones in short form (checks as their points, the most
 * important terms as their status, the top recommendations), plus how many recommendations there are and the delta.
 */
export function summaryScore(full: FullScore, previous: PreviousScore | null) {
  const terms = [...full.entities].sort((a, b) => b.importance - a.importance).slice(0, SUMMARY_TERMS);
  return {
    optimization_id: full.optimization_id,
    rankabilityScore: full.rankabilityScore,
    categoryScores: full.categoryScores,
    scoreDetails: full.scoreDetails.map(({ id, earned, possible }) => ({ id, earned, possible })),
    recommendations: full.recommendations.slice(0, SUMMARY_RECOMMENDATIONS),
    recommendationCount: full.recommendations.length,
    entities: terms.map(({ term, status }) => ({ term, status })),
    sourceWordCount: full.sourceWordCount,
    competitorCount: full.competitorCount,
    scoringVersion: full.scoringVersion,
    ...(previous ? { delta: scoreDelta(figuresOf(full), previous) } : {}),
  };
}
