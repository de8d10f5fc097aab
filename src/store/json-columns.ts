/**
 * Every JSON column of the store with its type (src/store/schema.ts says which columns are JSON). Small columns of
 * strings and enums are checked on read and write; the artifacts and models the engine builds are typed.
 */
import { z } from 'zod';
import type { CompetitorModel } from '../engine/analysis/score/model.ts';
import type { Brief, ContentRequest } from '../engine/content/types.ts';
import type { StoredClientMetadata } from '../engine/oauth/clients.ts';
import type { ConfidenceLevel, OptimizationResultData, RecommendationData } from '../engine/optimize/contract.ts';
import type { ScoreFigures } from '../engine/optimize/score-view.ts';
import { isScope, type Scope } from '../engine/accounts/scopes.ts';
import { TRACKER_PLATFORMS, type TrackerPlatform } from '../engine/tracker/contract.ts';
import { jsonColumn, typedColumn, type JsonColumn } from './json-column.ts';
import type { DB } from './schema.ts';

const strings = jsonColumn(z.array(z.string()), { checked: true });
const platforms = jsonColumn(z.array(z.enum(TRACKER_PLATFORMS)), { checked: true });
/**
 * An OAuth grant's scopes: written from our scope list only; read back as our scopes, a name this server no longer
 * knows dropped (expandScopes ignored such names before, so what a token grants does not change).
 */
const oauthScopes = jsonColumn(
  z.array(z.string()).transform((names) => names.filter((s): s is Scope => isScope(s))),
  { checked: true },
);

/** Per (scan, platform): the status and SPI a finalized scan recorded (tracker_scans.platform_scores). */
export type PlatformScores = Partial<Record<TrackerPlatform, { status: string; spi: number | null }>>;

/** An optimization's summary extras: the top recommendations, confidence and warnings. */
export interface SummaryExtras {
  recommendations: RecommendationData[];
  confidence: ConfidenceLevel;
  warnings: string[];
}

/** Tables and text columns of the schema: every column named below must be one (checked when this file compiles). */
type TextColumns = {
  [T in keyof DB]?: { [C in keyof DB[T]]?: DB[T][C] extends string | null ? JsonColumn<unknown> : never };
};

export const JSON_COLUMNS = {
  clients: { excluded_topics: strings },
  api_keys: { scopes: strings },
  oauth_clients: { metadata: typedColumn<StoredClientMetadata>() },
  oauth_grants: { scopes: oauthScopes },
  oauth_codes: { scopes: oauthScopes },
  /** Narrower scopes than the grant's; a null column is the grant's. */
  oauth_tokens: { scopes: oauthScopes },
  /** A run's input and the outputs of its finished steps, by step name (src/engine/runner). */
  runs: { checkpoint: typedColumn<Record<string, unknown>>() },
  content_jobs: { request: typedColumn<ContentRequest>() },
  content_artifacts: {
    outline: typedColumn<Brief['outline']>(),
    seo_metadata: typedColumn<Brief['seoMetadata']>(),
    entities: typedColumn<Brief['entities']>(),
    faqs: typedColumn<Brief['faqs']>(),
    /** The researched pages the draft cites, and the imported page (project_mode optimize). */
    research: typedColumn<{
      sources: { id: number; url: string; title: string; platform: string }[];
      imported: { url: string; title: string } | null;
    }>(),
    draft: typedColumn<Record<string, unknown>>(),
    citations: typedColumn<unknown[]>(),
    review: typedColumn<Record<string, unknown>>(),
    score: typedColumn<Record<string, unknown>>(),
  },
  optimizations: {
    result: typedColumn<OptimizationResultData>(),
    evidence: typedColumn<Record<string, unknown>>(),
    scoring_model: typedColumn<CompetitorModel>(),
    summary_extras: typedColumn<SummaryExtras>(),
  },
  draft_scores: { figures: typedColumn<Omit<ScoreFigures, 'rankabilityScore'>>() },
  tracker_projects: { brand_names: strings, queries: strings, platforms },
  tracker_scans: { platforms, missing_platforms: platforms, platform_scores: typedColumn<PlatformScores>() },
  tracker_results: { cited_urls: strings },
  tracker_platform_summaries: {
    top_cited: jsonColumn(z.array(z.tuple([z.string(), z.number()])), { checked: true }),
  },
} as const satisfies TextColumns;
