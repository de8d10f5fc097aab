/**
 * Settings every test server gets (in-process apps and spawned processes), before a test's own.
 *
 * A long keep-alive: test clients and servers share starved CPUs (several suites at once on two cores). A process
 * that stalls longer than the server's keep-alive time resumes with both timers overdue: the client reuses a pooled
 * socket that the server closes in the same turn, and the request fails with ECONNRESET. The default (5 s) is tested
 * on its own.
 */
export const TEST_SERVER_ENV = {
  AGENT_API_KEEP_ALIVE_TIMEOUT_MS: '120000',
} as const;
