import type Database from 'better-sqlite3';
import type { Pool } from 'pg';
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { assertHealthyDatabase, openSqlite, readPragmas, sqliteSql, type PragmaReport } from './dialect/sqlite.ts';
import { assertHealthyPostgres, openPostgres, postgresSql } from './dialect/postgres.ts';

export type Db = Kysely<DB>;

declare const txBrand: unique symbol;
/**
 * A database handle inside a write transaction (`immediate`). Functions that must run inside one take a TxDb, so a
 * write cannot be made on the root connection by mistake, and a handler given only a TxDb cannot query the root
 * connection (which would wait for its own transaction: a deadlock).
 */
export type TxDb = Db & { readonly [txBrand]: true };
/** A handle for reads: the root connection, or a transaction. */
export type ReadDb = Db;

/** Counts of statements executed, so tests can prove a path never touched the database (docs/reliability.md A.2). */
export interface DbStats {
  statements: number;
  /**
   * Of those, the statements of the limiters kept in the database (PostgreSQL's shared request and failed-auth
   * limits): with them a refused request touches one row of its own, and nothing else.
   */
  limiter: number;
}

export type Dialect = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Db;
  stats: DbStats;
  dialect: Dialect;
  /**
   * SQLite's raw handle, for pragma checks, SQLite-only tests and the runner benchmark's baseline. On PostgreSQL,
   * reading it throws: code that needs it is SQLite-only by nature.
   */
  raw: Database.Database;
  /** PostgreSQL's pool, for its metrics; null on SQLite. */
  pool: Pool | null;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Milliseconds a writer waits for the lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/** Opens the embedded SQLite database (store/dialect/sqlite.ts has its settings). */
export function openDatabase(file: string, options: OpenOptions = {}): OpenedDatabase {
  const stats: DbStats = { statements: 0, limiter: 0 };
  const { db, raw } = openSqlite(file, stats, options);
  return { db, stats, dialect: 'sqlite', raw, pool: null, close: () => db.destroy() };
}

/** Where the store lives: a PostgreSQL URL when one is set (AGENT_API_DATABASE_URL), else the SQLite file. */
export interface StoreLocation {
  url?: string | undefined;
  file: string;
  /** PostgreSQL connections per process. */
  poolSize?: number;
}

/** Opens the store the settings name: PostgreSQL (store/dialect/postgres.ts) or the embedded SQLite file. */
export function openStore(where: StoreLocation, options: OpenOptions = {}): OpenedDatabase {
  if (!where.url) return openDatabase(where.file, options);
  const stats: DbStats = { statements: 0, limiter: 0 };
  const { db, pool } = openPostgres(where.url, stats, { poolSize: where.poolSize });
  return {
    db,
    stats,
    dialect: 'postgres',
    get raw(): Database.Database {
      throw new Error('the raw SQLite handle was asked for, but the store is PostgreSQL');
    },
    pool,
    close: () => db.destroy(),
  };
}

/** Throws unless the store is usable: SQLite's settings and integrity, or a reachable, recent PostgreSQL. */
export async function checkStore(opened: OpenedDatabase): Promise<void> {
  if (opened.dialect === 'sqlite') assertHealthyDatabase(opened.raw);
  else await assertHealthyPostgres(opened.db);
}

export { assertHealthyDatabase, readPragmas, type PragmaReport };

/** The dialect of a handle (the root connection or any transaction of it). */
export function dialectOf(db: Db): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** The dialect's own SQL fragments for a handle (the store keeps dialect spellings in one place per dialect). */
export function dialectSql(db: Db) {
  return dialectOf(db) === 'postgres' ? postgresSql : sqliteSql;
}

/** Connection-bound Kysely instances that are inside `immediate`, so nested calls join the open transaction. */
const inImmediate = new WeakSet<Db>();

/**
 * Runs `work` in one write transaction that holds the write lock from its start, so two processes never deadlock
 * upgrading a read lock, and the busy timeout queues them. `work` must not wait on the network: the connection (and
 * every other query of this process) waits with it. `alongsideRuns`: a run's fenced write-back, which on PostgreSQL
 * may run alongside other runs' write-backs, never alongside an operation's transaction (dialect/postgres.ts).
 */
export async function immediate<T>(
  db: Db,
  work: (trx: TxDb) => Promise<T>,
  options: { alongsideRuns?: boolean } = {},
): Promise<T> {
  if (db.isTransaction || inImmediate.has(db)) return work(db as TxDb);
  return db.connection().execute(async (conn) => {
    inImmediate.add(conn);
    for (const statement of dialectSql(conn).beginWrite(options.alongsideRuns)) await statement.execute(conn);
    try {
      const result = await work(conn as TxDb);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}

/**
 * Runs `work` behind a savepoint of the open transaction: when it throws, only its writes are rolled back and the
 * transaction goes on; the error is rethrown.
 */
export async function withSavepoint<T>(trx: TxDb, name: string, work: () => Promise<T>): Promise<T> {
  const point = sql.id(name);
  await sql`savepoint ${point}`.execute(trx);
  try {
    const result = await work();
    await sql`release savepoint ${point}`.execute(trx);
    return result;
  } catch (err) {
    await sql`rollback to savepoint ${point}`.execute(trx);
    await sql`release savepoint ${point}`.execute(trx);
    throw err;
  }
}
