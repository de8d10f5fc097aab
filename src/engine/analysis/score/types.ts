import type { Extraction } from '../extract/types.ts';
import type { DocumentTerms, UsageStatus } from '../terms/types.ts';

/** A fetched page after extraction and term analysis. */
export interface AnalyzedPage {
  url: string;
  extraction: Extraction;
  terms: DocumentTerms;
}

export const CATEGORIES = ['coverage', 'length', 'headings', 'metadata', 'readability', 'structure'] as const;
export type Category = (typeof CATEGORIES)[number];

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

export interface ScoreResult {
  rankabilityScore: number;
  /** Percent of each category's points earned, 0-100. */
  categoryScores: Record<Category, number>;
  scoreDetails: ScoreCheck[];
  entities: EntityRow[];
  sourceWordCount: number;
}
