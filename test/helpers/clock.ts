import type { Clock } from '../../src/clock.ts';

export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
  /** Waits (`after`) not yet over: a test knows a waiter has reached its wait before it moves time. */
  pending(): number;
}

/** A clock that moves only when told: windows, leases, rate limits and waits are tested without sleeping. */
export function createFakeClock(start = Date.parse('2026-11-01T12:00:00.000Z')): FakeClock {
  let t = start;
  const timers = new Set<{ at: number; fire: () => void }>();
  const fireDue = () => {
    for (const timer of [...timers]) if (timer.at <= t) timer.fire();
  };
  return {
    now: () => t,
    after: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (ms <= 0 || signal?.aborted) return resolve();
        const timer = {
          at: t + ms,
          fire: () => {
            timers.delete(timer);
            signal?.removeEventListener('abort', timer.fire);
            resolve();
          },
        };
        timers.add(timer);
        signal?.addEventListener('abort', timer.fire, { once: true });
      }),
    advance: (ms) => {
      t += ms;
      fireDue();
    },
    set: (ms) => {
      t = ms;
      fireDue();
    },
    pending: () => timers.size,
  };
}
