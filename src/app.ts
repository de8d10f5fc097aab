import pkg from '../package.json' with { type: 'json' };
import { systemClock, type Clock } from './clock.ts';
import { storeLocation, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { checkStore, openStore, type OpenedDatabase } from './store/db.ts';
import { migrateToLatest } from './store/migrations/index.ts';
import { createEngine, type Engine } from './engine/engine.ts';
import type { RateLimiter } from './engine/platform/rate-limit.ts';
import { buildOAuth, buildProviders } from './compose.ts';
import { createPostgresWake } from './store/wake.ts';
import { createProviderSlots } from './store/provider-slots.ts';
import { createSharedRateLimiter } from './engine/platform/rate-limit-shared.ts';
import type { Pipeline } from './engine/runner/types.ts';
import { OPERATIONS } from './tools/registry.ts';
import type { AnyOperation } from './tools/define.ts';
import { createHttpApp } from './transport/http/app.ts';
import { isLoopbackHost, loopbackNames } from './transport/http/guards.ts';
import { createNodeHttpServer } from './transport/http/server.ts';

/** How often a call waiting for an installation-wide provider slot looks again for one another process freed. */
const PROVIDER_SLOT_POLL_MS = 100;

export const VERSION: string = pkg.version;

export interface AppOptions {
  config: Config;
  clock?: Clock;
  logger?: Logger;
  /** Lease owner name of this process's runner. */
  runnerOwner?: string;
  /** The operations to serve; defaults to the registry (tests add their own). */
  operations?: readonly AnyOperation[];
  /** Pipelines to register with the runner besides the families' own (tests add their own). */
  pipelines?: (engine: Engine) => readonly Pipeline[];
  /** The per-key request limiter, when the process already meters requests (stdio, before the engine loads). */
  rateLimiter?: RateLimiter;
}

export interface App {
  config: Config;
  database: OpenedDatabase;
  engine: Engine;
  operations: readonly AnyOperation[];
  /**
   * Starts the runner and the maintenance loop (idempotency reaper, usage reconciler), and the web archive's index
   * build without waiting for it (its state: /readyz).
   */
  startBackground(): Promise<void>;
  /** Serves REST, MCP and health on host:port; resolves with the bound port. */
  listen(host?: string, port?: number): Promise<{ port: number; url: string }>;
  /** Graceful stop: stop accepting, let runs in flight finish or hand them back, close the database. */
  close(graceMs?: number): Promise<void>;
}

const MAINTENANCE_MS = 60_000;

/** What the composition root builds before any server: the store, the providers, OAuth, wake-ups and the engine. */
interface Wiring {
  config: Config;
  logger: Logger;
  database: OpenedDatabase;
  built: ReturnType<typeof buildProviders>;
  oauth: ReturnType<typeof buildOAuth>;
  wake: ReturnType<typeof createPostgresWake> | undefined;
  providerSlots: ReturnType<typeof createProviderSlots> | undefined;
  engine: Engine;
  /** A limiter shared by the installation's processes (PostgreSQL), or undefined for this process's own. */
  sharedLimiter: (prefix: string) => ReturnType<typeof createSharedRateLimiter> | undefined;
}

/** The engine's settings, from the configuration. */
function engineSettings(config: Config, globalConcurrency: Record<'search' | 'fetch' | 'writer' | 'answer', number>) {
  return {
    runnerConcurrency: config.AGENT_API_RUNNER_CONCURRENCY,
    leaseMs: config.AGENT_API_LEASE_MS,
    maxAttempts: config.AGENT_API_MAX_ATTEMPTS,
    retryBaseMs: config.AGENT_API_RETRY_BASE_MS,
    pollMs: config.AGENT_API_POLL_MS,
    queueMaxDepth: config.AGENT_API_QUEUE_MAX_DEPTH,
    idempotencyTtlMs: config.AGENT_API_IDEMPOTENCY_TTL_HOURS * 3_600_000,
    concurrency: {
      search: config.AGENT_API_SEARCH_CONCURRENCY,
      fetch: config.AGENT_API_FETCH_CONCURRENCY,
      writer: config.AGENT_API_WRITER_CONCURRENCY,
      answer: config.AGENT_API_SEARCH_CONCURRENCY,
    },
    globalConcurrency,
  };
}

/** Opens the store, brings its schema up to date, and builds the providers, OAuth and the engine on it. */
async function wire(options: AppOptions, clock: Clock, logger: Logger): Promise<Wiring> {
  const { config } = options;
  const database = openStore(storeLocation(config));
  await checkStore(database);
  const applied = await migrateToLatest(database.db);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  // Several processes on one PostgreSQL share their limits (per key, failed sign-ins and registrations per address)
  // there; otherwise each is this process's own.
  const sharedLimiter = (prefix: string) =>
    database.dialect === 'postgres' ? createSharedRateLimiter(database.db, clock, prefix, database.stats) : undefined;

  const built = buildProviders(config, { clock, logger });
  const oauth = buildOAuth(config, { db: database.db, clock });
  // Several processes on one PostgreSQL wake each other when work is accepted (LISTEN/NOTIFY); SQLite has one.
  const wake =
    database.pool && config.AGENT_API_DATABASE_URL
      ? createPostgresWake(config.AGENT_API_DATABASE_URL, database.pool, logger)
      : undefined;
  const globalConcurrency = {
    search: config.AGENT_API_SEARCH_GLOBAL_CONCURRENCY,
    fetch: config.AGENT_API_FETCH_GLOBAL_CONCURRENCY,
    writer: config.AGENT_API_WRITER_GLOBAL_CONCURRENCY,
    answer: config.AGENT_API_ANSWER_GLOBAL_CONCURRENCY,
  };
  // Installation-wide provider caps need the shared store; one connection holds this process's slots, opened lazily.
  const providerSlots =
    config.AGENT_API_DATABASE_URL && Object.values(globalConcurrency).some((n) => n > 0)
      ? createProviderSlots(config.AGENT_API_DATABASE_URL, { clock, logger, pollMs: PROVIDER_SLOT_POLL_MS })
      : undefined;
  const engine = createEngine({
    wake,
    providerSlots,
    providers: built.providers,
    db: database.db,
    dbStats: database.stats,
    clock,
    logger,
    runnerOwner: options.runnerOwner,
    rateLimiter: options.rateLimiter ?? sharedLimiter(''),
    settings: engineSettings(config, globalConcurrency),
  });
  return { config, logger, database, built, oauth, wake, providerSlots, engine, sharedLimiter };
}

/** The Hono app (REST, MCP, console, health) for a server bound to `bound()`'s host and port. */
function buildHttpApp(w: Wiring, operations: readonly AnyOperation[], bound: () => { host: string; port: number }) {
  const { config, engine } = w;
  let hostSet: ReadonlySet<string> | null | undefined;
  let originSet: ReadonlySet<string> | undefined;
  const computeHosts = (): ReadonlySet<string> | null => {
    const { host, port } = bound();
    // The public URL's host is this server's name too (a proxy in front passes it on).
    const publicHost = config.AGENT_API_PUBLIC_URL ? [new URL(config.AGENT_API_PUBLIC_URL).host] : [];
    if (config.AGENT_API_ALLOWED_HOSTS.length)
      return new Set([...config.AGENT_API_ALLOWED_HOSTS.map((h) => h.toLowerCase()), ...publicHost]);
    return isLoopbackHost(host) ? new Set([...loopbackNames(host, port).hosts, ...publicHost]) : null;
  };
  return createHttpApp({
    engine,
    operations,
    version: VERSION,
    failedAuthPerMinute: config.AGENT_API_FAILED_AUTH_PER_MINUTE,
    metricsToken: config.AGENT_API_METRICS_TOKEN,
    dbPool: w.database.pool,
    failedAuthLimiter: w.sharedLimiter('auth:'),
    registrationLimiter: w.sharedLimiter('register:'),
    trustedProxies: config.AGENT_API_TRUSTED_PROXIES,
    toolsets: config.AGENT_API_TOOLSETS,
    textMode: config.AGENT_API_MCP_TEXT,
    oauth: w.oauth,
    indexing: w.built.indexing,
    mcpLimits: {
      maxSessionsPerKey: config.AGENT_API_MCP_MAX_SESSIONS_PER_KEY,
      maxSessions: config.AGENT_API_MCP_MAX_SESSIONS,
      idleMs: config.AGENT_API_MCP_SESSION_IDLE_MS,
      maxBatch: config.AGENT_API_MCP_MAX_BATCH,
    },
    originPolicy: {
      // Computed once the port is known (port 0 binds an ephemeral one), then reused for every request.
      allowedHosts: () => (hostSet ??= computeHosts()),
      allowedOrigins: () =>
        (originSet ??= new Set([
          ...loopbackNames(bound().host, bound().port).origins,
          ...config.AGENT_API_ALLOWED_ORIGINS.map((o) => o.toLowerCase()),
          ...(config.AGENT_API_PUBLIC_URL ? [new URL(config.AGENT_API_PUBLIC_URL).origin] : []),
        ])),
    },
  });
}

/** The composition root: the only place that builds the database, providers and engine. */
export async function createApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.AGENT_API_LOG_LEVEL);
  const w = await wire(options, clock, logger);
  const { database, engine, built } = w;
  const operations = options.operations ?? OPERATIONS;
  for (const pipeline of options.pipelines?.(engine) ?? []) engine.runner.register(pipeline);

  const server = createNodeHttpServer({ config, logger });
  let http: ReturnType<typeof createHttpApp> | undefined;
  let maintenance: NodeJS.Timeout | undefined;
  let boundPort = 0;
  let boundHost = config.AGENT_API_HOST;
  /** The web archive's index build started by startBackground, and whether close() stopped it on purpose. */
  let warming: Promise<void> | undefined;
  let closing = false;
  const closeMcp = async () => {
    await http?.mcp.close();
  };

  async function maintain(): Promise<void> {
    try {
      await engine.idempotency.reap(engine.db);
      // A reservation is stale when its run is final (or missing) and the lease window has passed.
      await engine.usage.reconcile(engine.db, Math.max(config.AGENT_API_LEASE_MS * 2, 60_000));
    } catch (err) {
      logger.warn({ err }, 'maintenance pass failed');
    }
  }

  return {
    config,
    database,
    engine,
    operations,
    async startBackground() {
      // The archive's indexes build (or open) in the background: the server answers meanwhile (/readyz says 503
      // with the pages indexed so far, /healthz 200) and runs that search or fetch the archive wait for it. Page
      // extraction, the costly part, runs in worker threads, so this event loop stays free for requests and for the
      // runner's transactions.
      warming = built.warm().catch((err: unknown) => {
        if (!closing) logger.warn({ err }, 'web archive could not be loaded');
      });
      await maintain();
      maintenance = setInterval(() => void maintain(), MAINTENANCE_MS);
      maintenance.unref();
      await engine.runner.start();
    },
    async listen(host = config.AGENT_API_HOST, port = config.AGENT_API_PORT) {
      boundHost = host;
      http = buildHttpApp(w, operations, () => ({ host: boundHost, port: boundPort }));
      boundPort = await server.listen(host, port, http.app.fetch);
      const shown = host.includes(':') ? `[${host}]` : host;
      return { port: boundPort, url: `http://${shown}:${boundPort}` };
    },
    async close(graceMs = 10_000) {
      closing = true;
      if (maintenance) clearInterval(maintenance);
      // Long-polls and follows answer the state they have now instead of holding their requests open.
      engine.changes.closeAll();
      if (!(await server.close(graceMs, closeMcp))) await closeMcp();
      await engine.runner.stop(graceMs);
      await Promise.all([built.close(), w.oauth.close(), w.wake?.close(), w.providerSlots?.close()]);
      // Closing the providers stopped a build under way; it must be over before the process may exit.
      await warming;
      await database.close();
    },
  };
}
