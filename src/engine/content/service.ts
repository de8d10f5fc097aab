import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Principal } from '../auth.ts';
import type { Engine } from '../engine.ts';
import type { Db } from '../../store/db.ts';
import type { ClientRow } from '../../store/repos/clients.ts';
import { getOwnedClient } from '../../store/repos/clients.ts';
import {
  CONTENT_KINDS,
  getArtifacts,
  getContentJob,
  insertContentJob,
  listContentJobs,
  transitionContentJob,
  type ContentJobFilter,
  type ContentJobRow,
} from '../../store/repos/content.ts';
import { countPendingRuns, insertRun, resumeWaitingRun } from '../../store/repos/runs.ts';
import { BASE_UNITS, impactLevel } from '../usage.ts';
import { locationsConflict } from './location.ts';
import type { ClientContext, ContentRequest } from './types.ts';

/** Autopilot's optimization passes at most (documented in the README). */
export const OPTIMIZE_PASS_CAP = 3;

/** Units a content job or Autopilot run reserves: the base plus each research platform beyond the first. */
export function contentUnits(kind: 'job' | 'autopilot', platforms: readonly string[]): number {
  const extra = Math.max(0, platforms.length - 1);
  return kind === 'job' ? BASE_UNITS.content_job + 2 * extra : BASE_UNITS.autopilot + 3 * extra;
}

export function clientContext(row: ClientRow): ClientContext {
  return {
    name: row.name,
    domain: row.domain,
    serviceArea: row.service_area,
    brandVoice: row.brand_voice,
    knowledgeBase: row.knowledge_base,
    excludedTopics: JSON.parse(row.excluded_topics) as string[],
  };
}

export interface LocationClaim {
  location: string | null;
  lat: number | null;
  lng: number | null;
  allowConflict: boolean;
}

/**
 * Accepts a content job or an Autopilot run inside the caller's transaction: the client must be the organisation's
 * (404), Autopilot's target must match the saved service area unless confirmed (409, before any paid work), the queue
 * must have room (503), and the usage windows must fit the reservation (429). Then the job, its reservation and its
 * queued run are written together.
 */
export async function acceptContent(
  engine: Engine,
  trx: Db,
  principal: Principal,
  input: {
    kind: 'job' | 'autopilot';
    clientId: string;
    request: ContentRequest;
    mode: 'auto' | 'stepped' | null;
    location?: LocationClaim;
  },
): Promise<ContentJobRow> {
  const client = await getOwnedClient(trx, principal.orgId, input.clientId);
  if (!client) throw new ApiError('not_found', 'No such client.', { field: 'client_id' });
  const loc = input.location;
  if (loc && !loc.allowConflict && (loc.location || loc.lat !== null)) {
    const saved = { name: client.service_area, lat: client.service_lat, lng: client.service_lng };
    if (locationsConflict({ name: loc.location, lat: loc.lat, lng: loc.lng }, saved)) {
      throw new ApiError(
        'location_conflict',
        "The target location differs from the client's saved service area; fix the target or retry with allow_location_conflict: true.",
        {
          requested: { location: loc.location, lat: loc.lat, lng: loc.lng },
          saved: { service_area: client.service_area, lat: client.service_lat, lng: client.service_lng },
        },
      );
    }
  }
  const depth = await countPendingRuns(trx, [CONTENT_KINDS.job, CONTENT_KINDS.autopilot]);
  if (depth >= engine.settings.queueMaxDepth) {
    throw new ApiError(
      'service_unavailable',
      'The content queue is full; retry with exponential backoff.',
      { queue_depth: depth },
      { 'Retry-After': '30' },
    );
  }
  const now = engine.clock.now();
  const id = randomUUID();
  const runKind = CONTENT_KINDS[input.kind];
  const units = contentUnits(input.kind, input.request.researchPlatforms);
  await engine.usage.reserve(trx, {
    orgId: principal.orgId,
    plan: principal.plan,
    operation: input.kind === 'job' ? 'content_job' : 'autopilot',
    units,
    resourceKind: runKind,
    resourceId: id,
  });
  await insertContentJob(trx, {
    id,
    org_id: principal.orgId,
    client_id: client.id,
    kind: input.kind,
    creation_source: 'agent_api',
    mode: input.mode,
    status: 'queued',
    stage: 'queued',
    topic: input.request.topic,
    content_type: input.request.pageContract,
    request: JSON.stringify(input.request),
    usage_units: units,
    usage_level: impactLevel(principal.plan, units),
    optimize_pass_cap: input.kind === 'autopilot' ? OPTIMIZE_PASS_CAP : 0,
    created_at: now,
  });
  await insertRun(
    trx,
    { kind: runKind, resourceId: id, orgId: principal.orgId, maxAttempts: engine.settings.maxAttempts },
    now,
  );
  return (await getContentJob(trx, principal.orgId, id))!;
}

export async function requireContentJob(
  db: Db,
  orgId: string,
  id: string,
  kind?: 'job' | 'autopilot',
): Promise<ContentJobRow> {
  const row = await getContentJob(db, orgId, id, kind);
  if (!row) throw new ApiError('not_found', kind === 'autopilot' ? 'No such Autopilot run.' : 'No such content job.');
  return row;
}

/** Approves a stepped job's brief: `brief_ready` -> `generating_draft`, and its paused run is resumed. */
export async function approveBrief(engine: Engine, trx: Db, orgId: string, id: string): Promise<ContentJobRow> {
  const row = await requireContentJob(trx, orgId, id);
  const now = engine.clock.now();
  if (
    row.kind !== 'job' ||
    row.mode !== 'stepped' ||
    row.status !== 'brief_ready' ||
    !(await transitionContentJob(trx, id, 'brief_ready', { status: 'generating_draft', stage: 'drafting' }, now))
  ) {
    const what =
      row.kind === 'autopilot'
        ? 'an Autopilot run (it approves its own brief)'
        : `${row.mode ?? 'not stepped'} and ${row.status}`;
    throw new ApiError('invalid_state', `Only a stepped job at brief_ready can be approved; this is ${what}.`, {
      status: row.status,
      mode: row.mode,
      kind: row.kind,
    });
  }
  await resumeWaitingRun(trx, CONTENT_KINDS.job, id, now);
  return (await getContentJob(trx, orgId, id))!;
}

export async function listJobs(
  db: Db,
  orgId: string,
  filter: ContentJobFilter,
  page: { limit: number; offset: number },
) {
  return listContentJobs(db, orgId, filter, page);
}

export { getArtifacts };
