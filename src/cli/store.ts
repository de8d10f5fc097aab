import { storeLocation, type Config } from '../config.ts';
import { checkStore, openStore, type OpenedDatabase } from '../store/db.ts';
import { migrateToLatest } from '../store/migrations/index.ts';

/** Opens the configured database for an administrative command, migrated and checked, and closes it after `work`. */
export async function withStore<T>(config: Config, work: (store: OpenedDatabase) => Promise<T>): Promise<T> {
  const store = openStore(storeLocation(config));
  try {
    await checkStore(store);
    await migrateToLatest(store.db);
    return await work(store);
  } finally {
    await store.close();
  }
}
