import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * A finished optimization keeps the compact competitor model it scored against (so draft text can be scored later
 * against the same competitors) and what its summary view adds (the top recommendations, confidence and warnings),
 * so the summary does not parse the whole result.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('optimizations').addColumn('scoring_model', 'text').execute();
  await db.schema.alterTable('optimizations').addColumn('summary_extras', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('optimizations').dropColumn('summary_extras').execute();
  await db.schema.alterTable('optimizations').dropColumn('scoring_model').execute();
}
