/**
 * import-progress.ts: the pace a long import shows (pages per second, time left), from a clock the caller passes.
 */
import { describe, expect, it } from 'vitest';
import { formatDuration, importPace } from '../../src/cli/import-progress.ts';

describe('importPace', () => {
  it('is unknown before the first page or the first millisecond', () => {
    expect(importPace(0, 100, 5000)).toEqual({ rate: '-', left: '-' });
    expect(importPace(5, 100, 0)).toEqual({ rate: '-', left: '-' });
  });

  it('gives pages per second so far and the time the rest takes at that rate', () => {
    expect(importPace(50, 350, 2000)).toEqual({ rate: '25.0', left: '12 s' });
    expect(importPace(100, 2000, 4000)).toEqual({ rate: '25.0', left: '1 min 16 s' });
    expect(importPace(350, 350, 3500)).toEqual({ rate: '100.0', left: '0 s' });
  });
});

describe('formatDuration', () => {
  it('reads as seconds, minutes and hours', () => {
    expect(formatDuration(400)).toBe('0 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(200_000)).toBe('3 min 20 s');
    expect(formatDuration(3_900_000)).toBe('1 h 5 min');
  });
});
