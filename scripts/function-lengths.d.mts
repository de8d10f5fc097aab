/** A function over the limit: its line count, path relative to the repository, first line (1-based) and name. */
export type LongFunction = [lines: number, path: string, line: number, name: string];

/** Every function over `limit` lines under `dir` (default: src/), longest first. */
export function longFunctions(limit: number, dir?: string): LongFunction[];
