import { z } from 'zod';
import { RESEARCH_PLATFORMS } from '../../providers/types.ts';
import { INTENTS, PAGE_CONTRACTS, TONES } from '../../engine/content/types.ts';
import { CONTENT_MODES } from '../../engine/content/states.ts';
import { ClientId } from '../common/schemas.ts';
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
  .describe('organic (default), google_video_pack, youtube_search, chatgpt, claude.');

/** The writing voices (content tools and client settings); each name says what it means. */
export const TONES_HELP = 'clear_practical, expert_detailed, friendly_simple, technical_precise or persuasive_direct';

const common = {
  topic: shortText({ max: 300 }).describe('Keyword or topic, ≤ 300 chars.'),
  client_id: ClientId,
  intent: z
    .enum(INTENTS)
    .default('educate')
    .describe('educate (default), discover (survey options), compete (compare), convert (sell).'),
  location: shortText({ max: 200 }).optional().describe('SERP location, e.g. "Austin, TX"; default United States.'),
  language: Language.default('en').describe('e.g. de, en-GB (default en).'),
  research_platforms: ResearchPlatforms,
};

/** What a content job and an Autopilot run both take about the writing, with the same rules. */
const writing = {
  tone: z.enum(TONES).optional().describe(`${TONES_HELP}; default the client's.`),
  custom_instructions: longText({ min: 0, max: 4_000 }).optional().describe('Extra writing instructions.'),
  word_count_target: z
    .number()
    .int()
    .min(100)
    .max(10_000)
    .optional()
    .describe('100-10000 words; default 1200 (article), 800 (commercial_service).'),
};

export const CreateContentJobInput = z
  .strictObject({
    ...common,
    mode: z
      .enum(CONTENT_MODES)
      .default('auto')
      .describe('auto (default); stepped: pause at brief_ready for approve_content_brief.'),
    ...writing,
    project_mode: z
      .enum(['new', 'optimize'])
      .default('new')
      .describe('new (default) page, or optimize the page at source_url.'),
    page_contract: z
      .enum(PAGE_CONTRACTS)
      .optional()
      .describe('article or commercial_service (service page); required without draft_body.'),
    source_url: shortText({ max: 2048 }).optional().describe('Page to improve (project_mode optimize).'),
    draft_body: longText({ max: 200_000, trim: false }).optional().describe('Your own markdown draft, used as is.'),
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
  location: common.location.describe("SERP location; default the client's service area, else United States."),
  ...writing,
  context: longText({ min: 0, max: 2_000 }).optional().describe('Background for the writer.'),
  location_lat: z.number().min(-90).max(90).optional().describe('Latitude, -90 to 90.'),
  location_lng: z.number().min(-180).max(180).optional().describe('Longitude, -180 to 180.'),
  allow_location_conflict: z
    .boolean()
    .default(false)
    .describe("true: allow a location outside the client's service area; default false."),
  page_contract: z.enum(PAGE_CONTRACTS).describe('article or commercial_service (service page).'),
});

export {
  AutopilotStarted,
  AutopilotStatus,
  ContentJobCreated,
  ContentJobDetail,
  ContentJobRowView,
  LIST_KINDS,
  Progress,
} from '../../engine/content/contract.ts';
export { WaitSeconds } from '../common/schemas.ts';
