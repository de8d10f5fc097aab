import type { FetchErrorCode, SearchResult } from '../../providers/types.ts';
import type { Extraction } from '../analysis/extract/types.ts';
import type { PageType } from '../analysis/page-type/index.ts';
import type { DocumentTerms } from '../analysis/terms/types.ts';
import type { CompetitorModel, ScoreResult } from '../analysis/score/index.ts';
import type { ExcludedCompetitor } from './competitors.ts';
import type { PageTypeOf, SearchIntent } from './search-intent.ts';
import type { StepContext } from '../runner/types.ts';

export interface OptimizationInput {
  url: string;
  keyword: string;
  language: string;
  /** Domains whose pages are never competitors. */
  excludeDomains?: string[];
  /** Pages that replace the search results as the candidate set. */
  competitorUrls?: string[];
  /** Keep every fetched candidate of competitorUrls: no relevance test, no per-site cap, same site allowed. */
  forceCompetitors?: boolean;
}

export interface SearchOutput {
  provider: string;
  query: string;
  language: string;
  fetchedAt: string;
  results: SearchResult[];
}

export interface FetchedDoc {
  url: string;
  position: number | null;
  ok: boolean;
  status: number | null;
  finalUrl: string | null;
  contentType: string | null;
  contentHash: string | null;
  fetchedAt: string | null;
  source: string | null;
  /** Why the page is not used, when ok is false (`<fetch error code>: <message>` for fetch failures). */
  reason: string | null;
  /** The fetch error code, when the fetch itself failed. */
  failure?: FetchErrorCode;
  extraction: Extraction | null;
  /** Term analysis, done as the page arrives so it overlaps the wait for slower pages (null for own-site results). */
  terms: DocumentTerms | null;
  /** The page type (`classifyPage`), read once as the page arrives; confidence rounded to 3 decimals. */
  pageType?: { type: PageType; confidence: number } | null;
}

export interface FetchOutput {
  page: FetchedDoc;
  competitors: FetchedDoc[];
  /** Candidates left out before fetching (the page's own site, excluded domains). */
  excluded: ExcludedCompetitor[];
  /** The best-ranked results of the page's own site (excluded as same_site), fetched only for their page type. */
  sameSite?: FetchedDoc[];
}

/** A competitor as the score step keeps it: where it ranks, its length, its own score, its relevance and its type. */
export interface ScoredCompetitor extends Partial<PageTypeOf> {
  url: string;
  title: string;
  position: number | null;
  wordCount: number;
  score: number;
  relevance: number;
}

/** What the score step hands to onComplete: the result, the evidence and the model, written to the row. */
export interface ScoreOutput {
  result: ScoreResult &
    Partial<PageTypeOf> & {
      competitorCount: number;
      competitors: ScoredCompetitor[];
      excluded_competitors: ExcludedCompetitor[];
      /** The search intent of the relevant ranking pages; absent when none has a known type. */
      search_intent?: SearchIntent;
      confidence: 'normal' | 'low';
      warnings: string[];
      scoringVersion: string;
    };
  evidence: Record<string, unknown>;
  model: CompetitorModel;
}

/** The optimization pipeline's step outputs by step name. */
export type OptimizationOutputs = {
  search: SearchOutput;
  fetch: FetchOutput;
  score: ScoreOutput;
};

export type Ctx = StepContext<OptimizationInput, OptimizationOutputs>;
