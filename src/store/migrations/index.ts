import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import { dialectOf, immediate, type Db } from '../db.ts';
import * as m0001 from './0001-foundation.ts';
import * as m0002 from './0002-optimizations.ts';
import * as m0003 from './0003-prospects.ts';
import * as m0004 from './0004-content.ts';
import * as m0005 from './0005-tracker.ts';
import * as m0006 from './0006-mcp-tasks.ts';
import * as m0007 from './0007-usage-covering-index.ts';
import * as m0008 from './0008-usage-hourly.ts';
import * as m0009 from './0009-content-score.ts';
import * as m0010 from './0010-task-scopes.ts';
import * as m0011 from './0011-optimization-model.ts';
import * as m0012 from './0012-content-error-code.ts';
import * as m0013 from './0013-console-sessions.ts';
import * as m0014 from './0014-oauth.ts';
import * as m0015 from './0015-draft-scores.ts';
import * as pg0001 from './postgres/0001-schema.ts';
import * as pg0002 from './postgres/0002-rate-limits.ts';
import * as pg0003 from './postgres/0003-draft-scores.ts';

/** The static, ordered list of frozen migrations. Names sort in the order they must run. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-optimizations': m0002,
  '0003-prospects': m0003,
  '0004-content': m0004,
  '0005-tracker': m0005,
  '0006-mcp-tasks': m0006,
  '0007-usage-covering-index': m0007,
  '0008-usage-hourly': m0008,
  '0009-content-score': m0009,
  '0010-task-scopes': m0010,
  '0011-optimization-model': m0011,
  '0012-content-error-code': m0012,
  '0013-console-sessions': m0013,
  '0014-oauth': m0014,
  '0015-draft-scores': m0015,
};

/** PostgreSQL's own frozen migrations (the same schema, in its words), applied in order like SQLite's. */
export const POSTGRES_MIGRATIONS: Record<string, Migration> = {
  '0001-schema': pg0001,
  '0002-rate-limits': pg0002,
  '0003-draft-scores': pg0003,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };
const postgresProvider: MigrationProvider = { getMigrations: async () => POSTGRES_MIGRATIONS };

/**
 * Brings the database to the newest schema; fails loudly if a migration fails. The whole pass runs in one write
 * transaction that holds the write lock from its start, so two processes starting together migrate once: the second
 * waits for the lock, then finds nothing left to do. A busy answer past the busy timeout is retried.
 */
export async function migrateToLatest(db: Db, attempts = 20): Promise<string[]> {
  // PostgreSQL: Kysely's migrator holds an advisory lock for the whole pass and runs each migration in a
  // transaction, so processes starting together migrate once, the later ones waiting and finding nothing to do.
  if (dialectOf(db) === 'postgres')
    return report(await new Migrator({ db, provider: postgresProvider }).migrateToLatest());
  const migrator = {
    migrateToLatest: () => immediate(db, (trx) => new Migrator({ db: trx, provider }).migrateToLatest()),
  };
  let { error, results } = await migrator.migrateToLatest();
  for (let n = 1; error && isBusy(error) && n < attempts; n++) {
    await new Promise((resolve) => setTimeout(resolve, 25 * n));
    ({ error, results } = await migrator.migrateToLatest());
  }
  return report({ error, results });
}

/** The migrations a pass applied; throws naming the one that failed. */
function report({ error, results }: MigrationResultSet): string[] {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(
      `migration ${failed ?? '(unknown)'} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

function isBusy(err: unknown): boolean {
  return (
    typeof err === 'object' && err !== null && String((err as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')
  );
}

/** The migrations a store of this dialect must have applied to be ready. */
export function expectedMigrations(db: Db): string[] {
  return Object.keys(dialectOf(db) === 'postgres' ? POSTGRES_MIGRATIONS : MIGRATIONS);
}
