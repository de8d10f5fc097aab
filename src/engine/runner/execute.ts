import { immediate } from '../../store/db.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import { parkRun, renewLease, updateLeasedRun, type Lease, type RunRow } from '../../store/repos/runs.ts';
import { ProviderError } from '../../providers/types.ts';
import { keptCheckpoint, PermanentError, RetryableError, type Pipeline } from './types.ts';
import {
  checkpointReader,
  enterStage,
  failRun,
  fenced,
  handedBack,
  leaseOf,
  LeaseLost,
  WRITE_BACK,
  writeContext,
  type Claimed,
  type RunDeps,
} from './write-back.ts';

/** The longest a run waits between attempts. */
const MAX_RETRY_DELAY_MS = 600_000;

type Step = Pipeline['steps'][number];
type StepOutcome = 'ok' | 'retry' | 'failed';

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

/** Renews the lease every third of its length; aborts the attempt once the lease is no longer ours. */
function keepLease(deps: RunDeps, run: RunRow, lease: Lease, abort: AbortController): NodeJS.Timeout {
  const renew = setInterval(
    () => {
      renewLease(deps.db, lease, deps.clock.now() + deps.leaseMs)
        .then((held) => held || abort.abort(new LeaseLost()))
        .catch((err: unknown) => deps.logger.warn({ err, runId: run.id }, 'lease renewal failed'));
    },
    Math.max(50, Math.floor(deps.leaseMs / 3)),
  );
  renew.unref();
  return renew;
}

/** One claimed attempt: where it stands and what it runs. */
interface Attempt {
  run: RunRow;
  lease: Lease;
  pipeline: Pipeline;
  checkpoint: Record<string, unknown>;
  step: Step;
  maxAttempts: number;
  abort: AbortController;
  stepEnded: (outcome: StepOutcome) => void;
}

/** A step that threw: hand the run back (shutdown), fail it, or schedule its retry with backoff. */
async function settleFailure(deps: RunDeps, a: Attempt, err: unknown): Promise<void> {
  const { run, lease, step, abort } = a;
  if (err instanceof LeaseLost || abort.signal.reason instanceof LeaseLost) throw new LeaseLost();
  if (deps.stopping() && abort.signal.aborted) {
    // Shutdown interrupted the step: hand the run back untouched, without spending an attempt.
    await fenced(deps, run, lease, async () => undefined, handedBack(run));
    return;
  }
  const { message, retryable, waitMs, code } = classify(err, step.name);
  deps.logger.warn({ err, runId: run.id, kind: run.kind, step: step.name, attempt: run.attempts }, 'step failed');
  if (!retryable || run.attempts >= a.maxAttempts) {
    await failRun(deps, run, lease, a.pipeline, a.checkpoint, message, code);
    a.stepEnded('failed');
  } else {
    // Exponential backoff, never sooner than the provider asked.
    const backoff = deps.retryBaseMs * 2 ** (run.attempts - 1);
    const delay = Math.min(MAX_RETRY_DELAY_MS, Math.max(backoff, waitMs));
    await fenced(deps, run, lease, async () => undefined, {
      run_after: deps.clock.now() + delay,
      last_error: message,
      lease_owner: null,
      lease_expires_at: null,
    });
    a.stepEnded('retry');
  }
}

/** A step that finished: its output, the run's move and the resource's write, in one fenced transaction. */
async function commitStep(deps: RunDeps, a: Attempt, output: unknown): Promise<void> {
  const { run, lease, pipeline, step } = a;
  const next = { ...a.checkpoint, [step.name]: output ?? null };
  const last = run.step + 1 >= pipeline.steps.length;
  let finished = false;
  await immediate(
    deps.db,
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
          run_after: deps.clock.now(),
          checkpoint: JSON_COLUMNS.runs.checkpoint.write(last ? keptCheckpoint(pipeline, next) : next),
          last_error: null,
          lease_owner: null,
          lease_expires_at: null,
        },
        deps.clock.now(),
      );
      if (!moved) throw new LeaseLost();
      const ctx = writeContext(deps, trx, run, next);
      const paused = (await step.persist?.(ctx, output)) === 'pause';
      if (paused) await parkRun(trx, run.id, JSON_COLUMNS.runs.checkpoint.write(next), deps.clock.now());
      finished = last && !paused;
      if (finished) await pipeline.onComplete(ctx);
    },
    WRITE_BACK,
  );
  a.stepEnded('ok');
  if (finished) deps.metrics?.runEnded(run.kind, 'done', deps.clock.now() - run.created_at);
  deps.changed(run);
}

/** Runs the step of an attempt that may run, then settles it (failure) or commits it (success). */
async function runStep(deps: RunDeps, a: Attempt): Promise<void> {
  const { run, step, abort } = a;
  let output: unknown;
  try {
    output = await step.run({
      ...checkpointReader(run, a.checkpoint),
      runId: run.id,
      resourceId: run.resource_id,
      orgId: run.org_id,
      attempt: run.attempts,
      lastAttempt: run.attempts >= a.maxAttempts,
      signal: abort.signal,
      db: deps.db,
      idempotencyKey: (part) => `${run.id}:${step.name}${part ? `:${part}` : ''}`,
    });
    if (abort.signal.aborted) throw abort.signal.reason ?? new LeaseLost();
  } catch (err) {
    await settleFailure(deps, a, err);
    return;
  }
  await commitStep(deps, a, output);
}

/** One claimed attempt at a run: complete it, fail it when out of attempts, or run its step. */
async function attempt(deps: RunDeps, { run, checkpoint, entered }: Claimed, abort: AbortController, lease: Lease) {
  const pipeline = deps.pipelines.get(run.kind)!;
  const step = pipeline.steps[run.step];
  if (!step) {
    await fenced(deps, run, lease, (trx) => pipeline.onComplete(writeContext(deps, trx, run, checkpoint)), {
      state: 'done',
      checkpoint: JSON_COLUMNS.runs.checkpoint.write(keptCheckpoint(pipeline, checkpoint)),
      lease_owner: null,
      lease_expires_at: null,
    });
    deps.metrics?.runEnded(run.kind, 'done', deps.clock.now() - run.created_at);
    return;
  }
  const maxAttempts = pipeline.maxAttempts ?? run.max_attempts;
  if (run.attempts > maxAttempts) {
    await failRun(
      deps,
      run,
      lease,
      pipeline,
      checkpoint,
      run.last_error ?? `${step.name} did not finish after ${maxAttempts} attempts`,
    );
    return;
  }
  if (!entered) await fenced(deps, run, lease, (trx) => enterStage(deps, trx, run, checkpoint, step), {});
  const started = deps.clock.now();
  const stepEnded = (outcome: StepOutcome) => deps.metrics?.stepEnded(run.kind, outcome, deps.clock.now() - started);
  await runStep(deps, { run, lease, pipeline, checkpoint, step, maxAttempts, abort, stepEnded });
}

/** Executes one claimed run's current step under its lease; a lost lease or a failed write-back is logged, not thrown. */
export async function executeRun(deps: RunDeps, claim: Claimed, abort: AbortController): Promise<void> {
  const { run } = claim;
  const lease = leaseOf(deps, run);
  const renew = keepLease(deps, run, lease, abort);
  try {
    await attempt(deps, claim, abort, lease);
  } catch (err) {
    if (err instanceof LeaseLost) {
      deps.logger.warn(
        { runId: run.id, kind: run.kind },
        'lease lost: discarding this attempt (another worker owns the run)',
      );
      return;
    }
    deps.logger.error(
      { err, runId: run.id, kind: run.kind },
      'runner write-back failed; the lease will expire and the step re-run',
    );
  } finally {
    clearInterval(renew);
  }
}
