/**
 * The `postgres` vitest project's global setup: one throwaway PostgreSQL cluster for the whole run (started before any
 * suite, stopped after the last), whose admin URL reaches every worker as AGENT_API_TEST_PG_ADMIN_URL; each test app
 * then gets a fresh database in it (test/helpers/app.ts `testStoreEnv`).
 */
import { startPostgresCluster } from './postgres.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const cluster = await startPostgresCluster();
  process.env.AGENT_API_TEST_PG_ADMIN_URL = cluster.url('postgres');
  process.stderr.write(`PostgreSQL suites: cluster ${cluster.version} on 127.0.0.1:${cluster.port}\n`);
  return () => cluster.stop();
}
