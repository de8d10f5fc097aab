import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { dialectOf, type Db, type ReadDb } from '../db.ts';
import { JSON_COLUMNS } from '../json-columns.ts';
import type { RunsTable } from '../schema.ts';

export type RunRow = RunsTable;

/** The lease a worker holds: every write-back must present it (fencing). */
export interface Lease {
  runId: string;
  owner: string;
  token: number;
}

export async function insertRun(
  db: Db,
  input: {
    kind: string;
    resourceId: string;
    orgId: string;
    maxAttempts: number;
    state?: 'pending' | 'waiting';
    /** The run's input, kept in its checkpoint for its steps (JSON). */
    input?: unknown;
  },
  now: number,
): Promise<RunRow> {
  const row: RunRow = {
    id: randomUUID(),
    kind: input.kind,
    resource_id: input.resourceId,
    org_id: input.orgId,
    state: input.state ?? 'pending',
    step: 0,
    attempts: 0,
    max_attempts: input.maxAttempts,
    run_after: now,
    lease_owner: null,
    lease_expires_at: null,
    lease_token: 0,
    checkpoint: JSON_COLUMNS.runs.checkpoint.write(input.input === undefined ? {} : { input: input.input }),
    last_error: null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('runs').values(row).execute();
  return row;
}

/**
 * Claims the oldest due run of the given kinds in one statement: pending, due, and either never leased or with an
 * expired lease (a crashed or stalled worker's). The claim bumps the fencing token and the attempt count.
 */
export async function claimRun(
  db: Db,
  kinds: readonly string[],
  owner: string,
  now: number,
  leaseMs: number,
): Promise<RunRow | undefined> {
  if (kinds.length === 0) return undefined;
  return (
    db
      .updateTable('runs')
      .set((eb) => ({
        lease_owner: owner,
        lease_expires_at: now + leaseMs,
        lease_token: eb('lease_token', '+', 1),
        attempts: eb('attempts', '+', 1),
        updated_at: now,
      }))
      .where(
        'id',
        '=',
        db
          .selectFrom('runs')
          .select('id')
          .where('state', '=', 'pending')
          .where('run_after', '<=', now)
          .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
          .where('kind', 'in', kinds)
          .orderBy('run_after')
          .orderBy('created_at')
          .limit(1)
          // PostgreSQL: a row another process is claiming right now is skipped, not waited for (SQLite has one writer).
          .$if(dialectOf(db) === 'postgres', (qb) => qb.forUpdate().skipLocked()),
      )
      // Checked again on the row itself: under PostgreSQL's read committed, the subquery's choice is re-read here.
      .where('state', '=', 'pending')
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
      .returningAll()
      .executeTakeFirst()
  );
}

/** Extends a held lease; false when the lease was lost (another worker claimed the run). */
export async function renewLease(db: Db, lease: Lease, until: number): Promise<boolean> {
  const r = await db
    .updateTable('runs')
    .set({ lease_expires_at: until })
    .where('id', '=', lease.runId)
    .where('lease_owner', '=', lease.owner)
    .where('lease_token', '=', lease.token)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A fenced update of the run: applies only while `lease` is still the current one. */
export async function updateLeasedRun(
  db: Db,
  lease: Lease,
  patch: Partial<
    Pick<
      RunRow,
      'state' | 'step' | 'attempts' | 'run_after' | 'checkpoint' | 'last_error' | 'lease_owner' | 'lease_expires_at'
    >
  >,
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('runs')
    .set({ ...patch, updated_at: now })
    .where('id', '=', lease.runId)
    .where('lease_owner', '=', lease.owner)
    .where('lease_token', '=', lease.token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Parks a run its own write-back just moved (in the same transaction, which holds its row): waiting for
 * resumeWaitingRun, with the checkpoint it will resume from.
 */
export async function parkRun(trx: Db, runId: string, checkpoint: string, now: number): Promise<void> {
  await trx
    .updateTable('runs')
    .set({ state: 'waiting', checkpoint, updated_at: now })
    .where('id', '=', runId)
    .execute();
}

/** Moves a waiting run (paused for approval) back to pending; false when it was not waiting. */
export async function resumeWaitingRun(db: Db, kind: string, resourceId: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('runs')
    .set({ state: 'pending', run_after: now, attempts: 0, updated_at: now })
    .where('kind', '=', kind)
    .where('resource_id', '=', resourceId)
    .where('state', '=', 'waiting')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function getRunFor(db: Db, kind: string, resourceId: string): Promise<RunRow | undefined> {
  return db
    .selectFrom('runs')
    .selectAll()
    .where('kind', '=', kind)
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();
}

/** Pending runs (queued or running): the queue depth that admission control compares with its limit. */
export async function countPendingRuns(db: Db, kinds?: readonly string[]): Promise<number> {
  let q = db
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'pending');
  if (kinds?.length) q = q.where('kind', 'in', kinds);
  const { n } = await q.executeTakeFirstOrThrow();
  return Number(n);
}

/** Runs whose lease has expired while pending: the work a restart recovers. */
export async function countExpiredLeases(db: Db, now: number): Promise<number> {
  const { n } = await db
    .selectFrom('runs')
    .select(sql<number>`count(*)`.as('n'))
    .where('state', '=', 'pending')
    .where('lease_expires_at', '<=', now)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Where unfinished runs stand, for the queue-depth metric. */
export type RunQueueState = 'due' | 'scheduled' | 'running' | 'waiting';

/**
 * Unfinished runs by kind and queue state: `due` (claimable now: what the queue depth is), `scheduled` (pending with a
 * later start, retries included), `running` (leased) and `waiting` (paused for a person's approval).
 */
export async function countUnfinishedRuns(
  db: ReadDb,
  now: number,
): Promise<{ kind: string; state: RunQueueState; count: number }[]> {
  const rows = await db
    .selectFrom('runs')
    .select((eb) => [
      'kind',
      eb
        .case()
        .when('state', '=', 'waiting')
        .then('waiting')
        .when(eb.and([eb('lease_expires_at', 'is not', null), eb('lease_expires_at', '>', now)]))
        .then('running')
        .when('run_after', '>', now)
        .then('scheduled')
        .else('due')
        .end()
        .as('queue_state'),
      eb.fn.countAll<number>().as('count'),
    ])
    .where('state', 'in', ['pending', 'waiting'])
    .groupBy(['kind', 'queue_state'])
    .execute();
  return rows.map((r) => ({ kind: r.kind, state: r.queue_state as RunQueueState, count: Number(r.count) }));
}
