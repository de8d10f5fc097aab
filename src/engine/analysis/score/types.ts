import type { Extraction } from '../extract/types.ts';
import type { DocumentTerms, UsageStatus } from '../terms/types.ts';

/** A fetched page after extraction and term analysis. */
export interface AnalyzedPage {
  url: string;
  extraction: Extraction;
  terms: DocumentTerms;
}

/** Version 2's categories. */
export const CATEGORIES = ['coverage', 'length', 'headings', 'metadata', 'readability', 'structure'] as const;
/** Version 3's: version 2's and what it adds (prose, originality, the answer first, facts). */
export const CATEGORIES_V3 = [
  'coverage',
  'facts',
  'prose',
  'readability',
  'originality',
  'answer',
  'length',
  'headings',
  'metadata',
  'structure',
] as const;
export type Category = (typeof CATEGORIES_V3)[number];

/** One scored check: what it measured, the points, and what to change. */
export interface ScoreCheck {
  id: string;
  category: Category;
  label: string;
  earned: number;
  possible: number;
  evidence: Record<string, unknown>;
  /** What to change to earn the missing points; null when nothing is missing. */
  recommendation: string | null;
}

export interface EntityRow {
  term: string;
  kind: 'term' | 'entity';
  importance: number;
  /** Competitor pages that use it. */
  sourceCount: number;
  competitorRange: { p25: number; median: number; p75: number };
  sourceUses: number;
  status: UsageStatus;
}

/** Advice for one term from a coverage check. */
export interface TermAdvice {
  check: string;
  term: string;
  kind: 'add_term' | 'use_more' | 'use_less';
  points: number;
  recommendation: string;
}

export type Priority = 'high' | 'medium' | 'low';

/**
 * What a recommendation asks: a term to add, use more or less; a page-level fix; passages to rewrite in one's own
 * words; a fact the ranking pages share; an opening that answers the question; a page of the kind that ranks.
 */
export const RECOMMENDATION_KINDS = [
  'add_term',
  'use_more',
  'use_less',
  'fix',
  'rewrite_copied',
  'add_fact',
  'answer_first',
  'page_type',
] as const;
export type RecommendationKind = (typeof RECOMMENDATION_KINDS)[number];

/** One thing to change, with the points following it would add. */
export interface Recommendation {
  /** `<check>` or `<check>:<term>`: stable across runs of the same input. */
  id: string;
  check: string;
  category: Category;
  kind: RecommendationKind;
  /** The term or name the advice is about; null for page-level advice. */
  term: string | null;
  points: number;
  priority: Priority;
  recommendation: string;
}

export interface ScoreResult {
  /** The formula that made it: the model's version (model.ts `modelVersion`). */
  scoringVersion: '2' | '3';
  rankabilityScore: number;
  /** Percent of each category's points earned, 0-100: the version's categories. */
  categoryScores: Partial<Record<Category, number>>;
  scoreDetails: ScoreCheck[];
  entities: EntityRow[];
  sourceWordCount: number;
  /** Every recommendation, conflicts resolved, most points first. */
  recommendations: Recommendation[];
}
