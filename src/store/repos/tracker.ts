import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { TRACKER_WORKING_STATUSES } from '../../engine/tracker/contract.ts';
import type {
  LedgerState,
  TrackerPlatform,
  TrackerPlatformSummariesTable,
  TrackerProjectsTable,
  TrackerResultsTable,
  TrackerScansTable,
  TrackerScanStatus,
} from '../schema.ts';

export type TrackerProjectRow = TrackerProjectsTable;
export type TrackerScanRow = TrackerScansTable & { ledger_state: LedgerState | null };
export type TrackerResultRow = TrackerResultsTable;
export type TrackerSummaryRow = TrackerPlatformSummariesTable;
/** A latest-per-platform summary with the status of the scan it came from. */
export type LatestSummaryRow = TrackerSummaryRow & { run_status: TrackerScanStatus };

/** Runner kind and usage-ledger resource kind of a scan. */
export const TRACKER_SCAN_KIND = 'tracker_scan';

/** Rows per multi-row INSERT: well under SQLite's bound-parameter limit. */
const INSERT_CHUNK = 500;

// ---- projects ----

export async function insertProject(
  db: Db,
  row: Omit<TrackerProjectRow, 'created_at' | 'updated_at'>,
  now: number,
): Promise<void> {
  await db
    .insertInto('tracker_projects')
    .values({ ...row, created_at: now, updated_at: now })
    .execute();
}

/** The project when it belongs to the organisation. */
export async function getProject(db: Db, orgId: string, id: string): Promise<TrackerProjectRow | undefined> {
  return db
    .selectFrom('tracker_projects')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

/** Newest first, optionally one client's. */
export async function listProjects(
  db: Db,
  orgId: string,
  filter: { clientId?: string },
  page: { limit: number; offset: number },
) {
  let q = db.selectFrom('tracker_projects').selectAll().where('org_id', '=', orgId);
  let c = db
    .selectFrom('tracker_projects')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId);
  if (filter.clientId) {
    q = q.where('client_id', '=', filter.clientId);
    c = c.where('client_id', '=', filter.clientId);
  }
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { n } = await c.executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/** A project by id, whatever its organisation (administration only: the CLI acts on the whole database). */
export async function getProjectById(db: Db, id: string): Promise<TrackerProjectRow | undefined> {
  return db.selectFrom('tracker_projects').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every project, optionally one organisation's and/or one client's, oldest first (administration listings). */
export async function listAllProjects(
  db: Db,
  filter: { orgId?: string; clientId?: string },
): Promise<TrackerProjectRow[]> {
  let q = db.selectFrom('tracker_projects').selectAll();
  if (filter.orgId !== undefined) q = q.where('org_id', '=', filter.orgId);
  if (filter.clientId !== undefined) q = q.where('client_id', '=', filter.clientId);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** The configuration columns an update may change. */
export type TrackerProjectPatch = Partial<
  Omit<TrackerProjectRow, 'id' | 'org_id' | 'client_id' | 'created_at' | 'updated_at'>
>;

/** Applies the patch to the organisation's project; undefined when there is no such project in it. */
export async function updateProject(
  db: Db,
  orgId: string,
  id: string,
  patch: TrackerProjectPatch,
  now: number,
): Promise<TrackerProjectRow | undefined> {
  return db
    .updateTable('tracker_projects')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The project's scans that are still in flight: queued or running, or with a run the runner has not finished
 * (pending or waiting), so a scan is never deleted from under its worker.
 */
export async function activeScans(db: Db, projectId: string): Promise<{ id: string; status: TrackerScanStatus }[]> {
  return db
    .selectFrom('tracker_scans as s')
    .leftJoin('runs as r', (j) => j.on('r.kind', '=', TRACKER_SCAN_KIND).onRef('r.resource_id', '=', 's.id'))
    .select(['s.id', 's.status'])
    .where('s.project_id', '=', projectId)
    .where((eb) => eb.or([eb('s.status', 'in', TRACKER_WORKING_STATUSES), eb('r.state', 'in', ['pending', 'waiting'])]))
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
}

/**
 * Deletes the organisation's project with its scans, per-query results, platform summaries and latest pointers
 * (the foreign keys cascade the same way; the explicit deletes make the counts visible). Usage-ledger rows and
 * finished runs are kept: they are the billing history and the reconciler reads them. Answers null when there is no
 * such project in the organisation.
 */
export async function deleteProject(
  db: Db,
  orgId: string,
  id: string,
): Promise<{ scans: number; results: number; summaries: number } | null> {
  const project = await db
    .selectFrom('tracker_projects')
    .select('id')
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (!project) return null;
  const scanIds = db.selectFrom('tracker_scans').select('id').where('project_id', '=', id);
  const results = await db.deleteFrom('tracker_results').where('run_id', 'in', scanIds).executeTakeFirst();
  const summaries = await db.deleteFrom('tracker_platform_summaries').where('run_id', 'in', scanIds).executeTakeFirst();
  await db.deleteFrom('tracker_latest').where('project_id', '=', id).execute();
  const scans = await db.deleteFrom('tracker_scans').where('project_id', '=', id).executeTakeFirst();
  await db.deleteFrom('tracker_projects').where('id', '=', id).execute();
  return {
    scans: Number(scans.numDeletedRows),
    results: Number(results.numDeletedRows),
    summaries: Number(summaries.numDeletedRows),
  };
}

// ---- scans ----

export async function insertScan(
  db: Db,
  row: Pick<
    TrackerScansTable,
    'id' | 'project_id' | 'org_id' | 'client_id' | 'platforms' | 'missing_platforms' | 'query_count' | 'units'
  >,
  now: number,
): Promise<void> {
  await db
    .insertInto('tracker_scans')
    .values({
      ...row,
      status: 'queued',
      spi: null,
      platform_scores: null,
      error: null,
      created_at: now,
      started_at: null,
      completed_at: null,
      updated_at: now,
    })
    .execute();
}

function scansWithLedger(db: Db) {
  return db
    .selectFrom('tracker_scans as s')
    .leftJoin('usage_ledger as l', (j) =>
      j.on('l.resource_kind', '=', TRACKER_SCAN_KIND).onRef('l.resource_id', '=', 's.id'),
    )
    .selectAll('s')
    .select('l.state as ledger_state');
}

export async function getScan(db: Db, id: string): Promise<TrackerScanRow | undefined> {
  return scansWithLedger(db).where('s.id', '=', id).executeTakeFirst();
}

/** The project's newest scan, whatever its status. */
export async function newestScan(db: Db, projectId: string): Promise<TrackerScanRow | undefined> {
  return scansWithLedger(db)
    .where('s.project_id', '=', projectId)
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The project's most recently finished scan (complete, partial or failed). */
export async function newestFinishedScan(db: Db, projectId: string): Promise<TrackerScanRow | undefined> {
  return scansWithLedger(db)
    .where('s.project_id', '=', projectId)
    .where('s.completed_at', 'is not', null)
    .orderBy('s.completed_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Scans that finished in [from, to], oldest first; the columns trends need. */
export async function scansFinishedBetween(db: Db, projectId: string, from: number, to: number) {
  return db
    .selectFrom('tracker_scans')
    .select(['id', 'status', 'spi', 'platform_scores', 'completed_at'])
    .where('project_id', '=', projectId)
    .where('completed_at', '>=', from)
    .where('completed_at', '<=', to)
    .orderBy('completed_at')
    .orderBy('id')
    .execute();
}

export async function updateScan(db: Db, id: string, patch: Partial<TrackerScansTable>, now: number): Promise<void> {
  await db
    .updateTable('tracker_scans')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .execute();
}

// ---- per-query results ----

/** Writes one platform's results of a scan; a re-run of the same step overwrites them. */
export async function putResults(db: Db, rows: readonly TrackerResultRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('tracker_results')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) =>
        oc.columns(['run_id', 'platform', 'query_index']).doUpdateSet((eb) => ({
          query: eb.ref('excluded.query'),
          status: eb.ref('excluded.status'),
          position: eb.ref('excluded.position'),
          brand_mentioned: eb.ref('excluded.brand_mentioned'),
          brand_cited: eb.ref('excluded.brand_cited'),
          cited_urls: eb.ref('excluded.cited_urls'),
          measured_at: eb.ref('excluded.measured_at'),
          error: eb.ref('excluded.error'),
        })),
      )
      .execute();
  }
}

/** One platform's per-query results of one scan, in query order (primary-key range read). */
export async function resultsOf(db: Db, runId: string, platform: TrackerPlatform): Promise<TrackerResultRow[]> {
  return db
    .selectFrom('tracker_results')
    .selectAll()
    .where('run_id', '=', runId)
    .where('platform', '=', platform)
    .orderBy('query_index')
    .execute();
}

// ---- per-platform summaries ----

export async function putSummary(db: Db, row: TrackerSummaryRow): Promise<void> {
  const { run_id: _r, platform: _p, ...rest } = row;
  await db
    .insertInto('tracker_platform_summaries')
    .values(row)
    .onConflict((oc) => oc.columns(['run_id', 'platform']).doUpdateSet(rest))
    .execute();
}

/** Every platform summary of one scan. */
export async function summariesOf(db: Db, runId: string): Promise<TrackerSummaryRow[]> {
  return db
    .selectFrom('tracker_platform_summaries')
    .selectAll()
    .where('run_id', '=', runId)
    .orderBy('platform')
    .execute();
}

/** Moves the project's latest pointer for a platform to this scan, unless a newer measurement is already there. */
export async function advanceLatest(
  db: Db,
  projectId: string,
  platform: TrackerPlatform,
  runId: string,
  measuredAt: number,
): Promise<void> {
  await db
    .insertInto('tracker_latest')
    .values({ project_id: projectId, platform, run_id: runId, measured_at: measuredAt })
    .onConflict((oc) =>
      oc
        .columns(['project_id', 'platform'])
        .doUpdateSet((eb) => ({ run_id: eb.ref('excluded.run_id'), measured_at: eb.ref('excluded.measured_at') }))
        .where(sql<boolean>`excluded.measured_at >= tracker_latest.measured_at`),
    )
    .execute();
}

/** The newest usable summary per platform of each project (the latest_per_platform snapshot), in one read. */
export async function latestSummaries(db: Db, projectIds: readonly string[]): Promise<LatestSummaryRow[]> {
  if (projectIds.length === 0) return [];
  return db
    .selectFrom('tracker_latest as l')
    .innerJoin('tracker_platform_summaries as s', (j) =>
      j.onRef('s.run_id', '=', 'l.run_id').onRef('s.platform', '=', 'l.platform'),
    )
    .innerJoin('tracker_scans as r', 'r.id', 'l.run_id')
    .selectAll('s')
    .select('r.status as run_status')
    .where('l.project_id', 'in', projectIds)
    .orderBy('l.project_id')
    .orderBy('l.platform')
    .execute();
}

/** The organisation's (or one client's) latest-per-platform totals across its projects, in one aggregate read. */
export async function pooledLatestTotals(db: Db, orgId: string, clientId: string | undefined) {
  let q = db
    .selectFrom('tracker_latest as l')
    .innerJoin('tracker_projects as p', 'p.id', 'l.project_id')
    .innerJoin('tracker_platform_summaries as s', (j) =>
      j.onRef('s.run_id', '=', 'l.run_id').onRef('s.platform', '=', 'l.platform'),
    )
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('s.measured'), eb.lit(0)).as('measured'),
      eb.fn.coalesce(eb.fn.sum<number>('s.present'), eb.lit(0)).as('present'),
      eb.fn.coalesce(eb.fn.sum<number>('s.weight_sum'), eb.lit(0)).as('weight'),
      eb.fn.count<number>('l.project_id').distinct().as('projects'),
    ])
    .where('p.org_id', '=', orgId);
  if (clientId) q = q.where('p.client_id', '=', clientId);
  return q.executeTakeFirstOrThrow();
}

/** A client's projects: id, domain and platforms. */
export async function clientProjects(db: Db, orgId: string, clientId: string) {
  return db
    .selectFrom('tracker_projects')
    .select(['id', 'domain', 'platforms'])
    .where('org_id', '=', orgId)
    .where('client_id', '=', clientId)
    .execute();
}

/** A scan's status and start time (the runner moves a queued scan to running). */
export async function scanProgress(db: Db, id: string) {
  return db.selectFrom('tracker_scans').select(['status', 'started_at']).where('id', '=', id).executeTakeFirstOrThrow();
}
