import type { Clock } from '../clock.ts';

/** What a limiter decided, with everything the rate-limit headers need. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the key is back to its full allowance. */
  resetAt: number;
  /** Whole seconds to wait before the next request can pass (0 when allowed). */
  retryAfter: number;
}

const PERIOD_MS = 60_000;

/**
 * GCRA (generic cell rate algorithm) per key: `limit` requests per minute with a burst of `limit`. One number per
 * key, the theoretical arrival time (TAT); exact at every instant, unlike fixed windows, so a burst at a minute
 * boundary cannot pass twice the limit. Check and consume are one synchronous step, so concurrent requests in this
 * process can never both take the last slot. State is per process (documented in the README).
 */
export function createRateLimiter(clock: Clock) {
  const tat = new Map<string, number>();
  let lastPrune = 0;

  function prune(now: number): void {
    if (now - lastPrune < PERIOD_MS) return;
    lastPrune = now;
    for (const [k, t] of tat) if (t <= now) tat.delete(k);
  }

  return {
    /** Consumes one request for `id` if allowed. */
    take(id: string, limit: number): RateDecision {
      const now = clock.now();
      prune(now);
      const interval = PERIOD_MS / limit;
      const current = Math.max(tat.get(id) ?? now, now);
      const next = current + interval;
      if (next - now > PERIOD_MS) {
        const waitMs = next - PERIOD_MS - now;
        return {
          allowed: false,
          limit,
          remaining: 0,
          resetAt: Math.ceil(current / 1000),
          retryAfter: Math.max(1, Math.ceil(waitMs / 1000)),
        };
      }
      tat.set(id, next);
      return {
        allowed: true,
        limit,
        remaining: Math.max(0, Math.floor((PERIOD_MS - (next - now)) / interval + 1e-9)),
        resetAt: Math.ceil(next / 1000),
        retryAfter: 0,
      };
    },
    /** True when `id` could take one more request now, without consuming it. */
    wouldAllow(id: string, limit: number): boolean {
      const now = clock.now();
      const current = Math.max(tat.get(id) ?? now, now);
      return current + PERIOD_MS / limit - now <= PERIOD_MS;
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The standard headers for a decision (API.md section 1). */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const h: Record<string, string> = {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(Math.max(0, d.remaining)),
    'X-RateLimit-Reset': String(d.resetAt),
  };
  if (!d.allowed) h['Retry-After'] = String(d.retryAfter);
  return h;
}
