import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import { immediate, type Db } from '../../store/db.ts';
import { getClient, getOwnedClient } from '../../store/repos/clients.ts';
import { getOrganisation } from '../../store/repos/organisations.ts';
import {
  activeScans,
  deleteProject,
  getProject,
  insertProject,
  listAllProjects,
  updateProject,
  type TrackerProjectRow,
} from '../../store/repos/tracker.ts';
import { normalizeDomain } from './match.ts';
import { TRACKER_PLATFORMS } from './types.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

/**
 * Tracker projects: validation and create/update/delete/list, as engine functions the CLI calls today and API
 * operations can call later. Bad input throws ApiError `invalid_input` with `details.fields` ([{path, message}]);
 * a project or client outside the organisation is `not_found`.
 */

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

/** What an update may change; absent fields keep their value, `location: null` clears the location. */
export type TrackerProjectChanges = Partial<Omit<NewTrackerProject, 'clientId'>>;

export type ProjectField = { path: string; message: string };

const clean = (list: readonly string[] | undefined) =>
  (list ?? []).map((s) => s.trim().replace(/\s+/g, ' ')).filter(Boolean);
const dedupe = (list: string[]) => [...new Map(list.map((s) => [s.toLowerCase(), s])).values()];

/** Validates and normalises a project; throws ApiError `invalid_input` naming every bad field. */
export function prepareProject(
  input: NewTrackerProject,
): Omit<TrackerProjectRow, 'id' | 'org_id' | 'created_at' | 'updated_at'> {
  const bad: ProjectField[] = [];
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
  if (bad.length) throw invalidInput(bad);
  return {
    client_id: input.clientId,
    name,
    domain: domain!,
    brand_names: JSON_COLUMNS.tracker_projects.brand_names.write(brandNames.length ? brandNames : [domain!]),
    query_kind: input.queryKind ?? 'keywords',
    queries: JSON_COLUMNS.tracker_projects.queries.write(queries),
    query_count: queries.length,
    // Kept in scan order, whatever order they were given in.
    platforms: JSON_COLUMNS.tracker_projects.platforms.write(TRACKER_PLATFORMS.filter((p) => platforms.includes(p))),
    location,
    language,
  };
}

function invalidInput(fields: ProjectField[]): ApiError {
  return new ApiError('invalid_input', `Invalid input: ${[...new Set(fields.map((b) => b.path))].join(', ')}.`, {
    fields,
  });
}

/** A project for a client of the organisation; 404 (`client_id`) when the organisation has no such client. */
export async function createTrackerProject(
  db: Db,
  orgId: string,
  input: NewTrackerProject,
  now: number,
): Promise<TrackerProjectRow> {
  const prepared = prepareProject(input);
  return immediate(db, async (trx) => {
    if (!(await getOwnedClient(trx, orgId, input.clientId)))
      throw new ApiError('not_found', 'No such client.', { field: 'client_id' });
    const row = { id: randomUUID(), org_id: orgId, ...prepared };
    await insertProject(trx, row, now);
    return { ...row, created_at: now, updated_at: now };
  });
}

/**
 * Creates a project for a client of whichever organisation owns it (the CLI's `tracker create-project`); 404 when
 * the client does not exist.
 */
export async function createProject(
  db: Db,
  input: NewTrackerProject,
  now: number,
): Promise<{ project_id: string; org_id: string }> {
  prepareProject(input);
  const client = await getClient(db, input.clientId);
  if (!client) throw new ApiError('not_found', 'No such client.', { field: 'client_id' });
  const row = await createTrackerProject(db, client.org_id, input, now);
  return { project_id: row.id, org_id: row.org_id };
}

/**
 * Changes the organisation's project: the changes are merged into its configuration and the whole is validated with
 * the same rules as a new project. Brand names that were the default (the old domain) follow a new domain. Scans in
 * flight keep the configuration they started with.
 */
export async function updateTrackerProject(
  db: Db,
  orgId: string,
  projectId: string,
  changes: TrackerProjectChanges,
  now: number,
): Promise<TrackerProjectRow> {
  const given = Object.entries(changes).filter(([, v]) => v !== undefined);
  if (given.length === 0) throw new ApiError('invalid_input', 'Nothing to change.', { fields: [] });
  return immediate(db, async (trx) => {
    const row = await getProject(trx, orgId, projectId);
    if (!row) throw new ApiError('not_found', 'No such tracker project.', { field: 'project_id' });
    const brandNames = JSON_COLUMNS.tracker_projects.brand_names.read(row.brand_names);
    const defaultBrand = brandNames.length === 1 && brandNames[0] === row.domain;
    const prepared = prepareProject({
      clientId: row.client_id,
      name: changes.name ?? row.name,
      domain: changes.domain ?? row.domain,
      queries: changes.queries ?? JSON_COLUMNS.tracker_projects.queries.read(row.queries),
      queryKind: changes.queryKind ?? row.query_kind,
      brandNames: changes.brandNames ?? (changes.domain !== undefined && defaultBrand ? [] : brandNames),
      platforms: changes.platforms ?? JSON_COLUMNS.tracker_projects.platforms.read(row.platforms),
      location: changes.location !== undefined ? changes.location : row.location,
      language: changes.language ?? row.language,
    });
    const { client_id: _client, ...columns } = prepared;
    const updated = await updateProject(trx, orgId, projectId, columns, now);
    if (!updated) throw new ApiError('not_found', 'No such tracker project.', { field: 'project_id' });
    return updated;
  });
}

/**
 * Deletes the organisation's project with its scans, results, summaries and latest pointers. A project with a scan
 * queued or running is refused (409 invalid_state): the scan's worker would write into rows that no longer exist.
 * With `confirm` (the API's delete_tracker_project), a `name` other than the project's exact current name is refused
 * first (409 confirmation_mismatch), as a prospect-list delete is.
 */
export async function deleteTrackerProject(
  db: Db,
  orgId: string,
  projectId: string,
  confirm?: { name: string },
): Promise<{ project_id: string; deleted: { scans: number; results: number; summaries: number } }> {
  return immediate(db, async (trx) => {
    const project = await getProject(trx, orgId, projectId);
    if (!project) throw new ApiError('not_found', 'No such tracker project.', { field: 'project_id' });
    if (confirm && confirm.name !== project.name)
      throw new ApiError('confirmation_mismatch', "name must be the project's exact current name.", { field: 'name' });
    const active = await activeScans(trx, projectId);
    if (active.length > 0) {
      const first = active[0]!;
      throw new ApiError(
        'invalid_state',
        `The project has a scan ${first.status === 'running' ? 'running' : 'queued'} (${first.id}); delete it once the scan has finished.`,
        { active_scans: active.map((s) => ({ run_id: s.id, status: s.status })) },
      );
    }
    const deleted = await deleteProject(trx, orgId, projectId);
    if (!deleted) throw new ApiError('not_found', 'No such tracker project.', { field: 'project_id' });
    return { project_id: projectId, deleted };
  });
}

/**
 * Every project, optionally one organisation's and/or one client's, oldest first (administration: the CLI lists
 * the whole database). 404 naming the field when the organisation or client does not exist, or the client is not the
 * organisation's.
 */
export async function listTrackerProjects(
  db: Db,
  filter: { orgId?: string; clientId?: string },
): Promise<TrackerProjectRow[]> {
  if (filter.orgId !== undefined && !(await getOrganisation(db, filter.orgId)))
    throw new ApiError('not_found', 'No such organisation.', { field: 'org_id' });
  if (filter.clientId !== undefined) {
    const client = await getClient(db, filter.clientId);
    if (!client || (filter.orgId !== undefined && client.org_id !== filter.orgId))
      throw new ApiError('not_found', 'No such client.', { field: 'client_id' });
  }
  return listAllProjects(db, filter);
}
