import { z } from 'zod';
import { CLIENT_LIMITS, type ClientChanges } from '../../engine/accounts/admin.ts';
import { TONES } from '../../engine/content/types.ts';
import { Timestamp } from '../common/schemas.ts';
import { TONES_HELP } from '../content/schemas.ts';
import { longText, shortText } from '../common/text.ts';

/**
 * A client workspace as the API shows it. list_clients answers the first seven fields; create_client and
 * update_client add the writing settings (`brand_voice`, `knowledge_base`, `excluded_topics`) and `updated_at`.
 */
export const ClientView = z.object({
  client_id: z.string(),
  name: z.string(),
  domain: z.string().nullable(),
  service_area: z.string().nullable(),
  service_location: z.object({ lat: z.number(), lng: z.number() }).nullable(),
  default_tone: z.string().nullable(),
  created_at: Timestamp,
  brand_voice: z.string().nullable().optional().describe('Only in create_client and update_client answers.'),
  knowledge_base: z
    .string()
    .nullable()
    .optional()
    .describe('Only in create_client and update_client answers; the text exactly as stored.'),
  excluded_topics: z.array(z.string()).optional().describe('Only in create_client and update_client answers.'),
  updated_at: Timestamp.optional().describe('Only in create_client and update_client answers.'),
});

export { ClientId as ClientIdParam } from '../common/schemas.ts';

/** The writable settings of a client, shared by create_client and update_client (null clears a setting). */
export const clientFields = {
  name: shortText({ max: CLIENT_LIMITS.name }).describe(`Client name, ≤ ${CLIENT_LIMITS.name} chars.`),
  domain: shortText({ max: CLIENT_LIMITS.domain }).nullable().optional().describe('Host, e.g. example.com.'),
  service_area: shortText({ max: CLIENT_LIMITS.serviceArea })
    .nullable()
    .optional()
    .describe('Market, e.g. "Austin, TX"; Autopilot refuses other places.'),
  service_location: z
    .strictObject({
      lat: z.number().min(-90).max(90).describe('Latitude, -90 to 90.'),
      lng: z.number().min(-180).max(180).describe('Longitude, -180 to 180.'),
    })
    .nullable()
    .optional()
    .describe('Market coordinates.'),
  default_tone: z.enum(TONES).nullable().optional().describe(`Jobs' tone: ${TONES_HELP}; null: clear_practical.`),
  brand_voice: longText({ min: 1, max: CLIENT_LIMITS.brandVoice, trim: false })
    .nullable()
    .optional()
    .describe(`How the brand speaks, ≤ ${CLIENT_LIMITS.brandVoice} chars.`),
  knowledge_base: longText({ min: 1, max: CLIENT_LIMITS.knowledgeBase, trim: false })
    .nullable()
    .optional()
    .describe(`Facts writers may cite (markdown), ≤ ${CLIENT_LIMITS.knowledgeBase.toLocaleString('en-US')} chars.`),
  excluded_topics: z
    .array(shortText({ max: CLIENT_LIMITS.topicLength }))
    .max(CLIENT_LIMITS.excludedTopics)
    .optional()
    .describe(
      `≤ ${CLIENT_LIMITS.excludedTopics} topics never written about, ≤ ${CLIENT_LIMITS.topicLength} chars each; [] clears.`,
    ),
};

type ClientFields = {
  name?: string;
  domain?: string | null;
  service_area?: string | null;
  service_location?: { lat: number; lng: number } | null;
  default_tone?: string | null;
  brand_voice?: string | null;
  knowledge_base?: string | null;
  excluded_topics?: string[];
};

/** The engine's changes (engine/accounts/admin.ts) from the API's fields: absent stays absent, null clears. */
export function clientChanges(input: ClientFields): ClientChanges {
  const location = input.service_location;
  return {
    name: input.name,
    domain: input.domain,
    serviceArea: input.service_area,
    lat: location === undefined ? undefined : (location?.lat ?? null),
    lng: location === undefined ? undefined : (location?.lng ?? null),
    defaultTone: input.default_tone,
    brandVoice: input.brand_voice,
    knowledgeBase: input.knowledge_base,
    excludedTopics: input.excluded_topics,
  };
}
