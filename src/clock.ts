import { z } from 'zod';
/** A time as every record answers it: iso() of its milliseconds. */
export const Timestamp = z.string().describe('ISO 8601 UTC timestamp with milliseconds.');

/** Time as an injected collaborator: windows, leases, rate limits, trends and every wait read it; tests replace it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Resolves after `ms` of this clock's time (at once for `ms` <= 0), or early when `signal` aborts. Long-polls and
   * follows wait on it, so a test clock decides when their deadlines pass.
   */
  after(ms: number, signal?: AbortSignal): Promise<void>;
}

/** What a module that only reads the time needs of a clock (providers stamp fetches and answers with it). */
export type TimeSource = Pick<Clock, 'now'>;

export const systemClock: Clock = {
  now: () => Date.now(),
  after: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (ms <= 0 || signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
