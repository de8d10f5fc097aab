/**
 * Opens the store named by argv[2] (a SQLite file, or a postgres:// URL) and migrates it; prints how many migrations
 * this process applied.
 */
import { openStore } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';

const where = process.argv[2]!;
const opened = openStore({ url: /^postgres(ql)?:/.test(where) ? where : undefined, file: where });
try {
  process.stdout.write(`${JSON.stringify({ applied: (await migrateToLatest(opened.db)).length })}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
  process.exitCode = 1;
} finally {
  await opened.close();
}
