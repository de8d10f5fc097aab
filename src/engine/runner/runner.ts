import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import type { Db } from '../../store/db.ts';
import { countExpiredLeases, type RunRow } from '../../store/repos/runs.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { Pipeline } from './types.ts';
import { LeaseLost, type Claimed, type RunDeps } from './write-back.ts';
import { executeRun } from './execute.ts';
import { claimNext, handBack } from './claim.ts';
import { createTickScheduler } from './schedule.ts';

export interface RunnerOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  pipelines?: readonly Pipeline[];
  /** Steps in flight at once in this process. */
  concurrency: number;
  leaseMs: number;
  /** First retry delay; doubles per attempt, capped at 10 minutes. */
  retryBaseMs: number;
  /** How often to look for due work that no local event announced (other processes, retries, expired leases). */
  pollMs: number;
  /** Lease owner name; defaults to host:pid:random. */
  owner?: string;
  /** Called after every committed write that moved a run's resource (long-polling waiters wake on it). */
  onChange?: (kind: string, resourceId: string) => void;
  /** Tells the installation's other processes that work was accepted, and hears them (PostgreSQL's LISTEN/NOTIFY). */
  wake?: WakeChannel;
  /** Where claims, step outcomes and run durations are recorded (engine/platform/metrics.ts). */
  metrics?: Pick<Metrics, 'claimed' | 'stepEnded' | 'runEnded'>;
}

/** Announcements of new work between the processes sharing one store; polling stays the fallback. */
export interface WakeChannel {
  publish(): void;
  /** Calls `onWake` on every announcement (its own included); answers the unsubscribe. */
  subscribe(onWake: () => void): () => void;
}

/**
 * The durable runner: runs are rows, claimed with a lease by one statement, run one step at a time, and written back
 * in one fenced transaction (output, resource move, queue row). Expired leases are claimable, so work a crashed
 * process held is picked up again; a stalled worker's late write-back fails the fencing check and is discarded.
 */
export function createRunner(opts: RunnerOptions) {
  const { db, clock, logger } = opts;
  const owner = opts.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const pipelines = new Map((opts.pipelines ?? []).map((p) => [p.kind, p]));
  let kinds = [...pipelines.keys()];
  const inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let stopping = false;
  const ticks = new Set<Promise<number>>();
  const idleWaiters: Array<() => void> = [];
  const deps: RunDeps = {
    db,
    clock,
    logger,
    owner,
    pipelines,
    kinds: () => kinds,
    leaseMs: opts.leaseMs,
    retryBaseMs: opts.retryBaseMs,
    metrics: opts.metrics,
    changed: (run: RunRow) => opts.onChange?.(run.kind, run.resource_id),
    stopping: () => stopping,
  };

  function launch(claim: Claimed): void {
    const { run } = claim;
    // Our own lease lapsed (renewal starved by a stalled event loop) and this process claimed the run again: the older
    // attempt is fenced out anyway, so stop it, and let only the newest attempt own the in-flight entry.
    inFlight.get(run.id)?.abort.abort(new LeaseLost());
    const abort = new AbortController();
    const entry = { abort, done: Promise.resolve() };
    entry.done = executeRun(deps, claim, abort).finally(() => {
      if (inFlight.get(run.id) === entry) inFlight.delete(run.id);
      schedule();
      if (inFlight.size === 0) idleWaiters.splice(0).forEach((w) => w());
    });
    inFlight.set(run.id, entry);
  }

  /** Claims due runs up to the concurrency limit; stop() waits for the ticks under way. */
  function tick(): Promise<number> {
    const t = claimDue().finally(() => ticks.delete(t));
    ticks.add(t);
    return t;
  }

  async function claimDue(): Promise<number> {
    let claimed = 0;
    while (!stopping && inFlight.size < opts.concurrency) {
      let claim: Claimed | undefined;
      try {
        claim = await claimNext(deps);
      } catch (err) {
        logger.warn({ err }, 'claim failed; will retry');
        break;
      }
      if (!claim) break;
      const { run } = claim;
      if (claim.entered) deps.changed(run);
      if (stopping) {
        // Stop began while this claim was on its way: hand the run back at once, without spending an attempt.
        await handBack(deps, run);
        break;
      }
      claimed++;
      opts.metrics?.claimed(run.kind, clock.now() - run.run_after);
      launch(claim);
    }
    return claimed;
  }

  const ticker = createTickScheduler(tick, () => stopping);
  const schedule = ticker.schedule;

  return {
    owner,
    /** The run kinds this runner serves. */
    kinds: (): readonly string[] => kinds,
    /** Adds a pipeline (families register theirs once the engine exists). */
    register(pipeline: Pipeline): void {
      pipelines.set(pipeline.kind, pipeline);
      kinds = [...pipelines.keys()];
    },
    /** Starts polling and claims what is due now, including runs whose leases expired while nobody held them. */
    async start(): Promise<void> {
      stopping = false;
      const expired = await countExpiredLeases(db, clock.now());
      if (expired) logger.info({ expired }, 'recovering runs whose lease expired');
      timer = setInterval(schedule, opts.pollMs);
      timer.unref();
      unsubscribe = opts.wake?.subscribe(schedule);
      schedule();
    },
    /** Announces new work (after a commit) so it starts without waiting for the poll, here and in other processes. */
    notify(): void {
      schedule();
      opts.wake?.publish();
    },
    /** Claims and runs until nothing is due and nothing is in flight (tests and benchmarks; fake clocks). */
    async runUntilIdle(): Promise<void> {
      for (;;) {
        // A scheduled tick may be claiming right now (on PostgreSQL this tick would skip the row it has locked):
        // let it finish, so what it claims is in flight before idleness is judged.
        if (ticker.scheduled()) await new Promise<void>((resolve) => setImmediate(resolve));
        const ticking = ticker.ticking();
        if (ticking) await ticking;
        const claimed = await tick();
        if (inFlight.size === 0) {
          if (claimed === 0 && !ticker.ticking() && !ticker.scheduled()) return;
          // What tick claimed already finished (a fast failure): look again instead of racing no promises forever.
          continue;
        }
        await Promise.race([...inFlight.values()].map((f) => f.done));
      }
    },
    /**
     * Graceful stop: claim nothing more, let steps in flight finish for up to `graceMs`, then abort the rest; an
     * aborted step hands its run back (lease released, attempt not counted), so a restart resumes it at once.
     */
    async stop(graceMs = 10_000): Promise<void> {
      stopping = true;
      if (timer) clearInterval(timer);
      unsubscribe?.();
      unsubscribe = undefined;
      // A claim on its way finishes first (what it claims is handed back), so nothing starts after stop returns.
      await Promise.allSettled(ticks);
      if (inFlight.size === 0) return;
      const idle = new Promise<void>((resolve) => idleWaiters.push(resolve));
      const t = setTimeout(() => inFlight.forEach((f) => f.abort.abort()), graceMs);
      await idle;
      clearTimeout(t);
    },
    inFlight: () => inFlight.size,
  };
}

export type Runner = ReturnType<typeof createRunner>;
