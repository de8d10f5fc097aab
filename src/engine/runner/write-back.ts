import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import { immediate, type Db, type TxDb } from '../../store/db.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import { updateLeasedRun, type Lease, type RunRow } from '../../store/repos/runs.ts';
import type { Metrics } from '../platform/metrics.ts';
import { keptCheckpoint, type CheckpointReader, type Pipeline, type WriteContext } from './types.ts';

/**
 * A run's write-backs are fenced by its lease and touch only its own rows (plus atomic ledger and counter updates), so
 * on PostgreSQL they run alongside other runs' write-backs; never alongside an operation's transaction.
 */
export const WRITE_BACK = { alongsideRuns: true } as const;

export class LeaseLost extends Error {}

/** A claimed run, its parsed checkpoint, and whether its step's stage was entered in the claim's transaction. */
export interface Claimed {
  run: RunRow;
  checkpoint: Record<string, unknown>;
  entered: boolean;
}

/** What the runner's parts share: the store, the clock, this process's lease owner name and the registered pipelines. */
export interface RunDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  owner: string;
  /** The registered pipelines by kind (the runner adds to this map as families register). */
  pipelines: ReadonlyMap<string, Pipeline>;
  /** The run kinds served now. */
  kinds: () => string[];
  leaseMs: number;
  retryBaseMs: number;
  metrics?: Pick<Metrics, 'claimed' | 'stepEnded' | 'runEnded'>;
  /** Called after every committed write that moved a run's resource. */
  changed: (run: RunRow) => void;
  /** True once a graceful stop began. */
  stopping: () => boolean;
}

/** The typed reads of a checkpoint: its input and the outputs of the steps already finished. */
export const checkpointReader = (
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

export const writeContext = (
  deps: Pick<RunDeps, 'clock'>,
  trx: TxDb,
  run: RunRow,
  checkpoint: Record<string, unknown>,
): WriteContext<unknown, Record<string, unknown>> => ({
  ...checkpointReader(run, checkpoint),
  trx,
  runId: run.id,
  resourceId: run.resource_id,
  orgId: run.org_id,
  now: deps.clock.now(),
});

/** The lease a claimed run is held under. */
export const leaseOf = (deps: Pick<RunDeps, 'owner'>, run: RunRow): Lease => ({
  runId: run.id,
  owner: deps.owner,
  token: run.lease_token,
});

/** A run given back untouched: no lease, and the attempt its claim counted is not spent. */
export const handedBack = (run: RunRow) => ({
  attempts: run.attempts - 1,
  lease_owner: null,
  lease_expires_at: null,
});

/** Enters the stage of a claimed run's step, inside `trx`. */
export const enterStage = (
  deps: Pick<RunDeps, 'clock' | 'pipelines'>,
  trx: TxDb,
  run: RunRow,
  checkpoint: Record<string, unknown>,
  step: { stage: string },
) => deps.pipelines.get(run.kind)!.enterStage(writeContext(deps, trx, run, checkpoint), step.stage);

/** A fenced transaction: throws LeaseLost (and rolls back) when the lease is no longer ours. */
export async function fenced(
  deps: RunDeps,
  run: RunRow,
  lease: Lease,
  work: (trx: TxDb) => Promise<void>,
  patch: Parameters<typeof updateLeasedRun>[2],
): Promise<void> {
  await immediate(
    deps.db,
    async (trx) => {
      if (!(await updateLeasedRun(trx, lease, patch, deps.clock.now()))) throw new LeaseLost();
      await work(trx);
    },
    WRITE_BACK,
  );
  deps.changed(run);
}

/** Fails a run for good: the pipeline's failure hook and the row's move, in one fenced transaction. */
export async function failRun(
  deps: RunDeps,
  run: RunRow,
  lease: Lease,
  pipeline: Pipeline,
  checkpoint: Record<string, unknown>,
  message: string,
  code?: string,
): Promise<void> {
  await fenced(deps, run, lease, (trx) => pipeline.onFail(writeContext(deps, trx, run, checkpoint), message, code), {
    state: 'failed',
    checkpoint: JSON_COLUMNS.runs.checkpoint.write(keptCheckpoint(pipeline, checkpoint)),
    last_error: message,
    lease_owner: null,
    lease_expires_at: null,
  });
  deps.metrics?.runEnded(run.kind, 'failed', deps.clock.now() - run.created_at);
  deps.logger.warn({ runId: run.id, kind: run.kind, resourceId: run.resource_id }, `run failed: ${message}`);
}
