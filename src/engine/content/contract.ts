/**
 * The content contract's records: the zod schemas of what a content job or an Autopilot run answers (the create and
 * start answers, the detail record, the list row, Autopilot's status). The views build them (src/engine/content/views.ts,
 * typed by these schemas) and the tools answer them (src/tools/content/schemas.ts re-exports them). The states they
 * carry come from the state table (./states.ts).
 */
import { z } from 'zod';
import { Timestamp } from '../../clock.ts';
import { UsageImpact } from '../platform/usage.ts';
import { CONTENT_MODES, CONTENT_RUN_KINDS, CREATION_SOURCES } from './states.ts';

export const ContentJobCreated = z.object({
  job_id: z.string(),
  status: z.string(),
  content_type: z.string().nullable(),
  research_platforms: z.array(z.string()),
  usage_impact: UsageImpact,
  created_at: Timestamp,
});

/** Why a failed job failed, machine-readable, when known: `insufficient_research` (too few relevant sources). */
const ErrorCode = z
  .string()
  .nullable()
  .describe('Why a failed job failed, when known: insufficient_research (fewer than 2 relevant sources).');

export const Progress = z.object({ stage: z.string(), percent: z.number().int() });

export const ContentJobDetail = z.object({
  job_id: z.string(),
  kind: z.enum(CONTENT_RUN_KINDS),
  client_id: z.string(),
  creation_source: z.enum(CREATION_SOURCES),
  mode: z.enum(CONTENT_MODES).nullable(),
  status: z.string(),
  progress: Progress,
  content_type: z.string().nullable(),
  topic: z.string(),
  intent: z.string(),
  language: z.string(),
  location: z.string(),
  tone: z.string(),
  custom_instructions: z.string().nullable(),
  word_count_target: z.number().int(),
  project_mode: z.string(),
  page_contract: z.string().nullable(),
  source_url: z.string().nullable(),
  research_platforms: z.array(z.string()),
  has_draft_body: z.boolean(),
  usage_impact: UsageImpact,
  billing: z.object({ charged: z.boolean(), released: z.boolean() }),
  error: z.string().nullable(),
  error_code: ErrorCode,
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  updated_at: Timestamp,
  completed_at: Timestamp.nullable(),
});

/** The kind of a content list row: a content job or an Autopilot run. */
export const LIST_KINDS = ['content_job', 'autopilot'] as const;

/** A list row: the detail record's identity, status and timing fields, with the list's kind of run. */
export const ContentJobRowView = ContentJobDetail.pick({
  job_id: true,
  kind: true,
  client_id: true,
  creation_source: true,
  mode: true,
  status: true,
  progress: true,
  content_type: true,
  topic: true,
  research_platforms: true,
  error: true,
  error_code: true,
  created_at: true,
  updated_at: true,
  completed_at: true,
}).extend({ kind: z.enum(LIST_KINDS) });

export const AutopilotStarted = z.object({
  job_id: z.string(),
  status: z.string(),
  stage: z.string(),
  usage_impact: UsageImpact,
  created_at: Timestamp,
});

export const AutopilotStatus = z.object({
  job_id: z.string(),
  status: z.string(),
  stage: z.string(),
  started_at: Timestamp.nullable(),
  updated_at: Timestamp,
  completed_at: Timestamp.nullable(),
  optimize_passes: z.number().int(),
  optimize_pass_cap: z.number().int(),
  charged: z.boolean(),
  released: z.boolean(),
  error: z.string().nullable(),
  error_code: ErrorCode,
  review: z.record(z.string(), z.unknown()).nullable(),
  publish: z.null(),
});
