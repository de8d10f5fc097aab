import { EventEmitter } from 'node:events';

/**
 * Change notifications for long-polling: the runner announces every committed write-back of a resource, and a
 * waiter wakes at once. Writes made by another process are not announced here, so a waiter also re-checks on a short
 * interval.
 */
export function createChangeHub() {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const channel = (kind: string, id: string) => `${kind}:${id}`;
  return {
    emit(kind: string, id: string): void {
      emitter.emit(channel(kind, id));
    },
    /**
     * Resolves when `done()` is true, re-checking on every announced change of the resource and every `recheckMs`,
     * or when `timeoutMs` passes or `signal` aborts; answers whether `done()` became true.
     */
    async waitFor(
      kind: string,
      id: string,
      done: () => Promise<boolean>,
      timeoutMs: number,
      signal?: AbortSignal,
      recheckMs = 250,
    ): Promise<boolean> {
      if (await done()) return true;
      if (timeoutMs <= 0) return false;
      return new Promise<boolean>((resolve) => {
        let settled = false;
        let checking = false;
        const name = channel(kind, id);
        const finish = (value: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearInterval(poll);
          emitter.off(name, recheck);
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        };
        const recheck = () => {
          if (checking || settled) return;
          checking = true;
          done()
            .then((ok) => ok && finish(true))
            .catch(() => undefined)
            .finally(() => (checking = false));
        };
        const onAbort = () => finish(false);
        const timer = setTimeout(() => finish(false), timeoutMs);
        const poll = setInterval(recheck, recheckMs);
        emitter.on(name, recheck);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}

export type ChangeHub = ReturnType<typeof createChangeHub>;
