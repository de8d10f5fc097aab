import { z } from 'zod';
import { Timestamp } from '../common/schemas.ts';
import { BILLING_STATUSES } from '../../engine/accounts/contract.ts';
import { OPTIMIZATION_STAGE_VALUES, OPTIMIZATION_STATUS_VALUES } from '../../engine/optimize/states.ts';
import { OptimizationResult, Summary } from '../../engine/optimize/contract.ts';

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
