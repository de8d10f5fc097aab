import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/** A content job's draft scored against its researched pages (JSON), written by the pipeline's scoring stage. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('content_artifacts').addColumn('score', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('content_artifacts').dropColumn('score').execute();
}
