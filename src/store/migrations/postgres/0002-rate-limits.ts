import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * PostgreSQL only: the per-key request limiter's state (GCRA: one theoretical arrival time per key), shared by every
 * process of the installation so a key's limit is exact across them. Unlogged: losing it in a crash only forgets
 * the last minute's requests, and writes skip the WAL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create unlogged table rate_limits (
    id text primary key,
    tat double precision not null,
    interval_ms double precision not null,
    allowed boolean not null
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table rate_limits`.execute(db);
}
