import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Db } from '../../store/db.ts';
import { getOwnedClient } from '../../store/repos/clients.ts';
import { insertRun } from '../../store/repos/runs.ts';
import {
  getProject,
  getScan,
  insertProject,
  insertScan,
  latestSummaries,
  listProjects,
  newestScan,
  TRACKER_SCAN_KIND,
  type TrackerProjectRow,
} from '../../store/repos/tracker.ts';
import type { Principal } from '../auth.ts';
import type { Engine } from '../engine.ts';
import { BASE_UNITS } from '../usage.ts';
import { normalizeDomain } from './match.ts';
import { configuredPlatforms } from './pipeline.ts';
import { coverage } from './coverage.ts';
import { TRACKER_PLATFORMS, type ScanInput, type TrackerPlatform } from './types.ts';
import { overallView, platformView, projectView, scanView } from './views.ts';

/** Limits on a project's configuration (README: tracker). */
export const PROJECT_LIMITS = { queries: 500, queryLength: 200, brandNames: 20, name: 200 } as const;

export interface NewTrackerProject {
  clientId: string;
  name: string;
  domain: string;
  /** Keywords (organic-style queries) or prompts (questions for AI answers); one of the two. */
  queries: readonly string[];
  queryKind?: 'keywords' | 'prompts';
  /** Default: the domain alone (so only the domain written out counts as a mention). */
  brandNames?: readonly string[];
  /** Default: organic only. */
  platforms?: readonly string[];
  location?: string | null;
  /** Default `en`. */
  language?: string;
}

type Field = { path: string; message: string };

const clean = (list: readonly string[] | undefined) =>
  (list ?? []).map((s) => s.trim().replace(/\s+/g, ' ')).filter(Boolean);
const dedupe = (list: string[]) => [...new Map(list.map((s) => [s.toLowerCase(), s])).values()];

/** Validates and normalises a project; throws ApiError `invalid_input` naming every bad field. */
export function prepareProject(
  input: NewTrackerProject,
): Omit<TrackerProjectRow, 'id' | 'org_id' | 'created_at' | 'updated_at'> {
  const bad: Field[] = [];
  const name = input.name.trim();
  if (!name || name.length > PROJECT_LIMITS.name)
    bad.push({ path: 'name', message: `1 to ${PROJECT_LIMITS.name} characters.` });
  const domain = normalizeDomain(input.domain);
  if (!domain) bad.push({ path: 'domain', message: 'A host name such as example.com.' });
  const queries = dedupe(clean(input.queries));
  if (queries.length === 0 || queries.length > PROJECT_LIMITS.queries)
    bad.push({ path: 'queries', message: `1 to ${PROJECT_LIMITS.queries} distinct queries.` });
  if (queries.some((q) => q.length > PROJECT_LIMITS.queryLength))
    bad.push({ path: 'queries', message: `Each query at most ${PROJECT_LIMITS.queryLength} characters.` });
  const brandNames = dedupe(clean(input.brandNames));
  if (brandNames.length > PROJECT_LIMITS.brandNames || brandNames.some((b) => b.length > 200))
    bad.push({ path: 'brand_names', message: `At most ${PROJECT_LIMITS.brandNames} names of up to 200 characters.` });
  const platforms = [...new Set(clean(input.platforms ?? ['organic']).map((p) => p.toLowerCase()))];
  const unknown = platforms.filter((p) => !(TRACKER_PLATFORMS as readonly string[]).includes(p));
  if (platforms.length === 0 || unknown.length)
    bad.push({
      path: 'platforms',
      message: `Use ${TRACKER_PLATFORMS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}.`,
    });
  const language = (input.language ?? 'en').trim();
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(language))
    bad.push({ path: 'language', message: 'A language code such as en or en-US.' });
  const location = input.location?.trim() || null;
  if (location && location.length > 200) bad.push({ path: 'location', message: 'At most 200 characters.' });
  if (bad.length)
    throw new ApiError('invalid_input', `Invalid input: ${[...new Set(bad.map((b) => b.path))].join(', ')}.`, {
      fields: bad,
    });
  return {
    client_id: input.clientId,
    name,
    domain: domain!,
    brand_names: JSON.stringify(brandNames.length ? brandNames : [domain!]),
    query_kind: input.queryKind ?? 'keywords',
    queries: JSON.stringify(queries),
    query_count: queries.length,
    // Kept in scan order, whatever order they were given in.
    platforms: JSON.stringify(TRACKER_PLATFORMS.filter((p) => platforms.includes(p))),
    location,
    language,
  };
}

/** Creates a project for a client (the CLI's `tracker create-project`); 404 when the client does not exist. */
export async function createProject(
  db: Db,
  input: NewTrackerProject,
  now: number,
): Promise<{ project_id: string; org_id: string }> {
  const prepared = prepareProject(input);
  const client = await db
    .selectFrom('clients')
    .select(['id', 'org_id'])
    .where('id', '=', input.clientId)
    .executeTakeFirst();
  if (!client) throw new ApiError('not_found', 'No such client.', { field: 'client_id' });
  const id = randomUUID();
  await insertProject(db, { id, org_id: client.org_id, ...prepared }, now);
  return { project_id: id, org_id: client.org_id };
}

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
export async function startScan(engine: Engine, trx: Db, principal: Principal, projectId: string) {
  const project = await requireProject(trx, principal.orgId, projectId);
  const expected = JSON.parse(project.platforms) as TrackerPlatform[];
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
      platforms: JSON.stringify(platforms),
      missing_platforms: JSON.stringify(missing),
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
  const run = await insertRun(
    trx,
    { kind: TRACKER_SCAN_KIND, resourceId: id, orgId: principal.orgId, maxAttempts: engine.settings.maxAttempts },
    now,
  );
  const input: ScanInput = {
    project_id: project.id,
    domain: project.domain,
    brand_names: JSON.parse(project.brand_names) as string[],
    queries: JSON.parse(project.queries) as string[],
    platforms,
    location: project.location,
    language: project.language,
  };
  await trx
    .updateTable('runs')
    .set({ checkpoint: JSON.stringify({ input }) })
    .where('id', '=', run.id)
    .execute();
  return readScan(trx, id);
}

export async function readScan(db: Db, runId: string) {
  const row = await getScan(db, runId);
  if (!row) throw new ApiError('not_found', 'No such scan.');
  return scanView(row);
}

export async function listProjectViews(
  engine: Engine,
  orgId: string,
  clientId: string | undefined,
  page: { limit: number; offset: number },
) {
  if (clientId) await requireClient(engine.db, orgId, clientId);
  const { rows, total } = await listProjects(engine.db, orgId, { clientId }, page);
  return { rows: rows.map((r) => projectView(r, false)), total };
}

/** Configuration, SPI of the latest_per_platform snapshot with its denominators and coverage, and the newest scan. */
export async function readProject(engine: Engine, orgId: string, projectId: string) {
  const project = await requireProject(engine.db, orgId, projectId);
  const [latest, newest] = await Promise.all([
    latestSummaries(engine.db, [project.id]),
    newestScan(engine.db, project.id),
  ]);
  const expected = JSON.parse(project.platforms) as TrackerPlatform[];
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
