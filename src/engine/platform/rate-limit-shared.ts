/**
 * The request limiter of an installation whose processes share one PostgreSQL (engine/platform/rate-limit.ts has the rule):
 * each request is one `INSERT … ON CONFLICT DO UPDATE … RETURNING` on the key's row, so a key's limit holds exactly
 * however its requests are spread over the processes. Keys whose arrival time has passed are pruned once a minute.
 */
import type { Clock } from '../../clock.ts';
import type { Db, DbStats } from '../../store/db.ts';
import { pruneRateSlots, readRateSlot, takeRateSlot } from '../../store/repos/rate-limits.ts';
import { currentTat, decide, PERIOD_MS, type RateDecision, type RequestLimiter } from './rate-limit.ts';

export function createSharedRateLimiter(
  db: Db,
  clock: Clock,
  prefix = '',
  stats: Pick<DbStats, 'limiter'> = { limiter: 0 },
): RequestLimiter {
  let lastPrune = 0;
  return {
    async take(id: string, limit: number): Promise<RateDecision> {
      const now = clock.now();
      if (now - lastPrune >= PERIOD_MS) {
        lastPrune = now;
        stats.limiter++;
        await pruneRateSlots(db, now);
      }
      const interval = PERIOD_MS / limit;
      stats.limiter++;
      const slot = await takeRateSlot(db, prefix + id, interval, now, PERIOD_MS);
      if (slot.allowed) {
        // The row holds the new arrival time.
        return {
          allowed: true,
          limit,
          remaining: Math.max(0, Math.floor((PERIOD_MS - (slot.tat - now)) / interval + 1e-9)),
          resetAt: Math.ceil(slot.tat / 1000),
          retryAfter: 0,
        };
      }
      // Refused: the row is as it was, so its current arrival time says when the next request can pass.
      const { next: _next, ...decision } = decide(limit, currentTat(slot, interval, now), now);
      return { ...decision, allowed: false, retryAfter: Math.max(1, decision.retryAfter) };
    },
    async wouldAllow(id: string, limit: number): Promise<boolean> {
      const now = clock.now();
      stats.limiter++;
      const stored = await readRateSlot(db, prefix + id);
      return decide(limit, currentTat(stored, PERIOD_MS / limit, now), now).allowed;
    },
  };
}
