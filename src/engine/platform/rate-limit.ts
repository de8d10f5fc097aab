import type { RateLimitState } from '../../errors.ts';
import type { Clock } from '../../clock.ts';

/** What a limiter decided, with everything a transport needs to tell the caller. */
export type RateDecision = RateLimitState;

export const PERIOD_MS = 60_000;

/** A request limiter: in this process (SQLite, stdio) or shared by every process through PostgreSQL. */
export interface RequestLimiter {
  /** Consumes one request for `id` if allowed. */
  take(id: string, limit: number): RateDecision | Promise<RateDecision>;
  /** True when `id` could take one more request now, without consuming it. */
  wouldAllow(id: string, limit: number): boolean | Promise<boolean>;
}

/**
 * A stored TAT in terms of `interval`: the TAT itself at the same limit, rescaled by the requests it stands for when
 * the limit changed, or now when it has passed.
 */
export function currentTat(stored: { tat: number; interval: number } | undefined, interval: number, now: number) {
  if (!stored || stored.tat <= now) return now;
  if (stored.interval === interval) return stored.tat;
  const used = (stored.tat - now) / stored.interval;
  return now + Math.min(used * interval, PERIOD_MS);
}

/** The decision for a request arriving at `now` on a key whose current TAT is `current`. */
export function decide(limit: number, current: number, now: number): RateDecision & { next: number } {
  const interval = PERIOD_MS / limit;
  const next = current + interval;
  if (next - now > PERIOD_MS) {
    return {
      allowed: false,
      limit,
      remaining: 0,
      resetAt: Math.ceil(current / 1000),
      retryAfter: Math.max(1, Math.ceil((next - PERIOD_MS - now) / 1000)),
      next,
    };
  }
  return {
    allowed: true,
    limit,
    remaining: Math.max(0, Math.floor((PERIOD_MS - (next - now)) / interval + 1e-9)),
    resetAt: Math.ceil(next / 1000),
    retryAfter: 0,
    next,
  };
}

/**
 * GCRA (generic cell rate algorithm) per key: `limit` requests per minute with a burst of `limit`. One number per
 * key, the theoretical arrival time (TAT); exact at every instant, unlike fixed windows, so a burst at a minute
 * boundary cannot pass twice the limit. Check and consume are one synchronous step, so concurrent requests in this
 * process can never both take the last slot. This one keeps its state in the process (SQLite installations, stdio);
 * engine/platform/rate-limit-shared.ts keeps it in PostgreSQL for installations of several processes.
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

  return {
    take(id: string, limit: number): RateDecision {
      const now = clock.now();
      prune(now);
      const interval = PERIOD_MS / limit;
      const { next, ...decision } = decide(limit, currentTat(state.get(id), interval, now), now);
      if (decision.allowed) state.set(id, { tat: next, interval });
      return decision;
    },
    wouldAllow(id: string, limit: number): boolean {
      const now = clock.now();
      return decide(limit, currentTat(state.get(id), PERIOD_MS / limit, now), now).allowed;
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
