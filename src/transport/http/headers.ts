import type { ApiError, RateLimitState } from '../../errors.ts';

/** The standard rate-limit headers for a decision (docs/api.md §1). */
export function rateLimitHeaders(d: RateLimitState): Record<string, string> {
  const h: Record<string, string> = {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(Math.max(0, d.remaining)),
    'X-RateLimit-Reset': String(d.resetAt),
  };
  if (!d.allowed) h['Retry-After'] = String(d.retryAfter);
  return h;
}

/** The headers an error answer carries: the rate-limit state, Retry-After and the Bearer challenge on 401. */
export function errorHeaders(err: ApiError): Record<string, string> {
  const h: Record<string, string> = err.hints.rate ? rateLimitHeaders(err.hints.rate) : {};
  if (err.hints.retryAfterSeconds !== undefined) h['Retry-After'] = String(err.hints.retryAfterSeconds);
  if (err.code === 'unauthorized') h['WWW-Authenticate'] = 'Bearer';
  return h;
}
