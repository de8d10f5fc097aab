import type { RateLimitState } from '../errors.ts';
import type { Clock } from '../clock.ts';

/** What a limiter decided, with everything a transport needs to tell the caller. */
export type RateDecision = RateLimitState;

const PERIOD_MS = 60_000;

/**
 * GCRA (generic cell rate algorithm) per key: `limit` requests per minute with a burst of `limit`. One number per
 * key, the theoretical arrival time (TAT); exact at every instant, unlike fixed windows, so a burst at a minute
 * boundary cannot pass twice the limit. Check and consume are one synchronous step, so concurrent requests in this
 * process can never both take the last slot. State is per process (documented in the README).
 * When a key's limit changes (plan upgrade or downgrade) the requests it used in the current minute carry over, up to
 * the new allowance, so an upgrade helps on the very next request.
 */
export function createRateLimiter(clock: Clock) {
  const state = new Map<string, { tat: number; interval: number }>();
  let lastPrune = 0;

  function prune(now: number): void {
    if (now - lastPrune < PERIOD_MS) return;
    lastPrune = now;
    for (const [k, s] of state) if (s.tat <= now) state.delete(k);
  }

  /** The key's TAT in terms of `interval`: a TAT kept at another limit is rescaled by the requests it stands for. */
  function currentTat(id: string, interval: number, now: number): number {
    const s = state.get(id);
    if (!s || s.tat <= now) return now;
    if (s.interval === interval) return s.tat;
    const used = (s.tat - now) / s.interval;
    return now + Math.min(used * interval, PERIOD_MS);
  }

  return {
    /** Consumes one request for `id` if allowed. */
    take(id: string, limit: number): RateDecision {
      const now = clock.now();
      prune(now);
      const interval = PERIOD_MS / limit;
      const current = currentTat(id, interval, now);
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
      state.set(id, { tat: next, interval });
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
      const interval = PERIOD_MS / limit;
      return currentTat(id, interval, now) + interval - now <= PERIOD_MS;
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
