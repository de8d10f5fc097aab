import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, POSTGRES_MIGRATIONS } from '../../src/store/migrations/index.ts';
import { storeEnvFor } from '../helpers/app.ts';
import { bundledEntry } from '../helpers/entry-bundle.ts';
import { onPostgres } from '../helpers/store.ts';
import { tempDir } from '../helpers/temp.ts';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../helpers/migrate-once.ts', import.meta.url));

describe('migrations', () => {
  const tmp = tempDir('agent-api-migrate-');
  afterAll(() => tmp.cleanup());

  it('three processes migrating one fresh database at once apply every migration exactly once between them', async () => {
    // On PostgreSQL (the postgres project) the store is a fresh database of the run's cluster.
    const env = await storeEnvFor(tmp.dbPath);
    const where = env.AGENT_API_DATABASE_URL ?? tmp.dbPath;
    const script = await bundledEntry(SCRIPT);
    const outputs = await Promise.all([1, 2, 3].map(() => run(process.execPath, [script, where], { timeout: 60_000 })));
    const results = outputs.map((o) => JSON.parse(o.stdout) as { applied?: number; error?: string });
    expect(results.filter((r) => r.error)).toEqual([]);
    const expected = Object.keys(onPostgres ? POSTGRES_MIGRATIONS : MIGRATIONS).length;
    expect(results.reduce((n, r) => n + (r.applied ?? 0), 0)).toBe(expected);
  });
});
