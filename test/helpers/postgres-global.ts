/**
 * The global setup of the PostgreSQL projects: one throwaway cluster for the whole run (started before any suite,
 * stopped after the last), whose admin URL reaches every worker as AGENT_API_TEST_PG_ADMIN_URL; each test app then
 * gets a fresh database in it (test/helpers/app.ts `testStoreEnv`).
 */
import { startPostgresCluster } from './postgres.ts';

export default async function setup(): Promise<() => Promise<void>> {
  // Both PostgreSQL projects list this setup and run in one group: the first one's cluster serves them both.
  if (process.env.AGENT_API_TEST_PG_ADMIN_URL) return async () => undefined;
  const cluster = await startPostgresCluster();
  process.env.AGENT_API_TEST_PG_ADMIN_URL = cluster.url('postgres');
  process.stderr.write(`PostgreSQL suites: cluster ${cluster.version} on 127.0.0.1:${cluster.port}\n`);
  return () => cluster.stop();
}
