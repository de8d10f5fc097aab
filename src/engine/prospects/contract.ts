/**
 * The prospects state table: the statuses of an outreach item, in the order lists break them down (and the console
 * shows them), and the opportunity types. Any status may follow any other (`won` -> `identified` records what
 * happened; docs/prospects.md), and none is terminal. The store's column types and per-status counters
 * (src/store/schema.ts, src/store/repos/prospects.ts), the CHECK constraints' values (checked by
 * test/contract/state-tables.test.ts) and the tools' zod enums are made from these tuples.
 */
import { z } from 'zod';
import { Timestamp } from '../../clock.ts';

export const PROSPECT_STATUSES = ['identified', 'contacted', 'in_discussion', 'won', 'passed'] as const;
export type ProspectStatus = (typeof PROSPECT_STATUSES)[number];

/** What each status means (the tools' field descriptions are made from it). */
export const PROSPECT_STATUS_MEANING = {
  identified: 'not yet contacted',
  contacted: null,
  in_discussion: null,
  won: null,
  passed: 'dropped',
} as const satisfies Record<ProspectStatus, string | null>;

/** The status a saved item starts in. */
export const INITIAL_PROSPECT_STATUS = 'identified' satisfies ProspectStatus;

export const OPPORTUNITY_TYPES = [
  'guest_post',
  'link_insertion',
  'resource_page',
  'broken_link',
  'unlinked_mention',
  'digital_pr',
  'partnership',
  'other',
] as const;
export type OpportunityType = (typeof OPPORTUNITY_TYPES)[number];

/** Whether an item at `from` may be set to `to`: always (the update records what happened). */
export function isAllowedProspectMove(_from: ProspectStatus, _to: ProspectStatus): boolean {
  return true;
}

/** Values joined for a description: `a, b, c or d`. */
export function joinOr(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}

// The records the prospects tools answer (the tools re-export them; the views are typed by them).

/** The statuses and opportunity types as zod enums (the tools' inputs and the records). */
const ProspectStatusEnum = z.enum(PROSPECT_STATUSES);
const OpportunityTypeEnum = z.enum(OPPORTUNITY_TYPES);
export { OpportunityTypeEnum as OpportunityType, ProspectStatusEnum as ProspectStatus };

/** Item counts per status, every status of the state table. */
const StatusBreakdown = z.object(
  Object.fromEntries(PROSPECT_STATUSES.map((s) => [s, z.number().int()])) as Record<ProspectStatus, z.ZodNumber>,
);

export const ProspectListRecord = z.object({
  list_id: z.string(),
  client_id: z.string(),
  name: z.string(),
  opportunity_type: OpportunityTypeEnum.nullable(),
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
  opportunity_type: OpportunityTypeEnum.nullable(),
  status: ProspectStatusEnum,
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
