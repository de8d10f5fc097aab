import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Db, ReadDb, TxDb } from '../../store/db.ts';
import { getOwnedClient } from '../../store/repos/clients.ts';
import { insertRun } from '../../store/repos/runs.ts';
import {
  getProject,
  getScan,
  insertScan,
  latestSummaries,
  listProjects,
  newestScan,
  TRACKER_SCAN_KIND,
  type TrackerProjectRow,
} from '../../store/repos/tracker.ts';
import type { Principal } from '../accounts/auth.ts';
import type { EngineServices } from '../engine.ts';
import { BASE_UNITS } from '../platform/usage.ts';
import { configuredPlatforms } from './pipeline.ts';
import { coverage } from './coverage.ts';
import type { ScanInput } from './types.ts';
import { overallView, platformView, projectView, scanView } from './views.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

export {
  createProject,
  prepareProject,
  PROJECT_LIMITS,
  type NewTrackerProject,
  type TrackerProjectChanges,
} from './projects.ts';

/** The project when the organisation owns it; 404 otherwise (missing and foreign answer the same). */
export async function requireProject(db: Db, orgId: string, projectId: string): Promise<TrackerProjectRow> {
  const row = await getProject(db, orgId, projectId);
  if (!row) throw new ApiError('not_found', 'No such tracker project.');
  return row;
}

/** 404 unless the client belongs to the organisation. */
export async function requireClient(db: Db, orgId: string, clientId: string): Promise<void> {
  if (!(await getOwnedClient(db, orgId, clientId))) throw new ApiError('not_found', 'No such client.');
}

/**
 * Accepts a scan inside the caller's transaction: the scan row, its usage reservation (one unit per query and
 * scanned platform) and its queued run commit together. Platforms without a configured provider are not scanned and
 * are listed in `missing_platforms`; when none is configured there is nothing to measure (409 invalid_state).
 */
export async function startScan(engine: EngineServices, trx: TxDb, principal: Principal, projectId: string) {
  const project = await requireProject(trx, principal.orgId, projectId);
  const expected = JSON_COLUMNS.tracker_projects.platforms.read(project.platforms);
  const platforms = configuredPlatforms(engine, expected);
  const missing = expected.filter((p) => !platforms.includes(p));
  if (platforms.length === 0) {
    throw new ApiError(
      'invalid_state',
      "None of the project's platforms has a configured provider, so a scan would measure nothing.",
      { missing_platforms: missing },
    );
  }
  const now = engine.clock.now();
  const id = randomUUID();
  const units = BASE_UNITS.tracker_scan * project.query_count * platforms.length;
  await insertScan(
    trx,
    {
      id,
      project_id: project.id,
      org_id: project.org_id,
      client_id: project.client_id,
      platforms: JSON_COLUMNS.tracker_scans.platforms.write(platforms),
      missing_platforms: JSON_COLUMNS.tracker_scans.missing_platforms.write(missing),
      query_count: project.query_count,
      units,
    },
    now,
  );
  await engine.usage.reserve(trx, {
    orgId: principal.orgId,
    plan: principal.plan,
    operation: 'tracker_scan',
    units,
    resourceKind: TRACKER_SCAN_KIND,
    resourceId: id,
  });
  const input: ScanInput = {
    project_id: project.id,
    domain: project.domain,
    brand_names: JSON_COLUMNS.tracker_projects.brand_names.read(project.brand_names),
    queries: JSON_COLUMNS.tracker_projects.queries.read(project.queries),
    platforms,
    location: project.location,
    language: project.language,
  };
  // The scan's input rides in its run's checkpoint, where the pipeline reads it.
  await insertRun(
    trx,
    {
      kind: TRACKER_SCAN_KIND,
      resourceId: id,
      orgId: principal.orgId,
      maxAttempts: engine.settings.maxAttempts,
      input,
    },
    now,
  );
  return readScan(trx, id);
}

export async function readScan(db: Db, runId: string) {
  const row = await getScan(db, runId);
  if (!row) throw new ApiError('not_found', 'No such scan.');
  return scanView(row);
}

export async function listProjectViews(
  _engine: EngineServices,
  db: ReadDb,
  orgId: string,
  clientId: string | undefined,
  page: { limit: number; offset: number },
) {
  if (clientId) await requireClient(db, orgId, clientId);
  const { rows, total } = await listProjects(db, orgId, { clientId }, page);
  return { rows: rows.map((r) => projectView(r, false)), total };
}

/** Configuration, SPI of the latest_per_platform snapshot with its denominators and coverage, and the newest scan. */
export async function readProject(engine: EngineServices, db: ReadDb, orgId: string, projectId: string) {
  const project = await requireProject(db, orgId, projectId);
  const [latest, newest] = await Promise.all([latestSummaries(db, [project.id]), newestScan(db, project.id)]);
  const expected = JSON_COLUMNS.tracker_projects.platforms.read(project.platforms);
  const present = latest.filter((s) => expected.includes(s.platform));
  return {
    ...projectView(project, true),
    spi: {
      method: 'latest_per_platform' as const,
      overall: overallView(present),
      platforms: present.map((s) => platformView(s, s.run_status)),
      coverage: coverage(
        engine,
        expected,
        present.map((s) => s.platform),
        'per_platform',
      ),
    },
    latest_run: newest ? scanView(newest) : null,
  };
}
