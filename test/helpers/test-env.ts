import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Settings every test server gets (in-process apps and spawned processes), before a test's own.
 * - A long keep-alive. Test clients and servers share starved CPUs (several suites at once on two cores). A process
 *   that stalls longer than the server's keep-alive time resumes with both timers overdue: the client reuses a pooled
 *   socket that the server closes in the same turn, and the request fails with ECONNRESET. The default (5 s) is tested
 *   on its own.
 * - One archive index folder for the whole run: the sample archive is indexed once (processes share the build through
 *   the index's lock) instead of once per test server, which under load kept each new server's event loop busy for
 *   seconds. Tests of the index itself use their own folders.
 */
export const TEST_SERVER_ENV = {
  AGENT_API_KEEP_ALIVE_TIMEOUT_MS: '120000',
  AGENT_API_ARCHIVE_INDEX_DIR: join(tmpdir(), `agent-api-test-archive-index-${process.getuid?.() ?? 'user'}`),
} as const;
