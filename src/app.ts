import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import pkg from '../package.json' with { type: 'json' };
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { assertHealthyDatabase, openDatabase, type OpenedDatabase } from './store/db.ts';
import { migrateToLatest } from './store/migrations/index.ts';
import { createEngine, type Engine } from './engine/engine.ts';
import { buildProviders } from './compose.ts';
import type { Pipeline } from './engine/runner/types.ts';
import { OPERATIONS } from './tools/registry.ts';
import type { AnyOperation } from './tools/define.ts';
import { createHttpApp } from './transport/http/app.ts';
import { isLoopbackHost, loopbackNames } from './transport/http/guards.ts';

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
}

export interface App {
  config: Config;
  database: OpenedDatabase;
  engine: Engine;
  operations: readonly AnyOperation[];
  /** Starts the runner and the maintenance loop (idempotency reaper, usage reconciler). */
  startBackground(): Promise<void>;
  /** Serves REST, MCP and health on host:port; resolves with the bound port. */
  listen(host?: string, port?: number): Promise<{ port: number; url: string }>;
  /** Graceful stop: stop accepting, let runs in flight finish or hand them back, close the database. */
  close(graceMs?: number): Promise<void>;
}

const MAINTENANCE_MS = 60_000;

/** The composition root: the only place that builds the database, providers and engine. */
export async function createApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.AGENT_API_LOG_LEVEL);
  const database = openDatabase(config.AGENT_API_DB);
  assertHealthyDatabase(database.raw);
  const applied = await migrateToLatest(database.db);
  if (applied.length) logger.info({ applied }, 'migrations applied');

  const built = buildProviders(config, { clock });
  const engine = createEngine({
    providers: built.providers,
    db: database.db,
    dbStats: database.stats,
    clock,
    logger,
    runnerOwner: options.runnerOwner,
    settings: {
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
    },
  });

  const operations = options.operations ?? OPERATIONS;
  for (const pipeline of options.pipelines?.(engine) ?? []) engine.runner.register(pipeline);

  let server: ServerType | undefined;
  let http: ReturnType<typeof createHttpApp> | undefined;
  let maintenance: NodeJS.Timeout | undefined;
  let boundPort = 0;
  let boundHost = config.AGENT_API_HOST;

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
      built.warm().catch((err: unknown) => logger.warn({ err }, 'web archive could not be loaded'));
      await maintain();
      maintenance = setInterval(() => void maintain(), MAINTENANCE_MS);
      maintenance.unref();
      await engine.runner.start();
    },
    async listen(host = config.AGENT_API_HOST, port = config.AGENT_API_PORT) {
      boundHost = host;
      let hostSet: ReadonlySet<string> | null | undefined;
      let originSet: ReadonlySet<string> | undefined;
      const computeHosts = (): ReadonlySet<string> | null => {
        if (config.AGENT_API_ALLOWED_HOSTS.length)
          return new Set(config.AGENT_API_ALLOWED_HOSTS.map((h) => h.toLowerCase()));
        return isLoopbackHost(boundHost) ? new Set(loopbackNames(boundHost, boundPort).hosts) : null;
      };
      http = createHttpApp({
        engine,
        operations,
        version: VERSION,
        failedAuthPerMinute: config.AGENT_API_FAILED_AUTH_PER_MINUTE,
        originPolicy: {
          // Computed once the port is known (port 0 binds an ephemeral one), then reused for every request.
          allowedHosts: () => (hostSet ??= computeHosts()),
          allowedOrigins: () =>
            (originSet ??= new Set([
              ...loopbackNames(boundHost, boundPort).origins,
              ...config.AGENT_API_ALLOWED_ORIGINS.map((o) => o.toLowerCase()),
            ])),
        },
      });
      await new Promise<void>((resolve, reject) => {
        server = serve({ fetch: http!.app.fetch, hostname: host, port }, (info: AddressInfo) => {
          boundPort = info.port;
          resolve();
        });
        server.once('error', reject);
      });
      // Requests Node's HTTP parser refuses (control characters in headers, malformed lines) still get the API's
      // error body and a request id, not a bare 400.
      server!.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
        if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
        const body = JSON.stringify({ error: { code: 'invalid_input', message: 'The HTTP request is malformed.' } });
        socket.end(
          `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      const shown = host.includes(':') ? `[${host}]` : host;
      return { port: boundPort, url: `http://${shown}:${boundPort}` };
    },
    async close(graceMs = 10_000) {
      if (maintenance) clearInterval(maintenance);
      if (server) {
        const s = server as unknown as HttpServer;
        const closed = new Promise<void>((resolve) => s.close(() => resolve()));
        await http?.mcp.close();
        s.closeIdleConnections();
        const force = setTimeout(() => s.closeAllConnections(), Math.min(graceMs, 5_000));
        force.unref();
        await closed;
        clearTimeout(force);
      }
      await engine.runner.stop(graceMs);
      await built.close();
      await database.close();
    },
  };
}
