import type { Context } from 'hono';
import { ApiError } from '../../errors.ts';
import { authenticate, bearerToken, type Principal } from '../../engine/auth.ts';
import type { Engine } from '../../engine/engine.ts';
import type { HttpEnv } from './guards.ts';

export function clientAddress(c: Context<HttpEnv>): string {
  return c.env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/**
 * Authenticates the request's Bearer key (never a query parameter). Failed attempts are counted per client address;
 * an address over its failed-auth allowance is refused with 429 before its key is looked at.
 */
export async function authenticateRequest(engine: Engine, c: Context<HttpEnv>): Promise<Principal> {
  const ip = clientAddress(c);
  const perMinute = engine.settings.failedAuthPerMinute;
  if (!engine.failedAuthLimiter.wouldAllow(`ip:${ip}`, perMinute)) {
    const d = engine.failedAuthLimiter.take(`ip:${ip}`, perMinute);
    throw new ApiError(
      'rate_limit_exceeded',
      'Too many failed authentication attempts from this address.',
      { retry_after_seconds: d.retryAfter },
      { 'Retry-After': String(d.retryAfter) },
    );
  }
  try {
    return await authenticate(engine.db, engine.clock, bearerToken(c.req.header('authorization')));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'unauthorized') {
      const d = engine.failedAuthLimiter.take(`ip:${ip}`, perMinute);
      engine.logger.info({ ip, requestId: c.get('requestId') }, 'authentication failed');
      if (!d.allowed) {
        throw new ApiError(
          'rate_limit_exceeded',
          'Too many failed authentication attempts from this address.',
          { retry_after_seconds: d.retryAfter },
          { 'Retry-After': String(d.retryAfter) },
        );
      }
    }
    throw err;
  }
}
