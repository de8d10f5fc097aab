import { immediate } from '../../store/db.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import { claimRun, updateLeasedRun, type RunRow } from '../../store/repos/runs.ts';
import { enterStage, handedBack, leaseOf, WRITE_BACK, type Claimed, type RunDeps } from './write-back.ts';

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
 * Claims the oldest due run and, in the same transaction, enters its step's stage: one write fewer per step than
 * entering it apart. When entering fails, that transaction rolls back and a run is claimed alone; execute enters its
 * stage then, and a failure there counts against the run's attempts as any other.
 */
export async function claimNext(deps: RunDeps): Promise<Claimed | undefined> {
  const { db, clock, owner, leaseMs } = deps;
  try {
    return await immediate(
      db,
      async (trx) => {
        const run = await claimRun(trx, deps.kinds(), owner, clock.now(), leaseMs);
        if (!run) return undefined;
        const checkpoint = JSON_COLUMNS.runs.checkpoint.read(run.checkpoint);
        const pipeline = deps.pipelines.get(run.kind)!;
        const step = pipeline.steps[run.step];
        if (!step || run.attempts > (pipeline.maxAttempts ?? run.max_attempts))
          return { run, checkpoint, entered: false };
        await enterStage(deps, trx, run, checkpoint, step).catch((err: unknown) => {
          throw new StageNotEntered(run, err);
        });
        return { run, checkpoint, entered: true };
      },
      WRITE_BACK,
    );
  } catch (err) {
    if (!(err instanceof StageNotEntered)) throw err;
    deps.logger.warn(
      { err: err.cause, runId: err.run.id, kind: err.run.kind },
      'entering a stage failed; claiming alone',
    );
    const run = await claimRun(db, deps.kinds(), owner, clock.now(), leaseMs);
    return run && { run, checkpoint: JSON_COLUMNS.runs.checkpoint.read(run.checkpoint), entered: false };
  }
}

/** Gives a claimed run back untouched (a claim that arrived after stop began). */
export async function handBack(deps: RunDeps, run: RunRow): Promise<void> {
  await updateLeasedRun(deps.db, leaseOf(deps, run), handedBack(run), deps.clock.now()).catch((err: unknown) =>
    deps.logger.warn({ err, runId: run.id }, 'handing a run back failed; its lease will expire'),
  );
}
