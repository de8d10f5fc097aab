import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { TestApp, TestResponse } from '../helpers/app.ts';
import { countRows, sqlRows } from '../helpers/rows.ts';

/** Shared shapes and calls for the prospect tests: REST paths, bodies and counts of what a call left behind. */

export type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };
export type ListBody = {
  list_id: string;
  client_id: string;
  name: string;
  opportunity_type: string | null;
  item_count: number;
  status_breakdown: Record<string, number>;
  created_at: string;
  updated_at: string;
};
export type ItemBody = {
  item_id: string;
  list_id: string;
  client_id: string;
  url: string;
  domain: string;
  target_name: string | null;
  opportunity_type: string | null;
  status: string;
  notes: string | null;
  contact_path: string | null;
  created_at: string;
  updated_at: string;
  already_saved?: boolean;
};
export type Page<T> = { data: T[]; pagination: { limit: number; offset: number; total: number; has_more: boolean } };
export type Any = ErrorBody & ListBody & ItemBody & Page<ListBody & ItemBody> & Record<string, unknown>;

export const listsPath = (clientId: string) => `/clients/${clientId}/prospect-lists`;
export const listPath = (clientId: string, listId: string) => `/clients/${clientId}/prospect-lists/${listId}`;
export const itemsPath = (clientId: string, listId: string) => `/clients/${clientId}/prospect-lists/${listId}/items`;
export const itemPath = (clientId: string, listId: string, itemId: string) =>
  `/clients/${clientId}/prospect-lists/${listId}/items/${itemId}`;

/**
 * A caller bound to one key. Every call moves the fake clock by one second afterwards: timestamps differ between
 * calls (ordering is observable) and the per-key rate limit refills, so long loops never hit 429 by accident.
 * `idem` undefined means a fresh random Idempotency-Key; null sends none.
 */
export function caller(t: TestApp, key: string) {
  async function call(
    method: string,
    path: string,
    opts: { body?: unknown; idem?: string | null; query?: Record<string, string | number> } = {},
  ): Promise<TestResponse<Any>> {
    const headers: Record<string, string> = {};
    if (method !== 'GET') {
      const idem = opts.idem === undefined ? `k-${randomUUID()}` : opts.idem;
      if (idem !== null) headers['idempotency-key'] = idem;
    }
    const r = await t.request<Any>(method, path, { key, body: opts.body, headers, query: opts.query });
    t.clock.advance(1_000);
    return r;
  }
  return {
    call,
    createList: (clientId: string, body: Record<string, unknown> = { name: 'List' }, idem?: string | null) =>
      call('POST', listsPath(clientId), { body, idem }),
    lists: (clientId: string, query: Record<string, string | number> = {}) =>
      call('GET', listsPath(clientId), { query }),
    items: (clientId: string, listId: string, query: Record<string, string | number> = {}) =>
      call('GET', itemsPath(clientId, listId), { query }),
    save: (clientId: string, listId: string, body: Record<string, unknown>, idem?: string | null) =>
      call('POST', itemsPath(clientId, listId), { body, idem }),
    update: (clientId: string, listId: string, itemId: string, body: Record<string, unknown>, idem?: string | null) =>
      call('PATCH', itemPath(clientId, listId, itemId), { body, idem }),
    deleteItem: (clientId: string, listId: string, url: string, idem?: string | null) =>
      call('DELETE', itemsPath(clientId, listId), { body: { url }, idem }),
    deleteList: (clientId: string, listId: string, name: string, idem?: string | null) =>
      call('DELETE', listPath(clientId, listId), { body: { name }, idem }),
  };
}

export type Caller = ReturnType<typeof caller>;

/** Rows of the prospect tables and idempotency records an organisation has. */
export async function footprint(t: TestApp, orgId: string) {
  return {
    lists: await countRows(t.db, 'prospect_lists', { org_id: orgId }),
    items: await countRows(t.db, 'prospect_items', { org_id: orgId }),
    keys: await countRows(t.db, 'idempotency_keys', { org_id: orgId }),
  };
}

/** Every list's counters against a GROUP BY over its items: the invariant the counters keep. */
export async function countersDrift(t: TestApp): Promise<unknown[]> {
  const tally = (status: string) => sql`coalesce(sum(case when i.status = ${status} then 1 else 0 end), 0)`;
  return sqlRows(
    t.db,
    sql`SELECT * FROM (
          SELECT l.id, l.count_identified, l.count_contacted, l.count_in_discussion, l.count_won, l.count_passed,
                 ${tally('identified')} AS identified, ${tally('contacted')} AS contacted,
                 ${tally('in_discussion')} AS in_discussion, ${tally('won')} AS won, ${tally('passed')} AS passed
            FROM prospect_lists l LEFT JOIN prospect_items i ON i.list_id = l.id
           GROUP BY l.id, l.count_identified, l.count_contacted, l.count_in_discussion, l.count_won, l.count_passed
        ) AS c
       WHERE count_identified != identified OR count_contacted != contacted OR count_in_discussion != in_discussion
          OR count_won != won OR count_passed != passed`,
  );
}
