import { randomUUID } from 'node:crypto';
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { RateLimiter } from './engine/rate-limit.ts';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import pkg from '../package.json' with { type: 'json' };
import { systemClock, type Clock } from './clock.ts';
import { storeLocation, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { checkStore, openStore, type OpenedDatabase } from './store/db.ts';
import { migrateToLatest } from './store/migrations/index.ts';
import { createEngine, type Engine } from './engine/engine.ts';
import { buildOAuth, buildProviders } from './compose.ts';
import { createPostgresWake } from './store/wake.ts';
import { createProviderSlots } from './store/provider-slots.ts';
import { createSharedRateLimiter } from './engine/rate-limit-shared.ts';
import type { Pipeline } from './engine/runner/types.ts';
import { OPERATIONS } from './tools/registry.ts';
import type { AnyOperation } from './tools/define.ts';
import { createHttpApp } from './transport/http/app.ts';
import { isLoopbackHost, loopbackNames } from './transport/http/guards.ts';
import type { ErrorCode } from './errors.ts';

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
/** At shutdown, how long requests already in the sockets' buffers get to be read before idle connections close. */
const SHUTDOWN_SETTLE_MS = 50;
/** At shutdown, how long MCP requests get to answer by themselves (woken long-polls) before their streams are ended. */
const MCP_SETTLE_MS = 1_000;
/** How often the drain re-checks its requests and closes connections that became idle. */
const DRAIN_TICK_MS = 20;

/** The API's error body, for answers written before the Hono app runs (or instead of it). */
function errorJson(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/** A complete HTTP/1.1 error answer for a raw socket (the parser refused the request, or it timed out). */
function rawErrorResponse(status: number, code: ErrorCode, message: string): string {
  const body = errorJson(code, message);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Writes an error answer on a request Node parsed but the app does not see, and closes the connection after it. */
function answerError(res: ServerResponse, status: number, code: ErrorCode, message: string): void {
  const body = errorJson(code, message);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': randomUUID(),
    Connection: 'close',
  });
  res.end(body);
}

/** What Node's HTTP parser errors and timeouts answer (Node's own defaults, with the API's body). */
function clientErrorAnswer(err: NodeJS.ErrnoException): [number, ErrorCode, string] {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'invalid_input', 'The request headers or body were not received in time.'];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'invalid_input', 'The request line or headers are too large.'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'payload_too_large', 'The chunk extensions of the request body are too large.'];
    default:
      return [400, 'invalid_input', 'The HTTP request is malformed.'];
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for `promise`, at most `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Polls `done` every DRAIN_TICK_MS until it is true or `deadline` (Date.now() ms) passes; answers `done()`. */
async function until(done: () => boolean, deadline: number): Promise<boolean> {
  while (!done()) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await delay(Math.min(DRAIN_TICK_MS, left));
  }
  return true;
}

/** The composition root: the only place that builds the database, providers and engine. */
export async function createApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.AGENT_API_LOG_LEVEL);
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
      globalConcurrency,
    },
  });

  const operations = options.operations ?? OPERATIONS;
  for (const pipeline of options.pipelines?.(engine) ?? []) engine.runner.register(pipeline);

  let server: HttpServer | undefined;
  let http: ReturnType<typeof createHttpApp> | undefined;
  /** Responses not yet finished (or their connection closed), each with whether it is an MCP request. */
  const inflight = new Map<ServerResponse, boolean>();
  let draining = false;
  let maintenance: NodeJS.Timeout | undefined;
  let boundPort = 0;
  let boundHost = config.AGENT_API_HOST;
  /** The web archive's index build started by startBackground, and whether close() stopped it on purpose. */
  let warming: Promise<void> | undefined;
  let closing = false;

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
      let hostSet: ReadonlySet<string> | null | undefined;
      let originSet: ReadonlySet<string> | undefined;
      const computeHosts = (): ReadonlySet<string> | null => {
        // The public URL's host is this server's name too (a proxy in front passes it on).
        const publicHost = config.AGENT_API_PUBLIC_URL ? [new URL(config.AGENT_API_PUBLIC_URL).host] : [];
        if (config.AGENT_API_ALLOWED_HOSTS.length)
          return new Set([...config.AGENT_API_ALLOWED_HOSTS.map((h) => h.toLowerCase()), ...publicHost]);
        return isLoopbackHost(boundHost)
          ? new Set([...loopbackNames(boundHost, boundPort).hosts, ...publicHost])
          : null;
      };
      http = createHttpApp({
        engine,
        operations,
        version: VERSION,
        failedAuthPerMinute: config.AGENT_API_FAILED_AUTH_PER_MINUTE,
        metricsToken: config.AGENT_API_METRICS_TOKEN,
        dbPool: database.pool,
        failedAuthLimiter: sharedLimiter('auth:'),
        registrationLimiter: sharedLimiter('register:'),
        trustedProxies: config.AGENT_API_TRUSTED_PROXIES,
        toolsets: config.AGENT_API_TOOLSETS,
        textMode: config.AGENT_API_MCP_TEXT,
        oauth,
        indexing: built.indexing,
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
              ...loopbackNames(boundHost, boundPort).origins,
              ...config.AGENT_API_ALLOWED_ORIGINS.map((o) => o.toLowerCase()),
              ...(config.AGENT_API_PUBLIC_URL ? [new URL(config.AGENT_API_PUBLIC_URL).origin] : []),
            ])),
        },
      });
      // @hono/node-server's listener, with an error handler: a request whose Host or target URL it cannot turn into a
      // URL (`Host: bad host`, `GET http://[x/`, a backslash in the path) answers the API's error body, not a bare 400.
      const handle = getRequestListener(http.app.fetch, {
        hostname: host,
        errorHandler: (err: unknown) => {
          const bad = err instanceof RequestError;
          if (!bad) logger.error({ err }, 'unhandled error outside the HTTP app');
          const [status, code, message]: [number, ErrorCode, string] = bad
            ? [400, 'invalid_input', 'The request target or Host header is malformed.']
            : [500, 'internal_error', 'An internal error occurred.'];
          return new Response(errorJson(code, message), {
            status,
            // A request this malformed ends its connection, as Node's own 400 does.
            headers: { 'Content-Type': 'application/json', 'X-Request-Id': randomUUID(), Connection: 'close' },
          });
        },
      });
      const onRequest = (req: IncomingMessage, res: ServerResponse) => {
        inflight.set(res, (req.url ?? '').startsWith('/mcp'));
        res.once('close', () => inflight.delete(res));
        // While shutting down every answer closes its connection, so keep-alive clients do not send another request.
        if (draining) res.setHeader('Connection', 'close');
        // Node's own answer to an HTTP/1.1 request without Host is a bare 400 (requireHostHeader is off for this).
        if (req.httpVersion === '1.1' && req.headers.host === undefined) {
          return answerError(res, 400, 'invalid_input', 'An HTTP/1.1 request needs a Host header.');
        }
        handle(req, res).catch((err: unknown) => logger.error({ err }, 'HTTP response failed'));
      };
      const headersTimeout = config.AGENT_API_HEADERS_TIMEOUT_MS;
      const requestTimeout = config.AGENT_API_REQUEST_TIMEOUT_MS;
      const keepAliveTimeout = config.AGENT_API_KEEP_ALIVE_TIMEOUT_MS;
      const s = createServer(
        {
          headersTimeout,
          requestTimeout,
          keepAliveTimeout,
          // Timeouts are enforced by a periodic sweep; it must run often enough to drop a slow sender on time.
          connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 2))),
          requireHostHeader: false,
        },
        onRequest,
      );
      s.headersTimeout = headersTimeout;
      s.requestTimeout = requestTimeout;
      s.keepAliveTimeout = keepAliveTimeout;
      s.maxConnections = config.AGENT_API_MAX_CONNECTIONS;
      // Connections per client address: one address cannot take every connection slot.
      const perAddress = new Map<string, number>();
      const addressLimit = config.AGENT_API_MAX_CONNECTIONS_PER_ADDRESS;
      s.on('connection', (socket: Socket) => {
        const address = socket.remoteAddress;
        if (address === undefined) return;
        const open = perAddress.get(address) ?? 0;
        if (open >= addressLimit) return void socket.destroy();
        perAddress.set(address, open + 1);
        socket.once('close', () => {
          const left = (perAddress.get(address) ?? 1) - 1;
          if (left > 0) perAddress.set(address, left);
          else perAddress.delete(address);
        });
      });
      // Requests Node's HTTP parser refuses (control characters in headers, malformed lines, an unknown method, headers
      // too large) and requests that time out (headers or body too slow) get the API's error body and a request id.
      s.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
        const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
        if (!socket.writable || err.code === 'ECONNRESET' || current?.headersSent) return void socket.destroy();
        const [status, code, message] = clientErrorAnswer(err);
        socket.end(rawErrorResponse(status, code, message), () => socket.destroy());
        // A peer that never reads must not keep the socket: the answer is small, so this is a backstop.
        setTimeout(() => socket.destroy(), 1_000).unref();
      });
      // Without a listener Node drops CONNECT and answers an unmet Expect with a bare 417.
      s.on('connect', (_req: IncomingMessage, socket: Duplex) => {
        socket.end(rawErrorResponse(400, 'invalid_input', 'CONNECT is not supported.'), () => socket.destroy());
      });
      s.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
        answerError(res, 417, 'invalid_input', 'Only the Expect value 100-continue is supported.'),
      );
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, host, () => {
          s.off('error', reject);
          boundPort = (s.address() as AddressInfo).port;
          resolve();
        });
      });
      server = s;
      const shown = host.includes(':') ? `[${host}]` : host;
      return { port: boundPort, url: `http://${shown}:${boundPort}` };
    },
    async close(graceMs = 10_000) {
      closing = true;
      if (maintenance) clearInterval(maintenance);
      // Long-polls and follows answer the state they have now instead of holding their requests open.
      engine.changes.closeAll();
      if (server) await drainHttp(server, graceMs);
      else await http?.mcp.close();
      await engine.runner.stop(graceMs);
      await Promise.all([built.close(), oauth.close(), wake?.close(), providerSlots?.close()]);
      // Closing the providers stopped a build under way; it must be over before the process may exit.
      await warming;
      await database.close();
    },
  };

  /**
   * Graceful HTTP stop: stop accepting, answer every request already received (each with `Connection: close`), close
   * keep-alive connections once idle, end MCP streams, then close whatever is left when the grace period is over.
   */
  async function drainHttp(s: HttpServer, graceMs: number): Promise<void> {
    const started = Date.now();
    const deadline = started + graceMs;
    draining = true;
    for (const res of inflight.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
    const received = inflight.size;
    // http.Server#close() stops accepting and at once closes every connection without a request in progress. A
    // keep-alive connection whose next request is already in the socket buffer (sent before the signal, not yet read)
    // counts as idle too and would be reset, so idle connections are closed a moment later, once such requests are
    // parsed and in flight.
    s.closeIdleConnections = () => undefined;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    Reflect.deleteProperty(s, 'closeIdleConnections');
    if (graceMs > 0) await delay(Math.min(SHUTDOWN_SETTLE_MS, graceMs));
    // A starved process runs expired timers before it reads its sockets: let one poll phase read the requests that
    // arrived meanwhile (setImmediate runs after it) before deciding which connections are idle.
    await new Promise<void>((resolve) => setImmediate(resolve));
    s.closeIdleConnections();
    // Connections whose answer was already under way when the stop began stay open after it: close them once idle.
    const idle = setInterval(() => s.closeIdleConnections(), DRAIN_TICK_MS * 5);
    try {
      // MCP follows run until their streams end, so once only MCP requests remain they get a short while, then
      // their sessions are closed; every other request is awaited up to the grace period.
      const mcpDeadline = Math.min(deadline, Date.now() + MCP_SETTLE_MS);
      await until(
        () => inflight.size === 0 || (Date.now() >= mcpDeadline && [...inflight.values()].every(Boolean)),
        deadline,
      );
      await http?.mcp.close();
      await until(() => inflight.size === 0, deadline);
    } finally {
      clearInterval(idle);
    }
    const cut = inflight.size;
    s.closeAllConnections();
    await within(closed, 1_000);
    logger.info({ received, cut, ms: Date.now() - started }, 'HTTP server stopped');
  }
}
