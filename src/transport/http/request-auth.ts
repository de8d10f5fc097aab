import type { Context } from 'hono';
import { ApiError } from '../../errors.ts';
import { authenticate, bearerToken, type Principal } from '../../engine/accounts/auth.ts';
import { isWellFormedApiKey } from '../../engine/accounts/api-keys.ts';
import type { Engine } from '../../engine/engine.ts';
import type { RequestLimiter } from '../../engine/platform/rate-limit.ts';
import { looksLikeJwt } from '../../engine/oauth/external-issuer.ts';
import { externalPrincipal, type OAuthServices } from '../../engine/oauth/services.ts';
import { isAccessToken } from '../../engine/oauth/tokens.ts';
import { createClientAddressResolver } from './client-address.ts';
import { headerValues, type HttpEnv } from './guards.ts';
import { baseUrlOf, resourceUrls } from './oauth/urls.ts';

/**
 * The failed-authentication limiter, a transport concern (addresses are the transport's): per process, or on
 * PostgreSQL one for every process (`limiter` is then the shared one). Only failures are counted and limited: a key
 * that matches is always let through, so junk sent from a user's address (or from a shared proxy) cannot lock that
 * user out.
 */
export function createFailedAuthLimiter(
  limiter: RequestLimiter,
  perMinute: number,
  trustedProxies: readonly string[] = [],
  onRefused: () => void = () => undefined,
) {
  const addresses = createClientAddressResolver(trustedProxies);
  const tooMany = (retryAfter: number) => {
    onRefused();
    return new ApiError(
      'rate_limit_exceeded',
      'Too many failed authentication attempts from this address.',
      { retry_after_seconds: retryAfter },
      { retryAfterSeconds: retryAfter },
    );
  };
  return {
    /** The limiter's key for a request: its client address (behind trusted proxies), IPv6 grouped by /64. */
    clientOf: (c: Context<HttpEnv>): string =>
      addresses.resolve(c.env?.incoming?.socket?.remoteAddress, headerValues(c.env?.incoming, 'x-forwarded-for')),
    /** True while the address still has failed attempts left. */
    allows: async (address: string): Promise<boolean> => limiter.wouldAllow(`ip:${address}`, perMinute),
    /** Counts one failed attempt; the error to answer: 429 once the address is over its allowance, else `failure`. */
    async fail(address: string, failure: ApiError): Promise<ApiError> {
      const d = await limiter.take(`ip:${address}`, perMinute);
      return d.allowed ? failure : tooMany(d.retryAfter);
    },
    /** The 429 for an address already over its allowance. */
    refuse: async (address: string): Promise<ApiError> =>
      tooMany((await limiter.take(`ip:${address}`, perMinute)).retryAfter),
  };
}

export type FailedAuthLimiter = ReturnType<typeof createFailedAuthLimiter>;

/** Whether a bearer token has one of the shapes this server accepts (no database read). */
function wellFormed(token: string | null, oauth: OAuthServices | null): token is string {
  if (!token) return false;
  if (isWellFormedApiKey(token)) return true;
  if (oauth?.tokens && isAccessToken(token)) return true;
  return !!oauth?.external && looksLikeJwt(token);
}

/** The principal of a bearer token: an API key, an access token of the built-in server, or an external JWT. */
async function principalOfBearer(
  engine: Engine,
  oauth: OAuthServices | null,
  c: Context<HttpEnv>,
  token: string | null,
): Promise<Principal> {
  if (token && oauth?.tokens && isAccessToken(token))
    return oauth.tokens.principalOf(token, resourceUrls(baseUrlOf(c, oauth)));
  if (token && oauth?.external && looksLikeJwt(token)) {
    const claims = await oauth.external.verify(token);
    return externalPrincipal(engine.db, claims, oauth.external.issuer);
  }
  return authenticate(engine.db, engine.clock, token);
}

/**
 * Authenticates the request's Bearer token (never a query parameter): an API key, or with OAuth on an access token
 * (docs/oauth.md). A well-formed token is always looked up, so one that matches is authenticated whatever its
 * address's failure count; a failure counts against the address, and an address over its allowance gets 429 instead
 * of 401. A malformed token from such an address is refused with no read.
 */
export async function authenticateRequest(
  engine: Engine,
  failedAuth: FailedAuthLimiter,
  c: Context<HttpEnv>,
  oauth: OAuthServices | null = null,
): Promise<Principal> {
  const token = bearerToken(c.req.header('authorization'));
  const address = failedAuth.clientOf(c);
  if (!wellFormed(token, oauth) && !(await failedAuth.allows(address))) throw await failedAuth.refuse(address);
  try {
    return await principalOfBearer(engine, oauth, c, token);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'unauthorized') {
      engine.logger.info({ ip: address, requestId: c.get('requestId') }, 'authentication failed');
      throw await failedAuth.fail(address, err);
    }
    throw err;
  }
}
