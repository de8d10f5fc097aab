/**
 * The prospects state table: the statuses of an outreach item, in the order lists break them down (and the console
 * shows them), and the opportunity types. Any status may follow any other (`won` -> `identified` records what
 * happened; docs/prospects.md), and none is terminal. The store's column types and per-status counters
 * (src/store/schema.ts, src/store/repos/prospects.ts), the CHECK constraints' values (checked by
 * test/contract/state-tables.test.ts) and the tools' zod enums are made from these tuples.
 */

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
