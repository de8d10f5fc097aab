/**
 * Test clients and servers share starved CPUs (several suites at once on two cores). A process that stalls longer than
 * the server's keep-alive time resumes with both timers overdue: the client reuses a pooled socket that the server
 * closes in the same turn, and the request fails with ECONNRESET. A long keep-alive keeps that race out of the suite;
 * the default (5 s) is tested on its own.
 */
export const KEEP_ALIVE_FOR_TESTS = { AGENT_API_KEEP_ALIVE_TIMEOUT_MS: '120000' } as const;
