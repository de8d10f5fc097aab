import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import { immediate, type Db, type TxDb } from '../../store/db.ts';
import {
  claimRun,
  countExpiredLeases,
  parkRun,
  renewLease,
  updateLeasedRun,
  type Lease,
  type RunRow,
} from '../../store/repos/runs.ts';
import type { Metrics } from '../metrics.ts';
import { ProviderError } from '../../providers/types.ts';
import {
  keptCheckpoint,
  PermanentError,
  RetryableError,
  type CheckpointReader,
  type Pipeline,
  type WriteContext,
} from './types.ts';

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
  /** Where claims, step outcomes and run durations are recorded (engine/metrics.ts). */
  metrics?: Pick<Metrics, 'claimed' | 'stepEnded' | 'runEnded'>;
}

/** Announcements of new work between the processes sharing one store; polling stays the fallback. */
export interface WakeChannel {
  publish(): void;
  /** Calls `onWake` on every announcement (its own included); answers the unsubscribe. */
  subscribe(onWake: () => void): () => void;
}

/**
 * The client-safe text of a step failure, whether another attempt may succeed, and the least time to wait before it
 * (a provider's Retry-After).
 */
function classify(
  err: unknown,
  stepName: string,
): { message: string; retryable: boolean; waitMs: number; code?: string } {
  if (err instanceof PermanentError) return { message: err.message, retryable: false, waitMs: 0, code: err.code };
  if (err instanceof RetryableError) return { message: err.message, retryable: true, waitMs: err.retryAfterMs ?? 0 };
  if (err instanceof ProviderError)
    return { message: `${stepName}: ${err.message}`, retryable: err.retryable, waitMs: err.retryAfterMs ?? 0 };
  return { message: `${stepName} failed with an internal error`, retryable: true, waitMs: 0 };
}

/**
 * A run's write-backs are fenced by its lease and touch only its own rows (plus atomic ledger and counter updates), so
 * on PostgreSQL they run alongside other runs' write-backs; never alongside an operation's transaction.
 */
const WRITE_BACK = { alongsideRuns: true } as const;

/** The longest a run waits between attempts. */
const MAX_RETRY_DELAY_MS = 600_000;

class LeaseLost extends Error {}

/** A claimed run, its parsed checkpoint, and whether its step's stage was entered in the claim's transaction. */
interface Claimed {
  run: RunRow;
  checkpoint: Record<string, unknown>;
  entered: boolean;
}

/** Entering a claimed run's stage threw (the claim's transaction rolled back with it). */
class StageNotEntered extends Error {
  constructor(
    readonly run: RunRow,
    override readonly cause: unknown,
  ) {
    super(`entering the stage of ${run.kind} run ${run.id} failed`);
  }
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
  let scheduled = false;
  let ticking: Promise<void> | null = null;
  let again = false;
  const ticks = new Set<Promise<number>>();
  const idleWaiters: Array<() => void> = [];

  /** The typed reads of a checkpoint: its input and the outputs of the steps already finished. */
  const reader = (
    run: RunRow,
    checkpoint: Record<string, unknown>,
  ): CheckpointReader<unknown, Record<string, unknown>> => ({
    input: checkpoint.input,
    checkpoint,
    output(name) {
      if (!(name in checkpoint)) throw new Error(`${run.kind} run ${run.id}: step ${name} has no output yet`);
      return checkpoint[name];
    },
  });

  const writeCtx = (
    trx: TxDb,
    run: RunRow,
    checkpoint: Record<string, unknown>,
  ): WriteContext<unknown, Record<string, unknown>> => ({
    ...reader(run, checkpoint),
    trx,
    runId: run.id,
    resourceId: run.resource_id,
    orgId: run.org_id,
    now: clock.now(),
  });

  /** A fenced transaction: throws LeaseLost (and rolls back) when the lease is no longer ours. */
  const changed = (run: RunRow) => opts.onChange?.(run.kind, run.resource_id);

  async function fenced(
    run: RunRow,
    lease: Lease,
    work: (trx: TxDb) => Promise<void>,
    patch: Parameters<typeof updateLeasedRun>[2],
  ) {
    await immediate(
      db,
      async (trx) => {
        if (!(await updateLeasedRun(trx, lease, patch, clock.now()))) throw new LeaseLost();
        await work(trx);
      },
      WRITE_BACK,
    );
    changed(run);
  }

  async function fail(
    run: RunRow,
    lease: Lease,
    pipeline: Pipeline,
    checkpoint: Record<string, unknown>,
    message: string,
    code?: string,
  ) {
    await fenced(run, lease, (trx) => pipeline.onFail(writeCtx(trx, run, checkpoint), message, code), {
      state: 'failed',
      checkpoint: JSON.stringify(keptCheckpoint(pipeline, checkpoint)),
      last_error: message,
      lease_owner: null,
      lease_expires_at: null,
    });
    opts.metrics?.runEnded(run.kind, 'failed', clock.now() - run.created_at);
    logger.warn({ runId: run.id, kind: run.kind, resourceId: run.resource_id }, `run failed: ${message}`);
  }

  async function execute({ run, checkpoint, entered }: Claimed, abort: AbortController): Promise<void> {
    const pipeline = pipelines.get(run.kind)!;
    const lease: Lease = { runId: run.id, owner, token: run.lease_token };
    const step = pipeline.steps[run.step];
    const renew = setInterval(
      () => {
        renewLease(db, lease, clock.now() + opts.leaseMs)
          .then((held) => held || abort.abort(new LeaseLost()))
          .catch((err: unknown) => logger.warn({ err, runId: run.id }, 'lease renewal failed'));
      },
      Math.max(50, Math.floor(opts.leaseMs / 3)),
    );
    renew.unref();
    try {
      if (!step) {
        await fenced(run, lease, (trx) => pipeline.onComplete(writeCtx(trx, run, checkpoint)), {
          state: 'done',
          checkpoint: JSON.stringify(keptCheckpoint(pipeline, checkpoint)),
          lease_owner: null,
          lease_expires_at: null,
        });
        opts.metrics?.runEnded(run.kind, 'done', clock.now() - run.created_at);
        return;
      }
      const maxAttempts = pipeline.maxAttempts ?? run.max_attempts;
      if (run.attempts > maxAttempts) {
        await fail(
          run,
          lease,
          pipeline,
          checkpoint,
          run.last_error ?? `${step.name} did not finish after ${maxAttempts} attempts`,
        );
        return;
      }
      if (!entered) await fenced(run, lease, (trx) => enterStage(trx, run, checkpoint, step), {});
      const started = clock.now();
      const stepEnded = (outcome: 'ok' | 'retry' | 'failed') =>
        opts.metrics?.stepEnded(run.kind, outcome, clock.now() - started);
      let output: unknown;
      try {
        output = await step.run({
          ...reader(run, checkpoint),
          runId: run.id,
          resourceId: run.resource_id,
          orgId: run.org_id,
          attempt: run.attempts,
          lastAttempt: run.attempts >= maxAttempts,
          signal: abort.signal,
          db,
          idempotencyKey: (part) => `${run.id}:${step.name}${part ? `:${part}` : ''}`,
        });
        if (abort.signal.aborted) throw abort.signal.reason ?? new LeaseLost();
      } catch (err) {
        if (err instanceof LeaseLost || abort.signal.reason instanceof LeaseLost) throw new LeaseLost();
        if (stopping && abort.signal.aborted) {
          // Shutdown interrupted the step: hand the run back untouched, without spending an attempt.
          await fenced(run, lease, async () => undefined, handedBack(run));
          return;
        }
        const { message, retryable, waitMs, code } = classify(err, step.name);
        logger.warn({ err, runId: run.id, kind: run.kind, step: step.name, attempt: run.attempts }, 'step failed');
        if (!retryable || run.attempts >= maxAttempts) {
          await fail(run, lease, pipeline, checkpoint, message, code);
          stepEnded('failed');
        } else {
          // Exponential backoff, never sooner than the provider asked.
          const backoff = opts.retryBaseMs * 2 ** (run.attempts - 1);
          const delay = Math.min(MAX_RETRY_DELAY_MS, Math.max(backoff, waitMs));
          await fenced(run, lease, async () => undefined, {
            run_after: clock.now() + delay,
            last_error: message,
            lease_owner: null,
            lease_expires_at: null,
          });
          stepEnded('retry');
        }
        return;
      }
      const next = { ...checkpoint, [step.name]: output ?? null };
      const last = run.step + 1 >= pipeline.steps.length;
      let finished = false;
      await immediate(
        db,
        async (trx) => {
          // The fence and the move in one statement, as if the step does not pause: the row stays locked by this
          // transaction, so a pause (rare) corrects it below before anyone else can see it.
          const moved = await updateLeasedRun(
            trx,
            lease,
            {
              state: last ? 'done' : 'pending',
              step: run.step + 1,
              attempts: 0,
              run_after: clock.now(),
              checkpoint: JSON.stringify(last ? keptCheckpoint(pipeline, next) : next),
              last_error: null,
              lease_owner: null,
              lease_expires_at: null,
            },
            clock.now(),
          );
          if (!moved) throw new LeaseLost();
          const ctx = writeCtx(trx, run, next);
          const paused = (await step.persist?.(ctx, output)) === 'pause';
          if (paused) await parkRun(trx, run.id, JSON.stringify(next), clock.now());
          finished = last && !paused;
          if (finished) await pipeline.onComplete(ctx);
        },
        WRITE_BACK,
      );
      stepEnded('ok');
      if (finished) opts.metrics?.runEnded(run.kind, 'done', clock.now() - run.created_at);
      changed(run);
    } catch (err) {
      if (err instanceof LeaseLost) {
        logger.warn(
          { runId: run.id, kind: run.kind },
          'lease lost: discarding this attempt (another worker owns the run)',
        );
        return;
      }
      logger.error(
        { err, runId: run.id, kind: run.kind },
        'runner write-back failed; the lease will expire and the step re-run',
      );
    } finally {
      clearInterval(renew);
    }
  }

  /** A run given back untouched: no lease, and the attempt its claim counted is not spent. */
  const handedBack = (run: RunRow) => ({ attempts: run.attempts - 1, lease_owner: null, lease_expires_at: null });

  async function handBack(run: RunRow): Promise<void> {
    const lease: Lease = { runId: run.id, owner, token: run.lease_token };
    await updateLeasedRun(db, lease, handedBack(run), clock.now()).catch((err: unknown) =>
      logger.warn({ err, runId: run.id }, 'handing a run back failed; its lease will expire'),
    );
  }

  const enterStage = (trx: TxDb, run: RunRow, checkpoint: Record<string, unknown>, step: { stage: string }) =>
    pipelines.get(run.kind)!.enterStage(writeCtx(trx, run, checkpoint), step.stage);

  /**
   * Claims the oldest due run and, in the same transaction, enters its step's stage: one write fewer per step than
   * entering it apart. When entering fails, that transaction rolls back and a run is claimed alone; execute enters its
   * stage then, and a failure there counts against the run's attempts as any other.
   */
  async function claimNext(): Promise<Claimed | undefined> {
    try {
      return await immediate(
        db,
        async (trx) => {
          const run = await claimRun(trx, kinds, owner, clock.now(), opts.leaseMs);
          if (!run) return undefined;
          const checkpoint = JSON.parse(run.checkpoint) as Record<string, unknown>;
          const pipeline = pipelines.get(run.kind)!;
          const step = pipeline.steps[run.step];
          if (!step || run.attempts > (pipeline.maxAttempts ?? run.max_attempts))
            return { run, checkpoint, entered: false };
          await enterStage(trx, run, checkpoint, step).catch((err: unknown) => {
            throw new StageNotEntered(run, err);
          });
          return { run, checkpoint, entered: true };
        },
        WRITE_BACK,
      );
    } catch (err) {
      if (!(err instanceof StageNotEntered)) throw err;
      logger.warn({ err: err.cause, runId: err.run.id, kind: err.run.kind }, 'entering a stage failed; claiming alone');
      const run = await claimRun(db, kinds, owner, clock.now(), opts.leaseMs);
      return run && { run, checkpoint: JSON.parse(run.checkpoint) as Record<string, unknown>, entered: false };
    }
  }

  function launch(claim: Claimed): void {
    const { run } = claim;
    // Our own lease lapsed (renewal starved by a stalled event loop) and this process claimed the run again: the older
    // attempt is fenced out anyway, so stop it, and let only the newest attempt own the in-flight entry.
    inFlight.get(run.id)?.abort.abort(new LeaseLost());
    const abort = new AbortController();
    const entry = { abort, done: Promise.resolve() };
    entry.done = execute(claim, abort).finally(() => {
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
        claim = await claimNext();
      } catch (err) {
        logger.warn({ err }, 'claim failed; will retry');
        break;
      }
      if (!claim) break;
      const { run } = claim;
      if (claim.entered) changed(run);
      if (stopping) {
        // Stop began while this claim was on its way: hand the run back at once, without spending an attempt.
        await handBack(run);
        break;
      }
      claimed++;
      opts.metrics?.claimed(run.kind, clock.now() - run.run_after);
      launch(claim);
    }
    return claimed;
  }

  /**
   * Asks for a tick soon. A request while a tick is under way is kept and served when it ends: that tick's claim may
   * have looked before the work it announces was committed (a step's write-back racing a claim that found nothing).
   */
  function schedule(): void {
    if (stopping) return;
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
        if (scheduled) await new Promise<void>((resolve) => setImmediate(resolve));
        if (ticking) await ticking;
        const claimed = await tick();
        if (inFlight.size === 0) {
          if (claimed === 0 && !ticking && !scheduled) return;
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
