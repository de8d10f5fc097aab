import { z } from 'zod';
import { Timestamp, Uuid } from '../common/schemas.ts';
import { longText, shortText } from '../common/text.ts';
import {
  joinOr,
  OPPORTUNITY_TYPES,
  PROSPECT_STATUS_MEANING,
  PROSPECT_STATUSES,
} from '../../engine/prospects/contract.ts';

export const ProspectStatus = z.enum(PROSPECT_STATUSES);
type ProspectStatusValue = z.infer<typeof ProspectStatus>;
export const OpportunityType = z.enum(OPPORTUNITY_TYPES);

/** One line of text: trimmed, 1 to `max` characters, no control, bidirectional override or lone surrogate. */
export const Line = (max: number) => shortText({ max });

/** Free text (notes): up to `max` characters; line breaks and tabs allowed, other control characters not. */
export const FreeText = (max: number) => longText({ min: 0, max, trim: false });

export { ClientId as ClientIdParam } from '../common/schemas.ts';
export const ListIdParam = Uuid.describe('List id.');

/** The values of the input enums, with what each means (each tool's field description starts from these). */
export const OPPORTUNITY_TYPES_HELP = joinOr(OPPORTUNITY_TYPES);
export const PROSPECT_STATUSES_HELP = joinOr(
  PROSPECT_STATUSES.map((s) => {
    const meaning: string | null = PROSPECT_STATUS_MEANING[s];
    return meaning === null ? s : `${s} (${meaning})`;
  }),
);

/** Item counts per status, every status of the state table. */
const StatusBreakdown = z.object(
  Object.fromEntries(PROSPECT_STATUSES.map((s) => [s, z.number().int()])) as Record<ProspectStatusValue, z.ZodNumber>,
);

export const ProspectListRecord = z.object({
  list_id: z.string(),
  client_id: z.string(),
  name: z.string(),
  opportunity_type: OpportunityType.nullable(),
  item_count: z.number().int(),
  status_breakdown: StatusBreakdown.describe('Item counts for every status, zeros included.'),
  created_at: Timestamp,
  updated_at: Timestamp.describe('Moves whenever an item is saved, updated or deleted.'),
});

export const ProspectItemRecord = z.object({
  item_id: z.string(),
  list_id: z.string(),
  client_id: z.string(),
  url: z.string().describe('The canonical URL: the exact value delete_prospect expects.'),
  domain: z.string().describe('The target host without a leading www.'),
  target_name: z.string().nullable(),
  opportunity_type: OpportunityType.nullable(),
  status: ProspectStatus,
  notes: z.string().nullable(),
  contact_path: z
    .string()
    .nullable()
    .describe('How to reach the target (free text recorded by the caller; never used by the service).'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const SavedProspectRecord = ProspectItemRecord.extend({
  already_saved: z
    .boolean()
    .describe(
      'True when a canonical variant of the URL was already in the list: the existing item, unchanged (HTTP 200).',
    ),
});
