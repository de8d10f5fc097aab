import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Principal } from '../accounts/auth.ts';
import type { EngineServices } from '../engine.ts';
import type { ReadDb, TxDb } from '../../store/db.ts';
import type { ClientRow } from '../../store/repos/clients.ts';
import { requireOwnedClient } from '../accounts/clients.ts';
import {
  CONTENT_KINDS,
  getArtifacts,
  getContentJob,
  insertContentJob,
  listContentJobs,
  saveArtifacts,
  transitionContentJob,
  updateContentJob,
  type ContentJobFilter,
  type ContentJobRow,
} from '../../store/repos/content.ts';
import { countPendingRuns, insertRun, resumeWaitingRun } from '../../store/repos/runs.ts';
import { BASE_UNITS, impactLevel } from '../platform/usage.ts';
import { locationsConflict } from './location.ts';
import type { Brief, BriefEdits, ClientContext, ContentRequest } from './types.ts';
import { applyBriefEdits } from './brief-edits.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

const A = JSON_COLUMNS.content_artifacts;

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
    excludedTopics: JSON_COLUMNS.clients.excluded_topics.read(row.excluded_topics),
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
  engine: EngineServices,
  trx: TxDb,
  principal: Principal,
  input: {
    kind: 'job' | 'autopilot';
    clientId: string;
    /** The request with the client's defaults applied (tone, service area). */
    request: (client: ClientRow) => ContentRequest;
    mode: 'auto' | 'stepped' | null;
    location?: LocationClaim;
  },
): Promise<ContentJobRow> {
  const client = await requireOwnedClient(trx, principal.orgId, input.clientId, { field: 'client_id' });
  const request = input.request(client);
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
      { retryAfterSeconds: 30 },
    );
  }
  const now = engine.clock.now();
  const id = randomUUID();
  const runKind = CONTENT_KINDS[input.kind];
  const units = contentUnits(input.kind, request.researchPlatforms);
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
    topic: request.topic,
    content_type: request.pageContract,
    request: JSON_COLUMNS.content_jobs.request.write(request),
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
  db: ReadDb,
  orgId: string,
  id: string,
  kind?: 'job' | 'autopilot',
): Promise<ContentJobRow> {
  const row = await getContentJob(db, orgId, id, kind);
  if (!row) throw new ApiError('not_found', kind === 'autopilot' ? 'No such Autopilot run.' : 'No such content job.');
  return row;
}

/** What an approval may change before the draft: the brief, the custom instructions, or the draft itself. */
export interface Approval {
  briefEdits: BriefEdits | null;
  customInstructions?: string;
  draftBody?: string;
}

/**
 * Approves a stepped job's brief: `brief_ready` -> `generating_draft`, and its paused run is resumed. Edits are
 * written with the move: the request keeps them (the draft step applies them) and the brief artifacts show them.
 */
export async function approveBrief(
  engine: EngineServices,
  trx: TxDb,
  orgId: string,
  id: string,
  approval: Approval = { briefEdits: null },
): Promise<ContentJobRow> {
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
  await saveApproval(trx, row, approval, now);
  await resumeWaitingRun(trx, CONTENT_KINDS.job, id, now);
  return (await getContentJob(trx, orgId, id))!;
}

async function saveApproval(trx: TxDb, row: ContentJobRow, approval: Approval, now: number): Promise<void> {
  const { briefEdits, customInstructions, draftBody } = approval;
  if (!briefEdits && customInstructions === undefined && draftBody === undefined) return;
  const request = JSON_COLUMNS.content_jobs.request.read(row.request);
  const edited: ContentRequest = {
    ...request,
    briefEdits: briefEdits ?? request.briefEdits ?? null,
    customInstructions: customInstructions === undefined ? request.customInstructions : customInstructions || null,
    draftBody: draftBody ?? request.draftBody,
  };
  await updateContentJob(trx, row.id, { request: JSON_COLUMNS.content_jobs.request.write(edited) }, now);
  if (!briefEdits) return;
  const a = await getArtifacts(trx, row.id);
  const written: Brief = {
    outline: A.outline.read(a?.outline ?? '[]'),
    seoMetadata: A.seo_metadata.read(a?.seo_metadata ?? '{}'),
    entities: A.entities.read(a?.entities ?? '[]'),
    faqs: A.faqs.read(a?.faqs ?? '[]'),
  };
  const b = applyBriefEdits(written, briefEdits);
  await saveArtifacts(trx, row.id, { outline: b.outline, seo_metadata: b.seoMetadata, faqs: b.faqs }, now);
}

/** The organisation's jobs of one kind, newest first; a client filter must name one of its clients. */
export async function listJobs(
  db: ReadDb,
  orgId: string,
  filter: ContentJobFilter,
  page: { limit: number; offset: number },
) {
  if (filter.clientId) await requireOwnedClient(db, orgId, filter.clientId);
  return listContentJobs(db, orgId, filter, page);
}

/** A job (of the given kind) with its artifacts; 404 for another organisation's. */
export async function readJobWithArtifacts(db: ReadDb, orgId: string, id: string, kind?: 'job' | 'autopilot') {
  const row = await requireContentJob(db, orgId, id, kind);
  return { row, artifacts: await getArtifacts(db, row.id) };
}

/** The artifacts of a job already read for its organisation. */
export const readArtifacts = (db: ReadDb, row: ContentJobRow) => getArtifacts(db, row.id);

/** A job the caller just created or replayed, by id. */
export async function readContentJob(db: ReadDb, orgId: string, id: string): Promise<ContentJobRow> {
  return requireContentJob(db, orgId, id);
}
