import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/** A failed content job or Autopilot run keeps a machine-readable reason beside its message (`insufficient_research`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('content_jobs').addColumn('error_code', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('content_jobs').dropColumn('error_code').execute();
}
