import type { Context } from 'hono';
import { ApiError } from '../../errors.ts';
import { authenticate, bearerToken, type Principal } from '../../engine/auth.ts';
import type { Engine } from '../../engine/engine.ts';
import { createRateLimiter } from '../../engine/rate-limit.ts';
import type { Clock } from '../../clock.ts';
import type { HttpEnv } from './guards.ts';

export function clientAddress(c: Context<HttpEnv>): string {
  return c.env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/** The failed-authentication limiter: a transport concern (addresses are the transport's), per process. */
export function createFailedAuthLimiter(clock: Clock, perMinute: number) {
  const limiter = createRateLimiter(clock);
  const tooMany = (retryAfter: number) =>
    new ApiError(
      'rate_limit_exceeded',
      'Too many failed authentication attempts from this address.',
      { retry_after_seconds: retryAfter },
      { retryAfterSeconds: retryAfter },
    );
  return {
    /** Throws 429 when the address has used its failed-attempt allowance. */
    check(address: string): void {
      if (!limiter.wouldAllow(`ip:${address}`, perMinute))
        throw tooMany(limiter.take(`ip:${address}`, perMinute).retryAfter);
    },
    /** Counts one failed attempt; throws 429 when it was one too many. */
    fail(address: string): void {
      const d = limiter.take(`ip:${address}`, perMinute);
      if (!d.allowed) throw tooMany(d.retryAfter);
    },
  };
}

export type FailedAuthLimiter = ReturnType<typeof createFailedAuthLimiter>;

/**
 * Authenticates the request's Bearer key (never a query parameter). Failed attempts are counted per client address;
 * an address over its failed-auth allowance is refused with 429 before its key is looked at.
 */
export async function authenticateRequest(
  engine: Engine,
  failedAuth: FailedAuthLimiter,
  c: Context<HttpEnv>,
): Promise<Principal> {
  const ip = clientAddress(c);
  failedAuth.check(ip);
  try {
    return await authenticate(engine.db, engine.clock, bearerToken(c.req.header('authorization')));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'unauthorized') {
      engine.logger.info({ ip, requestId: c.get('requestId') }, 'authentication failed');
      failedAuth.fail(ip);
    }
    throw err;
  }
}
