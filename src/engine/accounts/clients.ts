import { iso } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import type { ReadDb } from '../../store/db.ts';
import { getOwnedClient, listClients, type ClientRow } from '../../store/repos/clients.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

export type { ClientRow };

/** Throws 404 unless the client belongs to the organisation (`details` says which field named it, where useful). */
export async function requireOwnedClient(
  db: ReadDb,
  orgId: string,
  clientId: string,
  details?: Record<string, unknown>,
): Promise<ClientRow> {
  const client = await getOwnedClient(db, orgId, clientId);
  if (!client) throw new ApiError('not_found', 'No such client.', details);
  return client;
}

/** A client as the API shows it. */
export function clientView(row: ClientRow) {
  return {
    client_id: row.id,
    name: row.name,
    domain: row.domain,
    service_area: row.service_area,
    service_location:
      row.service_lat !== null && row.service_lng !== null ? { lat: row.service_lat, lng: row.service_lng } : null,
    default_tone: row.default_tone,
    created_at: iso(row.created_at),
  };
}

/**
 * A client with its writing settings, as create_client and update_client answer it: the list view plus
 * `brand_voice`, `knowledge_base`, `excluded_topics` and `updated_at`, stored text returned exactly as saved.
 */
export function clientRecord(row: ClientRow) {
  return {
    ...clientView(row),
    brand_voice: row.brand_voice,
    knowledge_base: row.knowledge_base,
    excluded_topics: JSON_COLUMNS.clients.excluded_topics.read(row.excluded_topics),
    updated_at: iso(row.updated_at),
  };
}

/** The organisation's clients, newest first, as the API shows them. */
export async function listClientViews(db: ReadDb, orgId: string, page: { limit: number; offset: number }) {
  const { rows, total } = await listClients(db, orgId, page);
  return { rows: rows.map(clientView), total };
}
