import { z } from 'zod';
import { Timestamp } from '../../clock.ts';
import { BILLING_STATUSES } from '../../engine/accounts/contract.ts';
import { OPTIMIZATION_STAGE_VALUES, OPTIMIZATION_STATUS_VALUES } from '../../engine/optimize/states.ts';
import {
  OptimizationResult,
  Recommendation,
  ScoreCheck,
  Summary,
  SUMMARY_RECOMMENDATIONS,
  SUMMARY_TERMS,
  TermRow,
} from '../../engine/optimize/contract.ts';

export const OptimizationStatus = z.enum(OPTIMIZATION_STATUS_VALUES);
export const OptimizationStage = z.enum(OPTIMIZATION_STAGE_VALUES);
export const BillingStatus = z.enum(BILLING_STATUSES);
export const ViewParam = z.enum(['status', 'summary', 'full']);

const base = {
  optimization_id: z.string().describe('opt_ + 26 ULID characters.'),
  status: OptimizationStatus,
  stage: z.string().nullable().describe('searching, fetching or scoring while running; null otherwise.'),
  client_id: z.string().nullable(),
  url: z.string(),
  keyword: z.string(),
  language: z.string(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  completed_at: Timestamp.nullable(),
  error: z.string().nullable().describe('The saved error of a failed run.'),
  billing_status: BillingStatus,
};

// The records' schemas live in the optimization contract (engine/optimize/contract.ts).
export {
  OptimizationResult,
  Recommendation,
  ScoreCheck,
  Summary,
  TermRow,
  type OptimizationResultData,
} from '../../engine/optimize/contract.ts';
export const OptimizationSummaryRecord = z.object({ ...base, summary: Summary });
/** Any view: status fields always; summary from view=summary; result and evidence from view=full. */
export const OptimizationRecord = z.object({
  ...base,
  summary: Summary.optional(),
  result: OptimizationResult.nullable().optional(),
  evidence: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** The record's data: what the engine's views (engine/optimize/views.ts) answer, typed without a cast. */
export type OptimizationRecordData = z.input<typeof OptimizationRecord>;

/** score_content's answer: the draft's score in either view, and the delta since the optimization's last score. */
export const ScoreAnswer = z.object({
  optimization_id: z.string(),
  rankabilityScore: OptimizationResult.shape.rankabilityScore,
  categoryScores: OptimizationResult.shape.categoryScores,
  scoreDetails: z
    .array(ScoreCheck.partial().required({ id: true, earned: true, possible: true }))
    .describe('Every check; view=summary gives each as {id, earned, possible}.'),
  recommendations: z
    .array(Recommendation)
    .describe(`Most points first: every one (view=full) or the top ${SUMMARY_RECOMMENDATIONS} (view=summary).`),
  recommendationCount: z.number().int().optional().describe('view=summary: how many recommendations there are.'),
  entities: z
    .array(TermRow.partial().required({ term: true, status: true }))
    .describe(`Term rows: every one (view=full), or the ${SUMMARY_TERMS} most important as {term, status}.`),
  sourceWordCount: z.number().int(),
  competitorCount: z.number().int(),
  scoringVersion: z.string(),
  delta: z
    .object({
      since: z.string().describe("When the optimization's previous draft was scored."),
      previousScore: z.number(),
      scoreChange: z.number(),
      categoryChanges: z.record(z.string(), z.number()).describe('Categories whose score moved, by how much.'),
      resolvedCount: z.number().int(),
      resolved: z.array(z.string()).describe('Up to 10 ids of recommendations no longer made.'),
      newCount: z.number().int(),
      new: z.array(z.string()).describe('Up to 10 ids of recommendations made now and not before.'),
    })
    .optional()
    .describe(
      'view=summary, from the second score of an optimization on: what changed since its previous score (by any caller).',
    ),
});
