import { z } from 'zod';
import { RESEARCH_PLATFORMS } from '../../providers/types.ts';
import { INTENTS, PAGE_CONTRACTS, TONES } from '../../engine/content/types.ts';
import { Timestamp, UsageImpact, Uuid } from '../common/schemas.ts';
import { identifier, longText, shortText } from '../common/text.ts';

/** The 32 supported language codes (primary subtags); a region may follow (`en-GB`, `pt-BR`). */
export const LANGUAGES = [
  'ar',
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'es',
  'fi',
  'fr',
  'he',
  'hi',
  'hr',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'ms',
  'nl',
  'no',
  'pl',
  'pt',
  'ro',
  'ru',
  'sk',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh',
] as const;

export const Language = identifier(z.string().trim().max(10)).refine(
  (v) =>
    /^[A-Za-z]{2}(-[A-Za-z0-9]{2,4})?$/.test(v) &&
    (LANGUAGES as readonly string[]).includes(v.slice(0, 2).toLowerCase()),
  {
    message: `Use one of the supported language codes: ${LANGUAGES.join(', ')} (optionally with a region, e.g. en-GB).`,
  },
);

export const ResearchPlatforms = z
  .array(z.enum(RESEARCH_PLATFORMS))
  .min(1)
  .max(RESEARCH_PLATFORMS.length)
  .refine((a) => new Set(a).size === a.length, { message: 'List each research platform once.' })
  .default(['organic'])
  .describe('Where research looks; AI sources run only when selected. Default: Google organic only.');

const common = {
  topic: shortText({ max: 300 }).describe('Primary keyword or topic.'),
  client_id: Uuid.describe("A client of the caller's organisation."),
  intent: z.enum(INTENTS).default('educate'),
  location: shortText({ max: 200 }).optional().describe('SERP geo-target; a generic US location when omitted.'),
  language: Language.default('en'),
  research_platforms: ResearchPlatforms,
};

/** What a content job and an Autopilot run both take about the writing, with the same rules. */
const writing = {
  tone: z.enum(TONES).optional().describe("Default: the client's default tone."),
  custom_instructions: longText({ min: 0, max: 4_000 }).optional(),
  word_count_target: z
    .number()
    .int()
    .min(100)
    .max(10_000)
    .optional()
    .describe('Words the draft aims at. Default: 1,200 for an article, 800 for a commercial service page.'),
};

export const CreateContentJobInput = z
  .strictObject({
    ...common,
    mode: z.enum(['auto', 'stepped']).default('auto'),
    ...writing,
    project_mode: z.enum(['new', 'optimize']).default('new'),
    page_contract: z.enum(PAGE_CONTRACTS).optional().describe('Required unless draft_body is given.'),
    source_url: shortText({ max: 2048 })
      .optional()
      .describe('Required with project_mode optimize: the public page to import.'),
    draft_body: longText({ max: 200_000, trim: false })
      .optional()
      .describe('A pre-written draft: kept as it is (no writing).'),
  })
  .superRefine((v, ctx) => {
    if (!v.page_contract && !v.draft_body)
      ctx.addIssue({
        code: 'custom',
        path: ['page_contract'],
        message: 'page_contract is required unless draft_body is given.',
      });
    if (v.project_mode === 'optimize' && !v.source_url)
      ctx.addIssue({
        code: 'custom',
        path: ['source_url'],
        message: 'source_url is required with project_mode optimize.',
      });
  });

export const CreateAutopilotInput = z.strictObject({
  ...common,
  ...writing,
  context: longText({ min: 0, max: 2_000 })
    .optional()
    .describe('Extra context for the writer, up to 2,000 characters.'),
  location_lat: z.number().min(-90).max(90).optional(),
  location_lng: z.number().min(-180).max(180).optional(),
  allow_location_conflict: z.boolean().default(false).describe('true only to confirm a deliberately different market.'),
  page_contract: z.enum(PAGE_CONTRACTS),
});

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
  kind: z.enum(['job', 'autopilot']),
  client_id: z.string(),
  creation_source: z.enum(['agent_api', 'web_app']),
  mode: z.enum(['auto', 'stepped']).nullable(),
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

export const ContentJobRowView = z.object({
  job_id: z.string(),
  kind: z.enum(LIST_KINDS),
  client_id: z.string(),
  creation_source: z.enum(['agent_api', 'web_app']),
  mode: z.enum(['auto', 'stepped']).nullable(),
  status: z.string(),
  progress: Progress,
  content_type: z.string().nullable(),
  topic: z.string(),
  research_platforms: z.array(z.string()),
  error: z.string().nullable(),
  error_code: ErrorCode,
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: Timestamp.nullable(),
});

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

export const WaitSeconds = z.coerce
  .number()
  .int()
  .min(0)
  .max(30)
  .default(0)
  .describe('Wait up to this many seconds for the status to change.');
