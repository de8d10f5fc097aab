import type { Config } from '../config.ts';
import { assertHealthyDatabase, openDatabase, type OpenedDatabase } from '../store/db.ts';
import { migrateToLatest } from '../store/migrations/index.ts';

/** Opens the configured database for an administrative command, migrated and checked, and closes it after `work`. */
export async function withStore<T>(config: Config, work: (store: OpenedDatabase) => Promise<T>): Promise<T> {
  const store = openDatabase(config.AGENT_API_DB);
  try {
    assertHealthyDatabase(store.raw);
    await migrateToLatest(store.db);
    return await work(store);
  } finally {
    await store.close();
  }
}
