import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { PROSPECT_STATUSES } from '../../engine/prospects/contract.ts';
import type {
  OpportunityType,
  ProspectCounters,
  ProspectItemsTable,
  ProspectListsTable,
  ProspectStatus,
} from '../schema.ts';

export type ProspectListRow = ProspectListsTable;
export type ProspectItemRow = ProspectItemsTable;

// The statuses come from the prospects state table; every one has a counter column (`count_<status>`).
export { PROSPECT_STATUSES };

type CountColumn = `count_${ProspectStatus}`;

/** The list column that counts items in `status`. */
export function countColumn(status: ProspectStatus): CountColumn {
  return `count_${status}`;
}

/** Items in the list, from its counters. */
export function itemCount(row: ProspectListRow): number {
  return PROSPECT_STATUSES.reduce((n, s) => n + row[countColumn(s)], 0);
}

export interface NewProspectList {
  id: string;
  orgId: string;
  clientId: string;
  name: string;
  opportunityType: OpportunityType | null;
}

export async function insertProspectList(db: Db, input: NewProspectList, now: number): Promise<ProspectListRow> {
  const row: ProspectListRow = {
    id: input.id,
    org_id: input.orgId,
    client_id: input.clientId,
    name: input.name,
    opportunity_type: input.opportunityType,
    ...(Object.fromEntries(PROSPECT_STATUSES.map((s) => [countColumn(s), 0])) as ProspectCounters),
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('prospect_lists').values(row).execute();
  return row;
}

/** The list when it belongs to this organisation and client; otherwise undefined (callers answer 404). */
export async function getOwnedList(
  db: Db,
  orgId: string,
  clientId: string,
  listId: string,
): Promise<ProspectListRow | undefined> {
  return db
    .selectFrom('prospect_lists')
    .selectAll()
    .where('id', '=', listId)
    .where('org_id', '=', orgId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
}

/** A client's lists, newest-updated first. */
export async function listProspectLists(
  db: Db,
  orgId: string,
  clientId: string,
  page: { limit: number; offset: number },
) {
  const rows = await db
    .selectFrom('prospect_lists')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('client_id', '=', clientId)
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { n } = await db
    .selectFrom('prospect_lists')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/** Deletes the list; its items go with it (ON DELETE CASCADE). True when a row was deleted. */
export async function deleteProspectList(db: Db, listId: string): Promise<boolean> {
  const r = await db.deleteFrom('prospect_lists').where('id', '=', listId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * Moves the list's counters by `delta` per status and its `updated_at` to `now`, in the caller's transaction (the
 * same one that changed the items, so the counts never drift from the rows).
 */
export async function adjustListCounts(
  db: Db,
  listId: string,
  delta: Partial<Record<ProspectStatus, number>>,
  now: number,
): Promise<void> {
  const set: Record<string, unknown> = { updated_at: now };
  for (const [status, d] of Object.entries(delta) as [ProspectStatus, number][]) {
    if (d === 0) continue;
    const column = countColumn(status);
    set[column] = sql`${sql.ref(column)} + ${d}`;
  }
  await db
    .updateTable('prospect_lists')
    .set(set as Partial<ProspectListsTable>)
    .where('id', '=', listId)
    .execute();
}

/**
 * Inserts the item unless the list already holds its dedupe key: the UNIQUE(list_id, dedupe_key) constraint decides,
 * so concurrent saves of two variants leave exactly one row. Answers the new row, or undefined on a conflict.
 */
export async function insertProspectItem(db: Db, row: ProspectItemRow): Promise<ProspectItemRow | undefined> {
  return db
    .insertInto('prospect_items')
    .values(row)
    .onConflict((oc) => oc.columns(['list_id', 'dedupe_key']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function getItemByDedupeKey(
  db: Db,
  listId: string,
  dedupeKey: string,
): Promise<ProspectItemRow | undefined> {
  return db
    .selectFrom('prospect_items')
    .selectAll()
    .where('list_id', '=', listId)
    .where('dedupe_key', '=', dedupeKey)
    .executeTakeFirst();
}

/** The item when it is in this list of this organisation. */
export async function getOwnedItem(
  db: Db,
  orgId: string,
  listId: string,
  itemId: string,
): Promise<ProspectItemRow | undefined> {
  return db
    .selectFrom('prospect_items')
    .selectAll()
    .where('id', '=', itemId)
    .where('list_id', '=', listId)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

/** A page of the list's items, newest first, optionally of one status. */
export async function listProspectItems(
  db: Db,
  listId: string,
  status: ProspectStatus | undefined,
  page: { limit: number; offset: number },
) {
  let q = db.selectFrom('prospect_items').selectAll().where('list_id', '=', listId);
  if (status) q = q.where('status', '=', status);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function updateProspectItem(
  db: Db,
  itemId: string,
  patch: Pick<Partial<ProspectItemRow>, 'status' | 'notes'>,
  now: number,
): Promise<ProspectItemRow> {
  return db
    .updateTable('prospect_items')
    .set({ ...patch, updated_at: now })
    .where('id', '=', itemId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteProspectItem(db: Db, itemId: string): Promise<boolean> {
  const r = await db.deleteFrom('prospect_items').where('id', '=', itemId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
