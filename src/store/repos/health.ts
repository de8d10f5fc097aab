import type { Kysely } from 'kysely';
import type { Db } from '../db.ts';

/** One cheap read that proves the database answers (health checks). */
export async function pingDatabase(db: Db): Promise<void> {
  await db.selectFrom('organisations').select('id').limit(1).execute();
}

/** The migrations recorded as applied, in order (Kysely's own bookkeeping table). */
export async function appliedMigrations(db: Db): Promise<string[]> {
  const rows = await (db as unknown as Kysely<{ kysely_migration: { name: string } }>)
    .selectFrom('kysely_migration')
    .select('name')
    .orderBy('name')
    .execute();
  return rows.map((r) => r.name);
}
