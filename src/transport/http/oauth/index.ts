/**
 * OAuth for remote MCP clients (docs/oauth.md), mounted on the one HTTP app: discovery documents in every mode but
 * `off`, and the built-in authorization server's endpoints in `builtin` mode.
 */
import type { Hono } from 'hono';
import type { Engine } from '../../../engine/engine.ts';
import type { OAuthServices } from '../../../engine/oauth/services.ts';
import type { RequestLimiter } from '../../../engine/platform/rate-limit.ts';
import type { HttpEnv } from '../guards.ts';
import type { FailedAuthLimiter } from '../request-auth.ts';
import { mountAuthorize } from './authorize.ts';
import { mountTokenEndpoints } from './endpoints.ts';
import { mountMetadata } from './metadata.ts';
import { AUTHORIZATION_SERVER_PATH, PROTECTED_RESOURCE_PATH } from './urls.ts';

/**
 * Paths any web origin may call (no cookies, no ambient authority: discovery and the machine endpoints), so the
 * Origin check skips them and they answer CORS. The consent page is not among them: it keeps the Origin check.
 */
const OPEN_PATHS = new Set([
  PROTECTED_RESOURCE_PATH,
  `${PROTECTED_RESOURCE_PATH}/mcp`,
  AUTHORIZATION_SERVER_PATH,
  '/oauth/token',
  '/oauth/register',
  '/oauth/revoke',
]);

export function isOpenOAuthPath(path: string): boolean {
  return OPEN_PATHS.has(path);
}

export function mountOAuth(
  app: Hono<HttpEnv>,
  deps: {
    engine: Engine;
    oauth: OAuthServices;
    failedAuth: FailedAuthLimiter;
    version: string;
    /** Where registrations per address are counted: shared on PostgreSQL; absent, this process's own limiter. */
    registrationLimiter?: RequestLimiter;
  },
): void {
  const { oauth } = deps;
  if (oauth.mode === 'off') return;
  app.use('*', async (c, next) => {
    if (!OPEN_PATHS.has(c.req.path)) return next();
    if (c.req.method === 'OPTIONS')
      return c.body(null, 204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
        'access-control-max-age': '86400',
      });
    await next();
    c.res.headers.set('access-control-allow-origin', '*');
  });
  mountMetadata(app, oauth, deps.version);
  if (oauth.mode !== 'builtin') return;
  mountAuthorize(app, deps);
  mountTokenEndpoints(app, deps);
}
