/**
 * The figures a long import shows beside its bar: pages per second so far and the time left at that pace. Pure, so
 * the command passes its own clock and a test can check the wording without waiting.
 */

/** A duration as people read it: `42 s`, `3 min 20 s`, `1 h 5 min`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Pages per second over `elapsedMs` and the time the rest will take at that rate; `-` before there is a rate. */
export function importPace(done: number, total: number, elapsedMs: number): { rate: string; left: string } {
  if (done <= 0 || elapsedMs <= 0) return { rate: '-', left: '-' };
  const perSecond = (done * 1000) / elapsedMs;
  return { rate: perSecond.toFixed(1), left: formatDuration(((total - done) / perSecond) * 1000) };
}
