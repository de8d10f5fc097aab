import type { ReadDb, TxDb } from '../../store/db.ts';

/**
 * A pipeline's step outputs by step name. The checkpoint a run carries from step to step is a mapped type of it, so a
 * step reads an earlier step's output with its declared type and no cast.
 */
export type StepOutputs = Record<string, unknown>;

/** What a run has done so far: the outputs of its finished steps, by name, and the input it was accepted with. */
export type Checkpoint<I, O extends StepOutputs> = { readonly [K in keyof O]?: O[K] } & { readonly input?: I };

/** Reads of the checkpoint shared by steps and write hooks. */
export interface CheckpointReader<I, O extends StepOutputs> {
  /** The input the run was accepted with (optimizations and tracker scans carry one; content jobs read their row). */
  readonly input: I;
  readonly checkpoint: Checkpoint<I, O>;
  /** The output of an earlier step; throws when that step has not run (a pipeline wiring error). */
  output<K extends keyof O & string>(name: K): O[K];
}

/** What a step sees. Steps are safe to run again: a crash loses at most the step in flight. */
export interface StepContext<I, O extends StepOutputs> extends CheckpointReader<I, O> {
  runId: string;
  resourceId: string;
  orgId: string;
  /** Attempt number at this step, from 1. */
  attempt: number;
  /** True on the step's last allowed attempt: a step that tolerates partial failure records it now, not retries. */
  lastAttempt: boolean;
  /** Aborted when the lease is lost or the runner shuts down: stop and let the next attempt redo the step. */
  signal: AbortSignal;
  /** The database, for reads. A step writes only through its `persist`, inside the fenced write-back. */
  db: ReadDb;
  /** A provider idempotency key derived from run and step (and an optional part), stable across attempts. */
  idempotencyKey(part?: string): string;
}

/** What the write hooks get: the fenced write-back transaction, and nothing that reaches the root connection. */
export interface WriteContext<I, O extends StepOutputs> extends CheckpointReader<I, O> {
  trx: TxDb;
  runId: string;
  resourceId: string;
  orgId: string;
  now: number;
}

/** One step: the stage it runs under, its output type (by its name) and how that output reaches the resource. */
export interface StepDef<S extends string, I, O extends StepOutputs, K extends keyof O & string> {
  name: K;
  stage: S;
  /**
   * Dropped from the checkpoint when the run ends: the output was only needed by later steps, or `persist` already
   * wrote what is kept. A finished run keeps only its non-transient outputs (its resource row holds the result).
   */
  transient: boolean;
  run(ctx: StepContext<I, O>): Promise<O[K]>;
  /**
   * Writes the step's output to its resource inside the fenced write-back transaction, with the output already in
   * the checkpoint. Answering `'pause'` parks the run in `waiting` until something resumes it (a stepped approval).
   */
  persist?(ctx: WriteContext<I, O>, output: O[K]): Promise<void | 'pause'>;
}

/** Any step of a pipeline: a union over its step names, so each step's output is checked against its own name. */
export type StepOf<S extends string, I, O extends StepOutputs> = {
  [K in keyof O & string]: StepDef<S, I, O, K>;
}[keyof O & string];

/** A pipeline: ordered steps, and the hooks that move its resource. */
export interface PipelineDef<S extends string, I, O extends StepOutputs> {
  kind: string;
  steps: readonly StepOf<S, I, O>[];
  /** Attempts per step before the run fails. Defaults to the run row's `max_attempts` (AGENT_API_MAX_ATTEMPTS). */
  maxAttempts?: number;
  /** When a step is claimed, before it runs: the resource moves to the step's stage (status, stage, started_at). */
  enterStage(ctx: WriteContext<I, O>, stage: S): Promise<void>;
  /** After the last step: the resource is complete (charge usage here). */
  onComplete(ctx: WriteContext<I, O>): Promise<void>;
  /**
   * When the run cannot finish: set the error, release usage. `message` is safe to show the client; `code` is the
   * failing step's PermanentError code, when it gave one.
   */
  onFail(ctx: WriteContext<I, O>, message: string, code?: string): Promise<void>;
}

/** A pipeline as the runner holds it: its types erased (each was checked where it was defined). */
export type Pipeline = PipelineDef<string, unknown, StepOutputs>;

/**
 * Declares a pipeline. The type parameters are its stage names, its input and its step outputs; a step's name must
 * be one of the outputs, its `run` must answer that output's type, and its stage must be one of the stages.
 */
export function definePipeline<S extends string, I, O extends StepOutputs>(def: PipelineDef<S, I, O>): Pipeline {
  return def as unknown as Pipeline;
}

/** The checkpoint a run keeps once it has ended: the outputs of its non-transient steps only. */
export function keptCheckpoint(pipeline: Pipeline, checkpoint: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const step of pipeline.steps)
    if (!step.transient && step.name in checkpoint) kept[step.name] = checkpoint[step.name];
  return kept;
}

/** A failure that retrying cannot fix: the run fails at once with this (client-safe) message. */
export class PermanentError extends Error {
  /** A machine-readable reason the resource shows beside the message (e.g. `insufficient_research`). */
  readonly code: string | undefined;
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, options);
    this.name = 'PermanentError';
    this.code = options?.code;
  }
}

/** A retryable failure with a client-safe message, and the least time to wait before the next attempt. */
export class RetryableError extends Error {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(message, options);
    this.name = 'RetryableError';
    this.retryAfterMs = options?.retryAfterMs;
  }
}
