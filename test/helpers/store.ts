import { openStore, type Db, type OpenedDatabase } from '../../src/store/db.ts';
import { storeEnvFor } from './app.ts';
import { tempDir } from './temp.ts';

/**
 * A fresh store of the test run's dialect, opened in this process: a SQLite file in a temporary directory, or (with
 * AGENT_API_TEST_DIALECT=postgres) a fresh PostgreSQL database. `env` opens the same store in a spawned server (or
 * `startTestApp({ dbPath })`), so tests that drive real processes run on both dialects.
 */
export interface TestStore {
  /** The handle this process opened (not migrated: callers run migrateToLatest, as with openDatabase). */
  opened: OpenedDatabase;
  db: Db;
  /** The SQLite file; on PostgreSQL, the path that names the store (startTestApp's `dbPath`). */
  dbPath: string;
  /** `AGENT_API_DB`, and `AGENT_API_DATABASE_URL` on PostgreSQL. */
  env: Record<string, string>;
  /** Another handle on the same store (a second process's connection); the caller closes it. */
  open(): OpenedDatabase;
  /** Closes this handle and removes the temporary directory. */
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const tmp = tempDir();
  const env = await storeEnvFor(tmp.dbPath);
  const open = () => openStoreOf(env);
  const opened = open();
  return {
    opened,
    db: opened.db,
    dbPath: tmp.dbPath,
    env,
    open,
    async close() {
      await opened.close();
      tmp.cleanup();
    },
  };
}

/** Opens the store that settings name (a TestStore's `env`, a test app's `storeEnv`), as a process given them would. */
export function openStoreOf(env: Record<string, string>): OpenedDatabase {
  return openStore({ url: env.AGENT_API_DATABASE_URL, file: env.AGENT_API_DB! });
}

/** True when this run's stores are PostgreSQL (the tests that are SQLite-only by nature skip on it). */
export const onPostgres = process.env.AGENT_API_TEST_DIALECT === 'postgres';
