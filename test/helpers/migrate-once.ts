/** Opens the database file named by argv[2] and migrates it; prints how many migrations this process applied. */
import { openDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';

const opened = openDatabase(process.argv[2]!);
try {
  process.stdout.write(`${JSON.stringify({ applied: (await migrateToLatest(opened.db)).length })}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
  process.exitCode = 1;
} finally {
  await opened.close();
}
