import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The last draft score of each optimization (score_content), so the next score of the same run can answer what
 * changed since (`delta`). One row per optimization, replaced by each score: only the previous one is ever compared.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('draft_scores')
    .addColumn('optimization_id', 'text', (c) => c.primaryKey().references('optimizations.id').onDelete('cascade'))
    .addColumn('scored_at', 'integer', (c) => c.notNull())
    .addColumn('rankability_score', 'real', (c) => c.notNull())
    .addColumn('figures', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('draft_scores').execute();
}
