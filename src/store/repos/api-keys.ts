import { randomUUID } from 'node:crypto';
import type { Db } from '../db.ts';
import { preparedQuery } from '../prepared.ts';
import type { ApiKeysTable, Plan, SubscriptionStatus } from '../schema.ts';

export type ApiKeyRow = ApiKeysTable;

export interface KeyWithOrganisation {
  id: string;
  org_id: string;
  scopes: string;
  expires_at: number | null;
  revoked_at: number | null;
  plan: Plan;
  subscription_status: SubscriptionStatus;
}

export async function insertApiKey(
  db: Db,
  input: {
    orgId: string;
    name: string;
    keyHash: string;
    displayPrefix: string;
    scopes: string[];
    expiresAt: number | null;
  },
  now: number,
): Promise<ApiKeyRow> {
  const row: ApiKeyRow = {
    id: randomUUID(),
    org_id: input.orgId,
    name: input.name,
    key_hash: input.keyHash,
    display_prefix: input.displayPrefix,
    scopes: JSON.stringify(input.scopes),
    created_at: now,
    expires_at: input.expiresAt,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return row;
}

const keyByHash = preparedQuery((db: Db, keyHash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('organisations', 'organisations.id', 'api_keys.org_id')
    .select([
      'api_keys.id',
      'api_keys.org_id',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'organisations.plan',
      'organisations.subscription_status',
    ])
    .where('api_keys.key_hash', '=', keyHash),
);

/** The key row with its organisation's plan and subscription, read fresh on every request (no stale cache). */
export async function findKeyByHash(db: Db, keyHash: string): Promise<KeyWithOrganisation | undefined> {
  return (await keyByHash(db, keyHash))[0];
}

export async function revokeApiKey(db: Db, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function listApiKeys(db: Db, orgId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
