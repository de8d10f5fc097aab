import type { z } from 'zod';
import { iso } from '../../clock.ts';
import type { ProspectItemRecord, ProspectListRecord } from './contract.ts';
import {
  countColumn,
  itemCount,
  PROSPECT_STATUSES,
  type ProspectItemRow,
  type ProspectListRow,
} from '../../store/repos/prospects.ts';
import type { ProspectStatus } from '../../store/schema.ts';

/** A list as the API answers it: counts for every status, zeros included. */
export function prospectListView(row: ProspectListRow): z.output<typeof ProspectListRecord> {
  const breakdown = Object.fromEntries(PROSPECT_STATUSES.map((s) => [s, row[countColumn(s)]])) as Record<
    ProspectStatus,
    number
  >;
  return {
    list_id: row.id,
    client_id: row.client_id,
    name: row.name,
    opportunity_type: row.opportunity_type,
    item_count: itemCount(row),
    status_breakdown: breakdown,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** The target's domain: the canonical URL's host without a leading `www.`. */
function domainOf(url: string): string {
  const host = new URL(url).hostname;
  return host.startsWith('www.') && host.slice(4).includes('.') ? host.slice(4) : host;
}

/** An item's compact fields: target identity, canonical url, type, status, notes, contact path, timestamps. */
export function prospectItemView(row: ProspectItemRow): z.output<typeof ProspectItemRecord> {
  return {
    item_id: row.id,
    list_id: row.list_id,
    client_id: row.client_id,
    url: row.url,
    domain: domainOf(row.url),
    target_name: row.target_name,
    opportunity_type: row.opportunity_type,
    status: row.status,
    notes: row.notes,
    contact_path: row.contact_path,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type ProspectListView = ReturnType<typeof prospectListView>;
export type ProspectItemView = ReturnType<typeof prospectItemView>;
