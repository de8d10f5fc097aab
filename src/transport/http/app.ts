import { Hono } from 'hono';
import { appliedMigrations, pingDatabase } from '../../store/repos/health.ts';
import { expectedMigrations } from '../../store/migrations/index.ts';
import { dialectOf } from '../../store/db.ts';
import { ApiError, toApiError } from '../../errors.ts';
import type { Engine } from '../../engine/engine.ts';
import type { AnyOperation } from '../../tools/define.ts';
import { buildOpenApi } from '../openapi.ts';
import { originGuard, requestIdMiddleware, type HttpEnv, type OriginPolicy } from './guards.ts';
import { bodyLimitMiddleware } from './limits.ts';
import { mountMcpHttp, type McpHttpLimits } from './mcp-http.ts';
import { mountConsole } from './console/routes.ts';
import type { Toolset } from '../../tools/toolsets.ts';
import { errorResponse } from './respond.ts';
import { errorHeaders } from './headers.ts';
import { mountRest } from './rest.ts';
import { createFailedAuthLimiter } from './request-auth.ts';
import { mountMetrics } from './metrics.ts';
import type { Pool } from 'pg';
import { createRateLimiter, type RequestLimiter } from '../../engine/platform/rate-limit.ts';
import type { OAuthServices } from '../../engine/oauth/services.ts';
import type { IndexingStatus } from '../../providers/web/archive/index-progress.ts';
import { challengeFor } from './oauth/challenge.ts';
import { isOpenOAuthPath, mountOAuth } from './oauth/index.ts';

export interface HttpAppDeps {
  engine: Engine;
  operations: readonly AnyOperation[];
  version: string;
  originPolicy: OriginPolicy;
  /** Failed authentication attempts allowed per client address and minute. */
  failedAuthPerMinute: number;
  /** Serves GET /metrics to a caller presenting this Bearer token (AGENT_API_METRICS_TOKEN); unset: no /metrics. */
  metricsToken?: string;
  /** PostgreSQL's pool, for the pool gauges of /metrics; null on SQLite. */
  dbPool?: Pool | null;
  /** Where failed attempts are counted: the processes' shared limiter on PostgreSQL; absent, this process's own. */
  failedAuthLimiter?: RequestLimiter;
  /** Where OAuth client registrations per address are counted, likewise. */
  registrationLimiter?: RequestLimiter;
  /** Proxies whose X-Forwarded-For names the client (addresses or CIDRs). */
  trustedProxies?: readonly string[];
  /** Bounds on MCP sessions and batches (defaults otherwise). */
  mcpLimits?: Partial<McpHttpLimits>;
  /** The toolsets served over MCP (AGENT_API_TOOLSETS); empty or absent: every operation. */
  toolsets?: readonly Toolset[];
  /** A tool result's text over MCP (AGENT_API_MCP_TEXT). */
  textMode?: 'summary' | 'json';
  /** OAuth for remote MCP clients (docs/oauth.md); absent: API keys only. */
  oauth?: OAuthServices | null;
  /** The web archive's index build, for /readyz; absent: never indexing. */
  indexing?: () => IndexingStatus;
}

/**
 * The one HTTP application: REST under /api/agent/v1, MCP at /mcp, the console, OAuth's discovery and endpoints,
 * /openapi.json and /healthz.
 */
export function createHttpApp(deps: HttpAppDeps) {
  const { engine } = deps;
  const app = new Hono<HttpEnv>();
  const openapi = buildOpenApi(deps.operations, deps.version);
  const failedAuth = createFailedAuthLimiter(
    deps.failedAuthLimiter ?? createRateLimiter(engine.clock),
    deps.failedAuthPerMinute,
    deps.trustedProxies,
    () => engine.metrics.rejected('failed_auth'),
  );

  app.use('*', requestIdMiddleware());
  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    // Successful requests log at debug, client errors at info and server errors at error: at info level the log
    // shows what went wrong without a line per healthy request.
    const status = c.res.status;
    // A readiness probe's 503 is the expected answer while a start migrates or indexes (a load balancer asks every
    // few seconds), not a server error; the build logs its own progress.
    const level = c.req.path === '/readyz' ? 'debug' : status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    if (engine.logger.isLevelEnabled(level)) {
      engine.logger[level](
        {
          requestId: c.get('requestId'),
          method: c.req.method,
          path: c.req.path,
          status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    }
  });
  // Hono hands only Error instances to onError; any other thrown value would escape as a bare 500 without the
  // error body or X-Request-Id.
  app.use('*', async (_c, next) => {
    try {
      await next();
    } catch (err) {
      throw err instanceof Error ? err : new Error('a non-Error value was thrown', { cause: err });
    }
  });
  app.use('*', originGuard(deps.originPolicy, isOpenOAuthPath));
  app.use('*', bodyLimitMiddleware());

  app.get('/healthz', async (c) => {
    await pingDatabase(engine.db);
    return c.json({ status: 'ok', version: deps.version });
  });
  // Readiness, for a load balancer: the database answers and holds every migration this version needs (another
  // process may still be migrating a fresh PostgreSQL), and the web archive is not being indexed (searches would
  // wait for it). 503 otherwise, so traffic goes elsewhere.
  app.get('/readyz', async (c) => {
    const expected = expectedMigrations(engine.db);
    let missing: string[];
    try {
      const applied = new Set(await appliedMigrations(engine.db));
      missing = expected.filter((m) => !applied.has(m));
    } catch (err) {
      engine.logger.warn({ err }, 'readiness check: the database did not answer');
      return errorResponse(c, new ApiError('service_unavailable', 'The database does not answer.'));
    }
    if (missing.length)
      return errorResponse(
        c,
        new ApiError('service_unavailable', 'Migrations are not all applied yet.', { missing_migrations: missing }),
      );
    const indexing = deps.indexing?.();
    if (indexing?.state === 'indexing') {
      const progress = { phase: indexing.phase, done: indexing.done, total: indexing.total };
      const err = new ApiError('service_unavailable', 'The web archive is being indexed.', { indexing: progress });
      // The error body, plus the progress at the top where a probe or a person looks first.
      return c.json({ ...err.toBody(), indexing: progress }, 503, errorHeaders(err));
    }
    return c.json({ status: 'ready', database: dialectOf(engine.db), migrations: expected.length });
  });
  app.get('/openapi.json', (c) => c.json(openapi));
  if (deps.metricsToken) mountMetrics(app, { engine, token: deps.metricsToken, pool: deps.dbPool ?? null, failedAuth });

  const oauth = deps.oauth ?? null;
  if (oauth)
    mountOAuth(app, {
      engine,
      oauth,
      failedAuth,
      version: deps.version,
      registrationLimiter: deps.registrationLimiter,
    });
  mountRest(app, engine, deps.operations, failedAuth, oauth);
  mountConsole(app, { engine, operations: deps.operations, failedAuth });
  const mcp = mountMcpHttp(app, { ...deps, oauth, failedAuth, limits: deps.mcpLimits });

  app.notFound((c) => errorResponse(c, new ApiError('not_found', 'No such route.')));
  app.onError((err, c) => {
    const apiErr = toApiError(err);
    if (!(err instanceof ApiError)) engine.logger.error({ err, requestId: c.get('requestId') }, 'unhandled error');
    const challenge = challengeFor(c, oauth, apiErr);
    return errorResponse(c, apiErr, {
      ...(c.get('rateHeaders') ?? {}),
      ...(challenge ? { 'WWW-Authenticate': challenge } : {}),
    });
  });

  return { app, mcp };
}
