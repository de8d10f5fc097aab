/** Time as an injected collaborator: windows, leases, rate limits and trends read it; tests replace it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
