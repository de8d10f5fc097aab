import type { Clock } from '../../src/clock.ts';

export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

/** A clock that moves only when told: windows, leases and rate limits are tested without sleeping. */
export function createFakeClock(start = Date.parse('2026-11-01T12:00:00.000Z')): FakeClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => void (t += ms),
    set: (ms) => void (t = ms),
  };
}
