/**
 * The optimization contract's records: the zod schemas of what a run stores and answers (its result, the summary's
 * recommendations, the score checks and term rows). The tools answer them (src/tools/optimize/schemas.ts re-exports
 * them) and the store types the optimization's JSON columns with them (src/store/json-columns.ts).
 */
import { z } from 'zod';
import { PAGE_TYPES } from '../analysis/page-type/types.ts';
import { RECOMMENDATION_KINDS } from '../analysis/score/types.ts';
import { EXCLUSION_REASONS } from './exclusions.ts';

/** Recommendations score_content's summary view carries, most points first. */
export const SUMMARY_RECOMMENDATIONS = 10;
/** Term rows score_content's summary view carries, most important first. */
export const SUMMARY_TERMS = 15;

/** One thing to change, with the points following it adds (docs/scoring.md, "Coherent advice"). */
export const Recommendation = z.object({
  id: z.string().describe('The check, or check:term for term advice; stable for the same input.'),
  check: z.string(),
  category: z.string(),
  kind: z.enum(RECOMMENDATION_KINDS),
  term: z.string().nullable().describe('The term or name the advice is about; null for page-level advice.'),
  points: z.number().describe('Score points following it would add.'),
  priority: z.enum(['high', 'medium', 'low']).describe('high from 2 points, medium from 0.75.'),
  recommendation: z.string(),
});

const Confidence = z
  .enum(['normal', 'low'])
  .describe('low when fewer than 3 ranking pages are real competitors (see warnings and excluded_competitors).');

export const Summary = z
  .object({
    rankabilityScore: z.number(),
    sourceWordCount: z.number().int(),
    competitorCount: z.number().int(),
    duration: z.number().int().describe('Milliseconds from start to completion.'),
    billingFinalized: z.boolean(),
    recommendations: z.array(Recommendation).describe('The top 5 recommendations, most points first.'),
    confidence: Confidence,
    warnings: z.array(z.string()),
  })
  .nullable()
  .describe('Null until the run is complete.');

export const ScoreCheck = z.object({
  id: z.string(),
  category: z.string(),
  label: z.string(),
  earned: z.number(),
  possible: z.number(),
  evidence: z.record(z.string(), z.unknown()),
  recommendation: z.string().nullable(),
});

/** One term or name: how the ranking pages use it and how the page does. */
export const TermRow = z.object({
  term: z.string(),
  kind: z.enum(['term', 'entity']),
  importance: z.number(),
  sourceCount: z.number().int().describe('Competitor pages that use it.'),
  competitorRange: z.object({ p25: z.number(), median: z.number(), p75: z.number() }),
  sourceUses: z.number().int(),
  status: z.enum(['missing', 'under', 'ok', 'over']),
});

const PageType = z.enum(PAGE_TYPES).describe(`The page's type: ${PAGE_TYPES.join(', ')}.`);
const PageTypeConfidence = z.number().describe("The classifier's probability of page_type, 0-1.");

/** The search intent: the page type most relevant ranking pages share (docs/api.md, the optimize result). */
const SearchIntent = z
  .object({
    page_type: PageType,
    pages: z.number().int().describe('Relevant ranking pages of that type.'),
    of: z.number().int().describe('Relevant ranking pages counted (at most 2 per site).'),
    dominant: z
      .boolean()
      .describe(
        'True when the type has at least 3 pages, at least half of those counted, and no other type as many: pages of another type are then excluded (page_type_mismatch) and a scored page of another type is advised (kind page_type).',
      ),
  })
  .describe('What kind of page ranks for the keyword.');

export const OptimizationResult = z
  .object({
    rankabilityScore: z.number().describe('0-100, the sum of scoreDetails points (docs/scoring.md).'),
    categoryScores: z
      .record(z.string(), z.number())
      .describe('Percent of each category earned: coverage, length, headings, metadata, readability, structure.'),
    scoreDetails: z.array(ScoreCheck),
    entities: z.array(TermRow),
    sourceWordCount: z.number().int(),
    competitorCount: z.number().int().describe('Equals the length of competitors.'),
    competitors: z.array(
      z.object({
        url: z.string(),
        title: z.string(),
        position: z.number().int().nullable(),
        wordCount: z.number().int(),
        score: z.number(),
        relevance: z.number().optional().describe('The relevance score that admitted it (docs/scoring.md).'),
        page_type: PageType.optional(),
        page_type_confidence: PageTypeConfidence.optional(),
      }),
    ),
    page_type: PageType.optional().describe("The scored page's type."),
    page_type_confidence: PageTypeConfidence.optional(),
    search_intent: SearchIntent.optional(),
    recommendations: z.array(Recommendation).optional().describe('Every recommendation, most points first.'),
    excluded_competitors: z
      .array(
        z.object({
          url: z.string(),
          position: z.number().int().nullable(),
          reason: z.enum(EXCLUSION_REASONS),
          detail: z.string(),
          page_type: PageType.optional().describe('Its type, when it was fetched and read.'),
        }),
      )
      .optional()
      .describe('Ranking pages that are not competitors, with the reason; they count nowhere.'),
    confidence: Confidence.optional(),
    warnings: z.array(z.string()).optional(),
    duration: z.number().int(),
    scoringVersion: z.string(),
  })
  .passthrough();

/** A run's full result (optimizations.result), as stored and as view=full answers it. */
export type OptimizationResultData = z.output<typeof OptimizationResult>;
export type RecommendationData = z.output<typeof Recommendation>;
export type ConfidenceLevel = z.output<typeof Confidence>;
