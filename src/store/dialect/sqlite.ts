import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import Database from '../../sqlite-driver.ts';
import { Kysely, SqliteDialect, sql, type RawBuilder, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { DB } from '../schema.ts';
import type { DbStats } from '../db.ts';

/**
 * Everything SQLite-specific in the store: opening the file with the settings the engine relies on, the pragma
 * health check, the statement cache, and the few SQL fragments whose spelling differs between dialects. A
 * PostgreSQL dialect provides the same names.
 */

export interface SqliteOpenOptions {
  /** Milliseconds a writer waits for the lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/**
 * Kysely prepares every statement it runs; better-sqlite3 statements are reusable, so cache them by SQL text.
 * The SQL text set is small and fixed (it comes from code, values are parameters), so the cache stays bounded.
 */
function cachingDatabase(raw: BetterSqlite3.Database, stats: DbStats): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => raw.close(),
    prepare(text: string): SqliteStatement {
      let stmt = cache.get(text);
      if (!stmt) {
        const prepared = raw.prepare(text);
        stmt = {
          reader: prepared.reader,
          all: (p) => (stats.statements++, prepared.all(p as unknown[])),
          run: (p) => (stats.statements++, prepared.run(p as unknown[])),
          iterate: (p) => (stats.statements++, prepared.iterate(p as unknown[])),
        };
        if (cache.size < 2_000) cache.set(text, stmt);
      }
      return stmt;
    },
  };
}

/**
 * Opens the SQLite file: WAL, synchronous=FULL (the usage ledger and keys must survive a power cut), foreign keys on,
 * and a busy timeout so concurrent writers queue instead of failing.
 */
export function openSqlite(file: string, stats: DbStats, options: SqliteOpenOptions = {}) {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const raw = new Database(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  raw.pragma(`busy_timeout = ${Math.max(1, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingDatabase(raw, stats) }) });
  return { db, raw };
}

export interface PragmaReport {
  journal_mode: string;
  synchronous: number;
  foreign_keys: number;
  busy_timeout: number;
  integrity_check: string;
}

/** The settings and integrity the server checks at start (docs/reliability.md G.73). */
export function readPragmas(raw: BetterSqlite3.Database): PragmaReport {
  return {
    journal_mode: String(raw.pragma('journal_mode', { simple: true })),
    synchronous: Number(raw.pragma('synchronous', { simple: true })),
    foreign_keys: Number(raw.pragma('foreign_keys', { simple: true })),
    busy_timeout: Number(raw.pragma('busy_timeout', { simple: true })),
    integrity_check: String(raw.pragma('integrity_check', { simple: true })),
  };
}

/** Throws unless the database runs with the settings above and passes its integrity check. */
export function assertHealthyDatabase(raw: BetterSqlite3.Database): PragmaReport {
  const p = readPragmas(raw);
  const problems: string[] = [];
  if (p.journal_mode !== 'wal') problems.push(`journal_mode is ${p.journal_mode}, expected wal`);
  if (p.synchronous !== 2) problems.push(`synchronous is ${p.synchronous}, expected 2 (FULL)`);
  if (p.foreign_keys !== 1) problems.push('foreign_keys is off');
  if (!(p.busy_timeout > 0)) problems.push('busy_timeout is 0');
  if (p.integrity_check !== 'ok') problems.push(`integrity_check: ${p.integrity_check}`);
  if (problems.length) throw new Error(`database is not healthy: ${problems.join('; ')}`);
  return p;
}

/** SQL fragments whose spelling is the dialect's own. */
export const sqliteSql = {
  /**
   * Starts a write transaction holding the write lock from the start, so two writers never deadlock upgrading. SQLite
   * has one writer at a time, so a run's write-back (`alongsideRuns`) takes the same lock.
   */
  beginWrite: (_alongsideRuns = false): RawBuilder<unknown>[] => [sql`begin immediate`],
  /** Case-insensitive substring test; instr avoids LIKE's wildcard escaping. */
  containsInsensitive: (column: string, needle: string): RawBuilder<boolean> =>
    sql<boolean>`instr(lower(${sql.ref(column)}), ${needle.toLowerCase()}) > 0`,
};
