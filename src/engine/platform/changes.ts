import { EventEmitter } from 'node:events';
import type { Clock } from '../../clock.ts';

/** How often a waiter re-checks for writes no local event announced (another process's). */
const RECHECK_MS = 250;

/** One macrotask: a loop of waits after closeAll() yields to I/O instead of starving it with resolved promises. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Change notifications for long-polling: the runner announces every committed write-back of a resource, and a
 * waiter wakes at once. Writes made by another process are not announced here, so a waiter also re-checks on a short
 * interval. Deadlines and re-checks run on the injected clock.
 *
 * At shutdown `closeAll()` wakes every waiter (each answers `false` after its last check) and every later wait returns
 * after one check, so long-polls and follows answer the current state instead of holding the server open.
 */
export function createChangeHub(clock: Clock) {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const channel = (kind: string, id: string) => `${kind}:${id}`;
  /** Aborted by closeAll(); every wait listens to it. */
  const closing = new AbortController();
  return {
    emit(kind: string, id: string): void {
      emitter.emit(channel(kind, id));
    },
    /** Shutdown: wakes every pending waitFor (it answers false) and makes later calls return after one check. */
    closeAll(): void {
      closing.abort();
    },
    /** True once closeAll() ran: a follow loop should answer what it has instead of waiting again. */
    get closed(): boolean {
      return closing.signal.aborted;
    },
    /**
     * Resolves when `done()` is true, re-checking on every announced change of the resource and every `recheckMs`,
     * or when `timeoutMs` passes, `signal` aborts or the hub is closed; answers whether `done()` became true.
     */
    async waitFor(
      kind: string,
      id: string,
      done: () => Promise<boolean>,
      timeoutMs: number,
      signal?: AbortSignal,
      recheckMs = RECHECK_MS,
    ): Promise<boolean> {
      const deadline = clock.now() + timeoutMs;
      if (await done()) return true;
      if (closing.signal.aborted) {
        // A caller that loops on waitFor (a follow) must not spin on resolved promises while the server drains.
        await nextTurn();
        return false;
      }
      if (timeoutMs <= 0 || signal?.aborted) return false;
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      closing.signal.addEventListener('abort', onAbort, { once: true });
      // An announcement that arrives while done() runs is remembered, so the next check follows at once.
      let pending = false;
      let wake: () => void = () => undefined;
      const announced = () => {
        pending = true;
        wake();
      };
      emitter.on(channel(kind, id), announced);
      try {
        for (;;) {
          const remaining = deadline - clock.now();
          if (remaining <= 0 || stop.signal.aborted) return false;
          const tick = new AbortController();
          const onStop = () => tick.abort();
          stop.signal.addEventListener('abort', onStop, { once: true });
          wake = () => tick.abort();
          if (!pending) await clock.after(Math.min(recheckMs, remaining), tick.signal);
          pending = false;
          stop.signal.removeEventListener('abort', onStop);
          if (stop.signal.aborted) return false;
          if (await done().catch(() => false)) return true;
        }
      } finally {
        emitter.off(channel(kind, id), announced);
        signal?.removeEventListener('abort', onAbort);
        closing.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

export type ChangeHub = ReturnType<typeof createChangeHub>;
