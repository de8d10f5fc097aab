import { randomUUID } from 'node:crypto';
import type { Db } from '../db.ts';
import type { ClientsTable } from '../schema.ts';

export type ClientRow = ClientsTable;

export interface NewClient {
  orgId: string;
  name: string;
  domain?: string | null;
  serviceArea?: string | null;
  serviceLat?: number | null;
  serviceLng?: number | null;
  defaultTone?: string | null;
  brandVoice?: string | null;
  knowledgeBase?: string | null;
  excludedTopics?: string[];
}

export async function createClient(db: Db, input: NewClient, now: number): Promise<ClientRow> {
  const row: ClientRow = {
    id: randomUUID(),
    org_id: input.orgId,
    name: input.name,
    domain: input.domain ?? null,
    service_area: input.serviceArea ?? null,
    service_lat: input.serviceLat ?? null,
    service_lng: input.serviceLng ?? null,
    default_tone: input.defaultTone ?? null,
    brand_voice: input.brandVoice ?? null,
    knowledge_base: input.knowledgeBase ?? null,
    excluded_topics: JSON.stringify(input.excludedTopics ?? []),
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('clients').values(row).execute();
  return row;
}

/** A client by id, whatever its organisation (administration only: the CLI acts on the whole database). */
export async function getClient(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('id', '=', clientId).executeTakeFirst();
}

/** The organisation's oldest client (the one `init` created), or undefined. */
export async function firstClientOf(db: Db, orgId: string): Promise<ClientRow | undefined> {
  return db
    .selectFrom('clients')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** Every client of the organisation, oldest first (administration listings; the API pages with listClients). */
export async function listAllClients(db: Db, orgId: string): Promise<ClientRow[]> {
  return db.selectFrom('clients').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

/** The columns a client update may change. */
export type ClientPatch = Partial<
  Pick<
    ClientRow,
    | 'name'
    | 'domain'
    | 'service_area'
    | 'service_lat'
    | 'service_lng'
    | 'default_tone'
    | 'brand_voice'
    | 'knowledge_base'
    | 'excluded_topics'
  >
>;

/** Applies the patch to the organisation's client; undefined when there is no such client in it. */
export async function updateClient(
  db: Db,
  orgId: string,
  clientId: string,
  patch: ClientPatch,
  now: number,
): Promise<ClientRow | undefined> {
  return db
    .updateTable('clients')
    .set({ ...patch, updated_at: now })
    .where('id', '=', clientId)
    .where('org_id', '=', orgId)
    .returningAll()
    .executeTakeFirst();
}

/** The client when it belongs to the organisation; otherwise undefined (callers answer 404, never 403). */
export async function getOwnedClient(db: Db, orgId: string, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('id', '=', clientId).where('org_id', '=', orgId).executeTakeFirst();
}

export async function listClients(
  db: Db,
  orgId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ClientRow[]; total: number }> {
  const rows = await db
    .selectFrom('clients')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { total } = await db
    .selectFrom('clients')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}
