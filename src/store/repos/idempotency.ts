import type { Db, TxDb } from '../db.ts';
import type { IdempotencyKeysTable } from '../schema.ts';

export type IdempotencyRow = IdempotencyKeysTable;

/** The record of a key in an organisation, expired or not. */
export async function getIdempotencyRecord(trx: TxDb, orgId: string, key: string): Promise<IdempotencyRow | undefined> {
  return trx
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export async function deleteIdempotencyRecord(trx: TxDb, orgId: string, key: string): Promise<void> {
  await trx.deleteFrom('idempotency_keys').where('org_id', '=', orgId).where('key', '=', key).execute();
}

export async function insertIdempotencyRecord(trx: TxDb, row: IdempotencyRow): Promise<void> {
  await trx.insertInto('idempotency_keys').values(row).execute();
}

/** Deletes records that expired at or before `now`; returns how many. */
export async function deleteExpiredIdempotencyRecords(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
