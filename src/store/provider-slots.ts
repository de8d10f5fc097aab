/**
 * Installation-wide slots for outbound provider calls (PostgreSQL only): slot `i` of a provider kind is the session
 * advisory lock `(SLOT_SPACE + kind's index, i)`, held by one dedicated connection per process while a call runs. A
 * process that dies, or loses that connection, frees its slots with it, so nothing needs a lease or a sweep. A process
 * never tries a slot it already holds (advisory locks are re-entrant within a session). When every slot is taken the
 * caller waits for a slot this process frees, or looks again after `pollMs` on the engine's clock for one another
 * process freed.
 */
import pg from 'pg';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

export const PROVIDER_SLOT_KINDS = ['search', 'fetch', 'writer', 'answer'] as const;
export type ProviderSlotKind = (typeof PROVIDER_SLOT_KINDS)[number];

/** The first key of the two-key advisory lock space ('AGAP' in ASCII); a kind adds its index. */
const SLOT_SPACE = 0x41474150;

export interface ProviderSlots {
  /** Waits for a free slot of `kind` among `cap`; answers its release (idempotent). Rejects when `signal` aborts. */
  acquire(kind: ProviderSlotKind, cap: number, signal?: AbortSignal): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export function createProviderSlots(
  url: string,
  deps: { clock: Clock; logger: Logger; pollMs: number },
): ProviderSlots {
  const held = new Map<ProviderSlotKind, Set<number>>(PROVIDER_SLOT_KINDS.map((k) => [k, new Set<number>()]));
  const freed = new Set<() => void>();
  let client: Promise<pg.Client> | null = null;
  let closed = false;

  const connection = (): Promise<pg.Client> => {
    if (client) return client;
    const c = new pg.Client({ connectionString: url });
    const opening = c.connect().then(() => c);
    client = opening;
    c.on('error', (err) => {
      deps.logger.warn({ err }, 'the provider slot connection dropped; its slots are free again');
      lost(opening);
    });
    opening.catch(() => lost(opening));
    return opening;
  };

  /** The connection is gone: the server freed its locks, so this process holds nothing any more. */
  const lost = (which: Promise<pg.Client>) => {
    if (client !== which) return;
    client = null;
    void which.then((c) => c.end()).catch(() => undefined);
    for (const slots of held.values()) slots.clear();
    wakeWaiters();
  };

  const wakeWaiters = () => {
    for (const w of [...freed]) w();
  };

  /** One pass over the kind's slots on the current connection: the slot taken and that connection, or null. */
  const tryTake = async (kind: ProviderSlotKind, cap: number) => {
    const mine = held.get(kind)!;
    const owner = connection();
    const c = await owner;
    for (let slot = 0; slot < cap; slot++) {
      if (mine.has(slot)) continue;
      // Claimed locally before the round trip, so two callers of this process never try the same slot at once.
      mine.add(slot);
      let ok = false;
      try {
        const r = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [
          SLOT_SPACE + index(kind),
          slot,
        ]);
        ok = r.rows[0]!.ok;
      } finally {
        if (!ok) mine.delete(slot);
      }
      if (ok) return { slot, owner };
    }
    return null;
  };

  const release = (kind: ProviderSlotKind, slot: number, owner: Promise<pg.Client>) => {
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      // A slot of a connection since lost was freed with it.
      if (client === owner && held.get(kind)!.delete(slot)) {
        await (
          await owner
        )
          .query('select pg_advisory_unlock($1, $2)', [SLOT_SPACE + index(kind), slot])
          .catch((err: unknown) => deps.logger.warn({ err, kind, slot }, 'could not free a provider slot'));
      }
      wakeWaiters();
    };
  };

  /** Resolves when this process frees a slot or `pollMs` passes, whichever is first; rejects when `signal` aborts. */
  const nextChance = (signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const timer = new AbortController();
      const settle = (err?: unknown) => {
        if (timer.signal.aborted) return;
        freed.delete(wake);
        signal?.removeEventListener('abort', onAbort);
        timer.abort();
        if (err === undefined) resolve();
        else reject(err);
      };
      const wake = () => settle();
      const onAbort = () => settle(signal!.reason ?? new Error('aborted'));
      if (signal?.aborted) return onAbort();
      freed.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
      void deps.clock.after(deps.pollMs, timer.signal).then(wake);
    });

  return {
    async acquire(kind, cap, signal) {
      for (;;) {
        if (closed) throw new Error('provider slots are closed');
        signal?.throwIfAborted();
        const taken = await tryTake(kind, cap);
        if (taken) return release(kind, taken.slot, taken.owner);
        await nextChance(signal);
      }
    },
    async close() {
      closed = true;
      wakeWaiters();
      const c = client;
      client = null;
      await c?.then((x) => x.end()).catch(() => undefined);
    },
  };
}

const index = (kind: ProviderSlotKind) => PROVIDER_SLOT_KINDS.indexOf(kind);
