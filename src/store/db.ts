import type Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { assertHealthyDatabase, openSqlite, readPragmas, sqliteSql, type PragmaReport } from './dialect/sqlite.ts';

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
}

export interface OpenedDatabase {
  db: Db;
  stats: DbStats;
  /** The raw handle, for pragma checks and the runner benchmark's baseline. */
  raw: Database.Database;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Milliseconds a writer waits for the lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/** Opens the embedded SQLite database (store/dialect/sqlite.ts has its settings). */
export function openDatabase(file: string, options: OpenOptions = {}): OpenedDatabase {
  const stats: DbStats = { statements: 0 };
  const { db, raw } = openSqlite(file, stats, options);
  return { db, stats, raw, close: () => db.destroy() };
}

export { assertHealthyDatabase, readPragmas, type PragmaReport };

/** The dialect's own SQL fragments for a handle (SQLite today; the store keeps dialect spellings in one place). */
export function dialectSql(_db: Db) {
  return sqliteSql;
}

/** Connection-bound Kysely instances that are inside `immediate`, so nested calls join the open transaction. */
const inImmediate = new WeakSet<Db>();

/**
 * Runs `work` in one write transaction that holds the write lock from its start, so two processes never deadlock
 * upgrading a read lock, and the busy timeout queues them. `work` must not wait on the network: the connection (and
 * every other query of this process) waits with it.
 */
export async function immediate<T>(db: Db, work: (trx: TxDb) => Promise<T>): Promise<T> {
  if (db.isTransaction || inImmediate.has(db)) return work(db as TxDb);
  return db.connection().execute(async (conn) => {
    inImmediate.add(conn);
    await dialectSql(conn).beginWrite().execute(conn);
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
