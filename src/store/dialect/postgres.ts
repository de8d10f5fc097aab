import pg from 'pg';
import { Kysely, PostgresDialect, sql, type RawBuilder } from 'kysely';
import type { DB } from '../schema.ts';
import type { DbStats } from '../db.ts';

/**
 * Everything PostgreSQL-specific in the store (AGENT_API_DATABASE_URL): the connection pool, how values come back,
 * the writer lock, and the SQL fragments whose spelling differs from SQLite's (store/dialect/sqlite.ts has the same
 * names).
 *
 * - Numbers: timestamps and counters are `bigint` columns holding milliseconds and counts far below 2^53, so `int8`
 *   (and the `numeric` that `sum()` of a bigint answers) is read as a JavaScript number, as SQLite's driver does.
 * - Writers: `immediate()` transactions take one transaction-scoped advisory lock, so operations' writes across every
 *   process of an installation are serialised exactly as SQLite's `BEGIN IMMEDIATE` serialises them within one file:
 *   the engine's read-then-write checks (usage windows, idempotency records, state moves) keep their meaning. The
 *   runner's fenced write-backs take the same lock shared: they run alongside each other (each writes only its own
 *   run's rows, behind the lease token, and the ledger and counters by single atomic statements) but never alongside
 *   an operation's transaction. So do claims, which enter the claimed step's stage in the same transaction; lease
 *   renewals take no advisory lock, only row locks.
 */

export interface PostgresOpenOptions {
  /** Connections in the pool (AGENT_API_DATABASE_POOL_SIZE). */
  poolSize?: number;
}

/** The advisory lock key every writer transaction takes (an arbitrary constant: "agap" in ASCII). */
export const WRITER_LOCK_KEY = 0x61676170;

const INT8 = 20;
const NUMERIC = 1700;

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC
      ? (v: string) => (v === null ? null : Number(v))
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

/** Opens a pool on the URL; every statement counts in `stats` (tests prove some paths never query). */
export function openPostgres(url: string, stats: DbStats, options: PostgresOpenOptions = {}) {
  const pool = new pg.Pool({
    connectionString: url,
    max: Math.max(1, options.poolSize ?? 10),
    types,
    // A connection that cannot be had in this time is an error, not an endless wait.
    connectionTimeoutMillis: 10_000,
  });
  // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: () => {
      stats.statements++;
    },
  });
  return { db, pool };
}

/** Throws unless the server answers and is a PostgreSQL this store supports (13 or later). */
export async function assertHealthyPostgres(db: Kysely<DB>): Promise<{ version: number }> {
  const r = await sql<{ v: string }>`select current_setting('server_version_num') as v`.execute(db);
  const version = Number(r.rows[0]?.v ?? 0);
  if (!(version >= 130000)) throw new Error(`database is not healthy: PostgreSQL ${version} is older than 13`);
  return { version };
}

/** SQL fragments whose spelling is PostgreSQL's. */
export const postgresSql = {
  /**
   * Starts a write transaction and takes the writer lock, shared for a run's write-back (released at its end). Both
   * statements go in one round trip: a query without parameters is sent as a simple query, which may hold several.
   */
  beginWrite: (alongsideRuns = false): RawBuilder<unknown>[] => [
    sql.raw(`begin; select pg_advisory_xact_lock${alongsideRuns ? '_shared' : ''}(${WRITER_LOCK_KEY})`),
  ],
  containsInsensitive: (column: string, needle: string): RawBuilder<boolean> =>
    sql<boolean>`strpos(lower(${sql.ref(column)}), ${needle.toLowerCase()}) > 0`,
};
