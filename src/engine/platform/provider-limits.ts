/**
 * Outbound concurrency per provider kind, so one large job cannot starve the others: a per-process queue for each
 * kind (AGENT_API_*_CONCURRENCY), and on PostgreSQL an optional cap across every process of the installation
 * (AGENT_API_*_GLOBAL_CONCURRENCY, store/provider-slots.ts). A call first takes its place in this process's queue, then
 * a global slot, so a process never holds more global slots than its own limit.
 */
import PQueue from 'p-queue';
import type { ProviderSlotKind, ProviderSlots } from '../../store/provider-slots.ts';
import type { Metrics } from './metrics.ts';

export type ProviderKind = ProviderSlotKind;

export interface ProviderLimit {
  /** Runs `call` when this kind has room here (and installation-wide, when capped); rejects when `signal` aborts. */
  add<T>(call: () => Promise<T>, options?: { signal?: AbortSignal }): Promise<T>;
}

export type ProviderLimits = Record<ProviderKind, ProviderLimit>;

export interface ProviderLimitSettings {
  /** Calls in flight per kind in this process. */
  concurrency: Record<ProviderKind, number>;
  /** Calls in flight per kind across the installation; 0 or absent: no cap beyond the process's own. */
  global?: Partial<Record<ProviderKind, number>>;
}

export function createProviderLimits(
  settings: ProviderLimitSettings,
  slots: ProviderSlots | null,
  metrics: Pick<Metrics, 'providerCall'> | null = null,
): ProviderLimits {
  const limit = (kind: ProviderKind): ProviderLimit => {
    const queue = new PQueue({ concurrency: settings.concurrency[kind] });
    const cap = settings.global?.[kind] ?? 0;
    /** The call itself, counted and timed (from when it had its slots). */
    const measured = async <T>(call: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        const result = await call();
        metrics?.providerCall(kind, true, performance.now() - started);
        return result;
      } catch (err) {
        metrics?.providerCall(kind, false, performance.now() - started);
        throw err;
      }
    };
    const capped =
      !slots || cap <= 0
        ? measured
        : async <T>(call: () => Promise<T>, signal?: AbortSignal) => {
            const release = await slots.acquire(kind, cap, signal);
            try {
              return await measured(call);
            } finally {
              await release();
            }
          };
    return {
      add: <T>(call: () => Promise<T>, options?: { signal?: AbortSignal }) =>
        queue.add(() => capped(call, options?.signal), options) as Promise<T>,
    };
  };
  return { search: limit('search'), fetch: limit('fetch'), writer: limit('writer'), answer: limit('answer') };
}
