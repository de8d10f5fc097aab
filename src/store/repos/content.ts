import type { Db } from '../db.ts';
import type { ContentArtifactsTable, ContentJobsTable, ContentStatus, LedgerState } from '../schema.ts';

export type ContentJobRow = ContentJobsTable & { ledger_state: LedgerState | null };
export type ArtifactsRow = ContentArtifactsTable;
export type ArtifactName = Exclude<keyof ContentArtifactsTable, 'job_id' | 'updated_at'>;

/** The run and ledger kind of a content job or Autopilot run (the resource kind is its `kind` column). */
export const CONTENT_KINDS = { job: 'content_job', autopilot: 'autopilot' } as const;

export async function insertContentJob(
  db: Db,
  row: Omit<
    ContentJobsTable,
    'updated_at' | 'started_at' | 'completed_at' | 'error' | 'error_code' | 'optimize_passes'
  >,
): Promise<void> {
  await db
    .insertInto('content_jobs')
    .values({
      ...row,
      optimize_passes: 0,
      error: null,
      error_code: null,
      started_at: null,
      completed_at: null,
      updated_at: row.created_at,
    })
    .execute();
  await db
    .insertInto('content_artifacts')
    .values({
      job_id: row.id,
      writer: null,
      research: null,
      outline: null,
      seo_metadata: null,
      entities: null,
      faqs: null,
      draft: null,
      citations: null,
      review: null,
      score: null,
      updated_at: row.created_at,
    })
    .execute();
}

function withLedger(db: Db) {
  return db
    .selectFrom('content_jobs as j')
    .leftJoin('usage_ledger as l', (jn) =>
      jn.onRef('l.resource_id', '=', 'j.id').on('l.resource_kind', 'in', [CONTENT_KINDS.job, CONTENT_KINDS.autopilot]),
    )
    .selectAll('j')
    .select('l.state as ledger_state');
}

/** The job when it belongs to the organisation (any kind unless one is given). */
export async function getContentJob(
  db: Db,
  orgId: string,
  id: string,
  kind?: ContentJobsTable['kind'],
): Promise<ContentJobRow | undefined> {
  let q = withLedger(db).where('j.id', '=', id).where('j.org_id', '=', orgId);
  if (kind) q = q.where('j.kind', '=', kind);
  return q.executeTakeFirst();
}

export interface ContentJobFilter {
  /** One kind, or both when omitted. */
  kind?: ContentJobsTable['kind'];
  clientId?: string;
  status?: ContentStatus;
  mode?: 'auto' | 'stepped';
}

export async function listContentJobs(
  db: Db,
  orgId: string,
  f: ContentJobFilter,
  page: { limit: number; offset: number },
) {
  let q = withLedger(db).where('j.org_id', '=', orgId);
  let c = db
    .selectFrom('content_jobs as j')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('j.org_id', '=', orgId);
  if (f.kind) {
    q = q.where('j.kind', '=', f.kind);
    c = c.where('j.kind', '=', f.kind);
  }
  if (f.clientId) {
    q = q.where('j.client_id', '=', f.clientId);
    c = c.where('j.client_id', '=', f.clientId);
  }
  if (f.status) {
    q = q.where('j.status', '=', f.status);
    c = c.where('j.status', '=', f.status);
  }
  if (f.mode) {
    q = q.where('j.mode', '=', f.mode);
    c = c.where('j.mode', '=', f.mode);
  }
  const rows = await q
    .orderBy('j.created_at', 'desc')
    .orderBy('j.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { n } = await c.executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

export async function updateContentJob(
  db: Db,
  id: string,
  patch: Partial<ContentJobsTable>,
  now: number,
): Promise<void> {
  await db
    .updateTable('content_jobs')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Moves the job from `from` to `patch` only if it is still in `from`; true when it moved. */
export async function transitionContentJob(
  db: Db,
  id: string,
  from: ContentStatus,
  patch: Partial<ContentJobsTable>,
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('content_jobs')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Stores artifacts (each value JSON-encoded); absent names are left as they are. */
export async function saveArtifacts(
  db: Db,
  jobId: string,
  values: Partial<Record<ArtifactName, unknown>>,
  now: number,
): Promise<void> {
  const patch: Partial<ContentArtifactsTable> = { updated_at: now };
  for (const [k, v] of Object.entries(values) as [ArtifactName, unknown][]) {
    if (v !== undefined) (patch as Record<string, unknown>)[k] = k === 'writer' ? (v as string) : JSON.stringify(v);
  }
  await db.updateTable('content_artifacts').set(patch).where('job_id', '=', jobId).execute();
}

export async function getArtifacts(db: Db, jobId: string): Promise<ArtifactsRow | undefined> {
  return db.selectFrom('content_artifacts').selectAll().where('job_id', '=', jobId).executeTakeFirst();
}

/** A job by id, whatever its organisation (the runner's steps act on the job their run belongs to). */
export async function contentJobById(db: Db, id: string): Promise<ContentJobsTable> {
  return db.selectFrom('content_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** When the job's run first started; null while queued. */
export async function contentJobStartedAt(db: Db, id: string): Promise<number | null> {
  const row = await db.selectFrom('content_jobs').select('started_at').where('id', '=', id).executeTakeFirstOrThrow();
  return row.started_at;
}

/** Counts one kept Autopilot optimization pass. */
export async function countOptimizePass(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('content_jobs')
    .set((eb) => ({ optimize_passes: eb('optimize_passes', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .execute();
}
