/**
 * Global setup of every vitest project. It empties `.test-entries/`, where test workers bundle the scripts they spawn
 * (entry-bundle.ts), so the bundles of scripts written by earlier runs do not pile up. And it makes one web-archive
 * index folder for the whole run, handed to every worker as
 * AGENT_API_TEST_ARCHIVE_INDEX_DIR and from there to every test server (test-env.ts). Without it each test app and
 * each spawned server indexed the sample archive again beside its own fresh database: about 5 s of CPU per server,
 * most of the suite's time. Index files are built to be shared (src/providers/web/archive/index-file.ts: one
 * builder under a lock, the others wait, a finished index renamed into place), so the first server of the run builds
 * it and the rest open it. Tests about building an index name their own folder. The folder is per run, so an index
 * built by older code is never read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): () => void {
  // A run's projects each call this; the first folder serves them all.
  const existing = process.env.AGENT_API_TEST_ARCHIVE_INDEX_DIR;
  if (existing) return () => undefined;
  rmSync(fileURLToPath(new URL('../../.test-entries', import.meta.url)), { recursive: true, force: true });
  const dir = mkdtempSync(join(tmpdir(), 'agent-api-test-index-'));
  process.env.AGENT_API_TEST_ARCHIVE_INDEX_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
