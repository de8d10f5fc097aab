import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory for one test's database files; removed by the returned cleanup. */
export function tempDir(prefix = 'agent-api-test-'): { dir: string; dbPath: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, dbPath: join(dir, 'agent-api.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
