import { z } from 'zod';
import { shortText } from '../common/text.ts';
import { PROJECT_LIMITS, type TrackerProjectChanges } from '../../engine/tracker/projects.ts';
import { TRACKER_PLATFORMS } from '../../engine/tracker/types.ts';
import { Platform, QueryKind } from './schemas.ts';

/** The longest host name (RFC 1035), the limit on a project's and a client's domain. */
const DOMAIN_MAX = 253;
/** A language code as the project store takes it (engine/tracker/projects.ts). */
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

/**
 * A tracker project's settings, shared by create_tracker_project and update_tracker_project. The limits are the
 * ones the engine checks for the CLI's `tracker create-project` (PROJECT_LIMITS), which still validates the whole.
 */
export const projectFields = {
  name: shortText({ max: PROJECT_LIMITS.name }).describe(`Project name, ≤ ${PROJECT_LIMITS.name} chars.`),
  domain: shortText({ max: DOMAIN_MAX }).describe('Brand host, e.g. example.com (and subdomains).'),
  query_kind: QueryKind.describe('keywords (search terms) or prompts (questions for AI platforms).'),
  queries: z
    .array(shortText({ max: PROJECT_LIMITS.queryLength }))
    .min(1)
    .max(PROJECT_LIMITS.queries)
    .describe(
      `1-${PROJECT_LIMITS.queries}, ≤ ${PROJECT_LIMITS.queryLength} chars each; a scan costs 1 unit per query and platform.`,
    ),
  brand_names: z
    .array(shortText({ max: 200 }))
    .max(PROJECT_LIMITS.brandNames)
    .describe(`≤ ${PROJECT_LIMITS.brandNames} names counted as mentions, besides the domain.`),
  platforms: z
    .array(Platform)
    .min(1)
    .max(TRACKER_PLATFORMS.length)
    .describe('organic (web search), chatgpt, perplexity, claude (AI answers), google_ai_overview.'),
  location: shortText({ max: 200 }).nullable().describe('Search location, e.g. "Austin, TX"; null: none.'),
  language: shortText({ max: 12 })
    .regex(LANGUAGE, 'A language code such as en or en-US.')
    .describe('Language code, e.g. en or en-US.'),
};

/** The engine's changes from the API's fields (absent stays absent; location null clears it). */
export function projectChanges(input: {
  name?: string;
  domain?: string;
  query_kind?: 'keywords' | 'prompts';
  queries?: string[];
  brand_names?: string[];
  platforms?: string[];
  location?: string | null;
  language?: string;
}): TrackerProjectChanges {
  return {
    name: input.name,
    domain: input.domain,
    queryKind: input.query_kind,
    queries: input.queries,
    brandNames: input.brand_names,
    platforms: input.platforms,
    location: input.location,
    language: input.language,
  };
}
