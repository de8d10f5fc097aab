import { createApp, type App, type AppOptions } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import type { Plan, SubscriptionStatus } from '../../src/store/schema.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createClient, type NewClient } from '../../src/store/repos/clients.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import type { Logger } from '../../src/logger.ts';
import { captureLogger } from './logs.ts';
import { createFakeClock, type FakeClock } from './clock.ts';
import { tempDir } from './temp.ts';
import { TEST_SERVER_ENV } from './test-env.ts';
import { readJsonAnswer, type JsonAnswer } from './json-answer.ts';

/**
 * The store a test app uses: the SQLite file, or with AGENT_API_TEST_DIALECT=postgres (the `postgres` vitest project)
 * a fresh database in the test run's PostgreSQL cluster, so the same suites run on both dialects.
 */
export async function testStoreEnv(): Promise<Record<string, string>> {
  if (process.env.AGENT_API_TEST_DIALECT !== 'postgres') return {};
  const admin = process.env.AGENT_API_TEST_PG_ADMIN_URL!;
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  const name = `t_${Math.random().toString(36).slice(2, 12)}`;
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { AGENT_API_DATABASE_URL: url.toString() };
}

/** The store settings given to each database file path, so a path names one store on either dialect. */
const stores = new Map<string, Promise<Record<string, string>>>();

/**
 * The settings that open the store named by `dbPath`: `AGENT_API_DB`, and on PostgreSQL the `AGENT_API_DATABASE_URL` of
 * the database created for that path the first time it was asked for (testStoreEnv). Every app started with the same
 * `dbPath` (restart tests), and every process spawned with these settings, shares one store on both dialects.
 */
export async function storeEnvFor(dbPath: string): Promise<Record<string, string>> {
  let env = stores.get(dbPath);
  if (!env) {
    env = testStoreEnv();
    stores.set(dbPath, env);
  }
  return { ...(await env), AGENT_API_DB: dbPath };
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: FakeClock;
  logger?: Logger;
  operations?: AppOptions['operations'];
  pipelines?: AppOptions['pipelines'];
  /** Start the runner's polling loop (tests usually drive it with runUntilIdle). */
  background?: boolean;
  runnerOwner?: string;
  /**
   * Reuse an existing store (restart tests): the database file, or on PostgreSQL the database the first app started
   * with this path was given (storeEnvFor).
   */
  dbPath?: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
}

export type TestResponse<T = Record<string, unknown>> = JsonAnswer<T>;

/**
 * A real app on a real store (a SQLite file, or a PostgreSQL database: testStoreEnv), listening on a loopback port,
 * with a fake clock and a captured logger.
 * Helpers create organisations, clients and keys straight in the store.
 */
export async function startTestApp(options: TestAppOptions = {}) {
  const tmp = options.dbPath ? null : tempDir();
  const dbPath = options.dbPath ?? tmp!.dbPath;
  const clock = options.clock ?? createFakeClock();
  const logs = options.logger ? null : captureLogger('info');
  const storeEnv = await storeEnvFor(dbPath);
  const config = loadConfig({
    ...storeEnv,
    AGENT_API_LOG_LEVEL: 'info',
    AGENT_API_RETRY_BASE_MS: '1000',
    ...TEST_SERVER_ENV,
    ...options.env,
  });
  const app: App = await createApp({
    config,
    clock,
    logger: options.logger ?? logs!.logger,
    operations: options.operations,
    pipelines: options.pipelines,
    runnerOwner: options.runnerOwner,
  });
  const { url, port } = await app.listen('127.0.0.1', 0);
  if (options.background) await app.startBackground();
  const db = app.database.db;

  async function org(plan: Plan = 'starter', subscription: SubscriptionStatus = 'active', name = 'Test org') {
    return createOrganisation(db, { name, plan, subscription }, clock.now());
  }
  async function client(orgId: string, extra: Partial<NewClient> = {}) {
    return createClient(db, { name: 'Test client', ...extra, orgId }, clock.now());
  }
  async function key(orgId: string, scopes: readonly string[] = SCOPES, expiresAt: number | null = null) {
    return issueApiKey(db, { orgId, scopes, expiresAt }, clock.now());
  }
  /** An organisation with a client and an all-scope key. */
  async function tenant(plan: Plan = 'starter', subscription: SubscriptionStatus = 'active') {
    const o = await org(plan, subscription);
    const c = await client(o.id);
    const k = await key(o.id);
    return { orgId: o.id, clientId: c.id, key: k.apiKey, keyId: k.keyId };
  }

  async function request<T = Record<string, unknown>>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<TestResponse<T>> {
    const target = new URL(
      path.startsWith('/') &&
        !path.startsWith('/api') &&
        !path.startsWith('/mcp') &&
        !path.startsWith('/healthz') &&
        !path.startsWith('/openapi')
        ? `/api/agent/v1${path}`
        : path,
      url,
    );
    for (const [k, v] of Object.entries(opts.query ?? {})) target.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    return readJsonAnswer<T>(await fetch(target, { method, headers, body }));
  }

  return {
    app,
    engine: app.engine,
    db,
    clock,
    url,
    port,
    dbPath,
    /** The settings that open this app's store (AGENT_API_DB; AGENT_API_DATABASE_URL on PostgreSQL), for processes. */
    storeEnv,
    logs,
    org,
    client,
    key,
    tenant,
    request,
    async close() {
      await app.close(1_000);
      tmp?.cleanup();
    },
    /** Closes the app but keeps the database file (for restart tests); call cleanup later. */
    async stop() {
      await app.close(1_000);
    },
    cleanup: () => tmp?.cleanup(),
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
