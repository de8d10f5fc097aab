/**
 * Settings every test server gets (in-process apps and spawned processes), before a test's own.
 *
 * A long keep-alive: test clients and servers share starved CPUs (several suites at once on two cores). A process
 * that stalls longer than the server's keep-alive time resumes with both timers overdue: the client reuses a pooled
 * socket that the server closes in the same turn, and the request fails with ECONNRESET. The default (5 s) is tested
 * on its own.
 *
 * The run's shared web-archive index folder (run-global.ts), when the run has one: servers open the sample
 * archive's index instead of building it again. A test about index building sets its own folder.
 */
export const TEST_SERVER_ENV: Readonly<Record<string, string>> = {
  AGENT_API_KEEP_ALIVE_TIMEOUT_MS: '120000',
  ...(process.env.AGENT_API_TEST_ARCHIVE_INDEX_DIR
    ? { AGENT_API_ARCHIVE_INDEX_DIR: process.env.AGENT_API_TEST_ARCHIVE_INDEX_DIR }
    : {}),
};
