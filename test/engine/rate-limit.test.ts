import { describe, expect, it } from 'vitest';
import { createRateLimiter, type RateDecision } from '../../src/engine/platform/rate-limit.ts';
import { rateLimitHeaders } from '../../src/transport/http/headers.ts';
import { createFakeClock } from '../helpers/clock.ts';

// A minute boundary, so "00:59.9" and "01:00.1" read naturally.
const T0 = Date.parse('2026-11-01T12:00:00.000Z');

function burst(take: () => RateDecision, n: number): RateDecision[] {
  return Array.from({ length: n }, () => take());
}

describe('GCRA rate limiter (fake clock)', () => {
  it('lets a fresh key burst its full allowance, counting Remaining down to 0, then refuses', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    const ds = burst(() => rl.take('k', 30), 31);
    expect(ds.slice(0, 30).every((d) => d.allowed && d.limit === 30)).toBe(true);
    expect(ds.slice(0, 30).map((d) => d.remaining)).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
    const denied = ds[30]!;
    expect(denied).toMatchObject({ allowed: false, limit: 30, remaining: 0 });
  });

  it('answers Retry-After in whole seconds (at least 1) and Reset in epoch seconds when the allowance is full again', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    burst(() => rl.take('k', 30), 30);
    const d = rl.take('k', 30);
    expect(d.allowed).toBe(false);
    expect(Number.isInteger(d.retryAfter)).toBe(true);
    expect(d.retryAfter).toBe(2); // one request every 2 s at 30/min
    expect(d.resetAt).toBe(T0 / 1000 + 60);

    // Sub-second waits still round up to a whole second, never 0 and never milliseconds.
    const fast = createRateLimiter(clock);
    burst(() => fast.take('k', 120), 120);
    const f = fast.take('k', 120);
    expect(f).toMatchObject({ allowed: false, retryAfter: 1 });
    clock.advance(100);
    expect(fast.take('k', 120)).toMatchObject({ allowed: false, retryAfter: 1 });
  });

  it('does not let refused requests consume anything', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    burst(() => rl.take('k', 30), 30);
    const refused = burst(() => rl.take('k', 30), 50);
    expect(refused.every((d) => !d.allowed && d.retryAfter === 2 && d.resetAt === T0 / 1000 + 60)).toBe(true);
    clock.advance(2_000);
    expect(rl.take('k', 30).allowed).toBe(true);
  });

  it('passes again exactly after Retry-After, and refills at one request per interval', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    burst(() => rl.take('k', 30), 30);
    const d = rl.take('k', 30);
    clock.advance(d.retryAfter * 1000 - 1);
    expect(rl.take('k', 30).allowed).toBe(false);
    clock.advance(1);
    expect(rl.take('k', 30)).toMatchObject({ allowed: true, remaining: 0 });
    expect(rl.take('k', 30).allowed).toBe(false);
    // Over the next minute exactly 30 more pass when the caller keeps knocking every 100 ms.
    let passed = 0;
    for (let i = 0; i < 600; i++) {
      clock.advance(100);
      if (rl.take('k', 30).allowed) passed++;
    }
    expect(passed).toBe(30);
  });

  it('is back to the full allowance at X-RateLimit-Reset', () => {
    const clock = createFakeClock(T0 + 345); // not on a second boundary
    const rl = createRateLimiter(clock);
    const ds = burst(() => rl.take('k', 30), 10);
    const reset = ds[9]!.resetAt;
    expect(reset).toBe(Math.ceil((T0 + 345 + 20_000) / 1000));
    clock.set(reset * 1000);
    const again = burst(() => rl.take('k', 30), 31);
    expect(again.filter((d) => d.allowed)).toHaveLength(30);
    expect(again[0]!.remaining).toBe(29);
  });

  it('never passes two allowances across a minute boundary (30 at 00:59.9, 30 at 01:00.1)', () => {
    const clock = createFakeClock(T0 + 59_900);
    const rl = createRateLimiter(clock);
    const first = burst(() => rl.take('k', 30), 30);
    clock.set(T0 + 60_100);
    const second = burst(() => rl.take('k', 30), 30);
    expect(first.filter((d) => d.allowed)).toHaveLength(30);
    expect(second.filter((d) => d.allowed).length).toBeLessThanOrEqual(1);
  });

  it('never passes more than the limit plus the refill in any window (randomised arrivals)', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const passedAt: number[] = [];
    for (let i = 0; i < 5_000; i++) {
      clock.advance(Math.floor(rand() * 120));
      if (rl.take('k', 30).allowed) passedAt.push(clock.now());
    }
    // GCRA with burst 30 and a 2 s interval: at most 30 + floor(W / 2 s) in any window W.
    for (const windowMs of [1_000, 10_000, 60_000]) {
      let lo = 0;
      for (let hi = 0; hi < passedAt.length; hi++) {
        while (passedAt[hi]! - passedAt[lo]! >= windowMs) lo++;
        expect(hi - lo + 1).toBeLessThanOrEqual(30 + Math.floor(windowMs / 2_000));
      }
    }
  });

  it('keeps keys independent', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    burst(() => rl.take('a', 30), 31);
    expect(rl.take('a', 30).allowed).toBe(false);
    expect(rl.take('b', 30)).toMatchObject({ allowed: true, remaining: 29 });
  });

  it('carries the requests used in the current minute over when the limit changes', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    burst(() => rl.take('k', 30), 30);
    expect(rl.take('k', 30).allowed).toBe(false);
    // Upgrade 30 → 120: 30 used, so 90 are left and the next request passes at once.
    const up = rl.take('k', 120);
    expect(up).toMatchObject({ allowed: true, limit: 120, remaining: 89 });
    const rest = burst(() => rl.take('k', 120), 90);
    expect(rest.filter((d) => d.allowed)).toHaveLength(89);
    expect(rest[89]!).toMatchObject({ allowed: false, remaining: 0, retryAfter: 1 });

    // Downgrade 120 → 30 with 60 used: over the new allowance, refused, but never for longer than one refill.
    const other = createRateLimiter(clock);
    burst(() => other.take('k', 120), 60);
    const down = other.take('k', 30);
    expect(down).toMatchObject({ allowed: false, limit: 30, remaining: 0 });
    expect(down.retryAfter).toBeLessThanOrEqual(2);
  });

  it('checks without consuming in wouldAllow', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    for (let i = 0; i < 100; i++) expect(rl.wouldAllow('k', 3)).toBe(true);
    burst(() => rl.take('k', 3), 3);
    expect(rl.wouldAllow('k', 3)).toBe(false);
    clock.advance(20_000);
    expect(rl.wouldAllow('k', 3)).toBe(true);
  });

  it('forgets idle keys without changing their answers (pruning)', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    burst(() => rl.take('idle', 30), 30);
    clock.advance(61_000);
    expect(rl.take('other', 30).allowed).toBe(true); // triggers a prune pass
    expect(rl.take('idle', 30)).toMatchObject({ allowed: true, remaining: 29 });
  });

  it('renders headers as non-negative integers, with Retry-After only on refusals', () => {
    const clock = createFakeClock(T0);
    const rl = createRateLimiter(clock);
    const ok = rateLimitHeaders(rl.take('k', 2));
    expect(ok).toEqual({
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '1',
      'X-RateLimit-Reset': String(T0 / 1000 + 30),
    });
    rl.take('k', 2);
    const no = rateLimitHeaders(rl.take('k', 2));
    expect(no['X-RateLimit-Remaining']).toBe('0');
    expect(no['Retry-After']).toBe('30');
    for (const v of Object.values(no)) expect(v).toMatch(/^\d+$/);
  });
});
