/**
 * Coalesces requests for a tick: at most one tick under way and one scheduled. A request while a tick is under way is
 * kept and served when it ends: that tick's claim may have looked before the work it announces was committed (a
 * step's write-back racing a claim that found nothing).
 */
export function createTickScheduler(tick: () => Promise<number>, stopping: () => boolean) {
  let scheduled = false;
  let ticking: Promise<void> | null = null;
  let again = false;

  function schedule(): void {
    if (stopping()) return;
    if (ticking) {
      again = true;
      return;
    }
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (ticking) {
        again = true;
        return;
      }
      ticking = tick()
        .then(() => undefined)
        .finally(() => {
          ticking = null;
          if (again) {
            again = false;
            schedule();
          }
        });
    });
  }

  return {
    schedule,
    /** True while a tick is asked for and has not begun. */
    scheduled: () => scheduled,
    /** The tick under way, if any. */
    ticking: () => ticking,
  };
}
