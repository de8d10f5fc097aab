import type { Db } from '../../store/db.ts';

/** What a step sees. Steps are safe to run again: a crash loses at most the step in flight. */
export interface StepContext {
  runId: string;
  resourceId: string;
  orgId: string;
  /** Attempt number at this step, from 1. */
  attempt: number;
  /** Outputs of the steps already finished, by step name. */
  checkpoint: Readonly<Record<string, unknown>>;
  /** Aborted when the lease is lost or the runner shuts down: stop and let the next attempt redo the step. */
  signal: AbortSignal;
  /** The database, for reads. Step writes happen in the pipeline hooks, inside the fenced write-back. */
  db: Db;
  /** A provider idempotency key derived from run and step (and an optional part), stable across attempts. */
  idempotencyKey(part?: string): string;
}

export interface Step {
  name: string;
  run(ctx: StepContext): Promise<unknown>;
}

/** What the hooks get: they run inside the fenced write-back transaction. */
export interface HookContext {
  trx: Db;
  runId: string;
  resourceId: string;
  orgId: string;
  checkpoint: Readonly<Record<string, unknown>>;
  now: number;
}

/**
 * A pipeline: ordered steps plus the hooks that move its resource. `afterStep` may answer `'pause'` to park the run
 * in `waiting` until something resumes it (a stepped job's approval).
 */
export interface Pipeline {
  kind: string;
  steps: readonly Step[];
  /** Attempts per step before the run fails. Defaults to the run row's `max_attempts` (AGENT_API_MAX_ATTEMPTS at creation). */
  maxAttempts?: number;
  /** When a step is claimed, before it runs (e.g. status `running`, `started_at`). */
  beforeStep?(ctx: HookContext, step: Step, index: number): Promise<void>;
  /** After a step succeeded, with its output already in `checkpoint`. */
  afterStep?(ctx: HookContext, step: Step, index: number, output: unknown): Promise<void | 'pause'>;
  /** After the last step: the resource is complete (charge usage here). */
  onComplete(ctx: HookContext): Promise<void>;
  /** When the run cannot finish: set the error, release usage. `message` is safe to show the client. */
  onFail(ctx: HookContext, message: string): Promise<void>;
}

/** A failure that retrying cannot fix: the run fails at once with this (client-safe) message. */
export class PermanentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

/** A retryable failure with a client-safe message. */
export class RetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryableError';
  }
}
