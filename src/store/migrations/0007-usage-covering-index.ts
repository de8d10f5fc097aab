import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The usage windows are read on every GET /usage and every reservation: with state and units in the index the sums
 * are an index-only scan instead of one table lookup per ledger row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('usage_ledger_org_time_cover')
    .on('usage_ledger')
    .columns(['org_id', 'created_at', 'state', 'units'])
    .execute();
  await db.schema.dropIndex('usage_ledger_org_time').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('usage_ledger_org_time').on('usage_ledger').columns(['org_id', 'created_at']).execute();
  await db.schema.dropIndex('usage_ledger_org_time_cover').execute();
}
