import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/** SQLite's 0015-draft-scores in PostgreSQL's words: the last draft score of each optimization. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table "draft_scores" (
    "optimization_id" text primary key references "optimizations" ("id") on delete cascade,
    "scored_at" bigint not null,
    "rankability_score" double precision not null,
    "figures" text not null
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table "draft_scores"`.execute(db);
}
