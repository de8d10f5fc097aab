import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Db } from '../../store/db.ts';
import type { OpportunityType, ProspectStatus } from '../../store/schema.ts';
import { getOwnedClient } from '../../store/repos/clients.ts';
import {
  adjustListCounts,
  deleteProspectItem,
  deleteProspectList,
  getItemByDedupeKey,
  getOwnedItem,
  getOwnedList,
  insertProspectItem,
  insertProspectList,
  itemCount,
  listProspectItems,
  listProspectLists,
  countColumn,
  updateProspectItem,
  type ProspectListRow,
} from '../../store/repos/prospects.ts';
import type { EngineServices } from '../engine.ts';
import type { EngineProviders } from '../providers.ts';
import { normalizeProspectUrl, type NormalizeResult } from './normalize-url.ts';
import { prospectItemView, prospectListView, type ProspectItemView, type ProspectListView } from './views.ts';

/**
 * Outreach lists record state only: nothing here fetches a URL, resolves a name or contacts anyone. Every function
 * that writes runs inside the caller's `BEGIN IMMEDIATE` transaction (the operation's, with its idempotency record),
 * so an item change and its list's counters commit together.
 */

type Page = { limit: number; offset: number };
type UrlCheck = EngineProviders['checkUrl'];

/**
 * Normalises a URL to save and applies the SSRF host policy to it (no DNS, no I/O): the text as sent and the
 * canonical form must both pass, so normalisation can never turn a refused URL into an accepted one.
 */
export function prepareProspectUrl(raw: string, checkUrl: UrlCheck): NormalizeResult {
  const normalized = normalizeProspectUrl(raw);
  if (!normalized.ok) return normalized;
  for (const candidate of [raw.trim(), normalized.value.canonical]) {
    const checked = checkUrl(candidate);
    if (!checked.ok) return { ok: false, reason: `URL is not allowed: ${checked.reason}.` };
  }
  return normalized;
}

function badUrl(reason: string): ApiError {
  return new ApiError('invalid_input', `Invalid input: url.`, { fields: [{ path: 'url', message: reason }] });
}

/** 404 unless the client belongs to the organisation (same answer for foreign and missing). */
export async function requireClient(db: Db, orgId: string, clientId: string): Promise<void> {
  if (!(await getOwnedClient(db, orgId, clientId))) throw new ApiError('not_found', 'No such client.');
}

/** The list after checking the client and then the list belong to the organisation; 404 otherwise. */
export async function requireList(db: Db, orgId: string, clientId: string, listId: string): Promise<ProspectListRow> {
  await requireClient(db, orgId, clientId);
  const list = await getOwnedList(db, orgId, clientId, listId);
  if (!list) throw new ApiError('not_found', 'No such prospect list.');
  return list;
}

export async function listLists(
  db: Db,
  orgId: string,
  clientId: string,
  page: Page,
): Promise<{ rows: ProspectListView[]; total: number }> {
  await requireClient(db, orgId, clientId);
  const { rows, total } = await listProspectLists(db, orgId, clientId, page);
  return { rows: rows.map(prospectListView), total };
}

export interface CreateList {
  client_id: string;
  name: string;
  opportunity_type: OpportunityType | null;
}

export async function createList(
  engine: EngineServices,
  trx: Db,
  orgId: string,
  input: CreateList,
): Promise<ProspectListView> {
  await requireClient(trx, orgId, input.client_id);
  const row = await insertProspectList(
    trx,
    { id: randomUUID(), orgId, clientId: input.client_id, name: input.name, opportunityType: input.opportunity_type },
    engine.clock.now(),
  );
  return prospectListView(row);
}

/** A page of a list's items, newest first; the total comes from the list's counters (no count over the items). */
export async function listItems(
  db: Db,
  orgId: string,
  input: { client_id: string; list_id: string; status?: ProspectStatus },
  page: Page,
) {
  const list = await requireList(db, orgId, input.client_id, input.list_id);
  const rows = await listProspectItems(db, list.id, input.status, page);
  const total = input.status ? list[countColumn(input.status)] : itemCount(list);
  return { rows: rows.map(prospectItemView), total };
}

export interface SaveProspect {
  client_id: string;
  list_id: string;
  url: string;
  target_name: string | null;
  /** Absent: the list's opportunity type. */
  opportunity_type?: OpportunityType | null;
  status: ProspectStatus;
  notes: string | null;
  contact_path: string | null;
}

/**
 * Saves one known prospect. When the list already holds a canonical variant of the URL, answers that item unchanged
 * (`created: false`): a save never overwrites; changes go through update.
 */
export async function saveProspect(
  engine: EngineServices,
  trx: Db,
  orgId: string,
  input: SaveProspect,
): Promise<{ created: boolean; item: ProspectItemView }> {
  const prepared = prepareProspectUrl(input.url, engine.providers.checkUrl);
  if (!prepared.ok) throw badUrl(prepared.reason);
  const list = await requireList(trx, orgId, input.client_id, input.list_id);
  const now = engine.clock.now();
  const inserted = await insertProspectItem(trx, {
    id: randomUUID(),
    list_id: list.id,
    org_id: orgId,
    client_id: list.client_id,
    url: prepared.value.canonical,
    dedupe_key: prepared.value.dedupeKey,
    target_name: input.target_name,
    opportunity_type: input.opportunity_type === undefined ? list.opportunity_type : input.opportunity_type,
    status: input.status,
    notes: input.notes,
    contact_path: input.contact_path,
    created_at: now,
    updated_at: now,
  });
  if (inserted) {
    await adjustListCounts(trx, list.id, { [inserted.status]: 1 }, now);
    return { created: true, item: prospectItemView(inserted) };
  }
  const existing = await getItemByDedupeKey(trx, list.id, prepared.value.dedupeKey);
  if (!existing) throw new Error('prospect insert conflicted but no row holds its dedupe key');
  return { created: false, item: prospectItemView(existing) };
}

export interface UpdateProspect {
  client_id: string;
  list_id: string;
  item_id: string;
  status?: ProspectStatus;
  /** Absent: unchanged; null: cleared. */
  notes?: string | null;
}

/**
 * Records what happened elsewhere: any status may follow any other. A call that changes nothing answers the item
 * as it is and moves no timestamp; a real change moves the item's and the list's `updated_at`.
 */
export async function updateProspect(
  engine: EngineServices,
  trx: Db,
  orgId: string,
  input: UpdateProspect,
): Promise<ProspectItemView> {
  const list = await requireList(trx, orgId, input.client_id, input.list_id);
  const item = await getOwnedItem(trx, orgId, list.id, input.item_id);
  if (!item) throw new ApiError('not_found', 'No such prospect.');
  const patch: { status?: ProspectStatus; notes?: string | null } = {};
  if (input.status !== undefined && input.status !== item.status) patch.status = input.status;
  if (input.notes !== undefined && input.notes !== item.notes) patch.notes = input.notes;
  if (Object.keys(patch).length === 0) return prospectItemView(item);
  const now = engine.clock.now();
  const updated = await updateProspectItem(trx, item.id, patch, now);
  await adjustListCounts(trx, list.id, patch.status ? { [item.status]: -1, [patch.status]: 1 } : {}, now);
  return prospectItemView(updated);
}

/**
 * Deletes the item whose saved (canonical) url is exactly `url`. A URL that is only a canonical variant of a saved
 * one is a 409 `confirmation_mismatch`; a URL matching nothing in the list is a 404.
 */
export async function deleteProspect(
  engine: EngineServices,
  trx: Db,
  orgId: string,
  input: { client_id: string; list_id: string; url: string },
) {
  const list = await requireList(trx, orgId, input.client_id, input.list_id);
  const normalized = normalizeProspectUrl(input.url);
  if (!normalized.ok) throw badUrl(normalized.reason);
  const item = await getItemByDedupeKey(trx, list.id, normalized.value.dedupeKey);
  if (!item || item.org_id !== orgId) throw new ApiError('not_found', 'No prospect with this url in the list.');
  if (item.url !== input.url) {
    throw new ApiError('confirmation_mismatch', "url must be the item's exact saved url (its url field).", {
      field: 'url',
    });
  }
  await deleteProspectItem(trx, item.id);
  await adjustListCounts(trx, list.id, { [item.status]: -1 }, engine.clock.now());
  return { deleted: true as const, item_id: item.id, list_id: list.id, url: item.url };
}

/** Deletes the list and its item memberships, confirmed by its exact current name; nothing else is touched. */
export async function deleteList(trx: Db, orgId: string, input: { client_id: string; list_id: string; name: string }) {
  const list = await requireList(trx, orgId, input.client_id, input.list_id);
  if (list.name !== input.name) {
    throw new ApiError('confirmation_mismatch', "name must be the list's exact current name.", { field: 'name' });
  }
  await deleteProspectList(trx, list.id);
  return { deleted: true as const, list_id: list.id, name: list.name, items_deleted: itemCount(list) };
}
