import type { z } from 'zod';
import { iso } from '../../clock.ts';
import type { UsageImpact } from '../platform/usage.ts';
import type {
  AutopilotStarted,
  AutopilotStatus,
  ContentJobCreated,
  ContentJobDetail,
  ContentJobRowView,
} from './contract.ts';
import type { ArtifactsRow, ContentJobRow } from '../../store/repos/content.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import { stagePercent } from './states.ts';

const ts = (ms: number | null) => (ms === null ? null : iso(ms));
const A = JSON_COLUMNS.content_artifacts;

export function usageImpact(row: Pick<ContentJobRow, 'usage_level'>): UsageImpact {
  return { level: row.usage_level, included: true };
}

/** The create answer (docs/api.md §3.1): what a client needs right after acceptance. */
export function jobCreated(row: ContentJobRow): z.output<typeof ContentJobCreated> {
  const request = JSON_COLUMNS.content_jobs.request.read(row.request);
  return {
    job_id: row.id,
    status: row.status,
    content_type: row.content_type,
    research_platforms: request.researchPlatforms,
    usage_impact: usageImpact(row),
    created_at: iso(row.created_at),
  };
}

/** The detail record (docs/api.md §3.1): request fields, status, mode, source, progress, usage, error, timestamps. */
export function jobDetail(row: ContentJobRow): z.output<typeof ContentJobDetail> {
  const r = JSON_COLUMNS.content_jobs.request.read(row.request);
  return {
    job_id: row.id,
    kind: row.kind,
    client_id: row.client_id,
    creation_source: row.creation_source,
    mode: row.mode,
    status: row.status,
    // The state table's percent: every stage has one, so a new stage cannot report 0.
    progress: { stage: row.stage, percent: stagePercent(row.stage) },
    content_type: row.content_type,
    topic: r.topic,
    intent: r.intent,
    language: r.language,
    location: r.location,
    tone: r.tone,
    custom_instructions: r.customInstructions,
    word_count_target: r.wordCountTarget,
    project_mode: r.projectMode,
    page_contract: r.pageContract,
    source_url: r.sourceUrl,
    research_platforms: r.researchPlatforms,
    has_draft_body: r.draftBody !== null,
    usage_impact: usageImpact(row),
    billing: { charged: row.ledger_state === 'charged', released: row.ledger_state === 'released' },
    error: row.error,
    error_code: row.error_code,
    created_at: iso(row.created_at),
    started_at: ts(row.started_at),
    updated_at: iso(row.updated_at),
    completed_at: ts(row.completed_at),
  };
}

/** A list row: the detail without the long request text fields. */
export function jobRow(row: ContentJobRow): z.output<typeof ContentJobRowView> {
  const d = jobDetail(row);
  return {
    job_id: d.job_id,
    kind: row.kind === 'job' ? ('content_job' as const) : ('autopilot' as const),
    client_id: d.client_id,
    creation_source: d.creation_source,
    mode: d.mode,
    status: d.status,
    progress: d.progress,
    content_type: d.content_type,
    topic: d.topic,
    research_platforms: d.research_platforms,
    error: d.error,
    error_code: d.error_code,
    created_at: d.created_at,
    updated_at: d.updated_at,
    completed_at: d.completed_at,
  };
}

/** Autopilot's status view (docs/api.md §3.2): `charged` and `released` read from the ledger. */
export function autopilotStatus(
  row: ContentJobRow,
  artifacts: ArtifactsRow | undefined,
): z.output<typeof AutopilotStatus> {
  return {
    job_id: row.id,
    status: row.status,
    stage: row.stage,
    started_at: ts(row.started_at ?? row.created_at),
    updated_at: iso(row.updated_at),
    completed_at: ts(row.completed_at),
    optimize_passes: row.optimize_passes,
    optimize_pass_cap: row.optimize_pass_cap,
    charged: row.ledger_state === 'charged',
    released: row.ledger_state === 'released',
    error: row.error,
    error_code: row.error_code,
    review: A.review.readNullable(artifacts?.review ?? null),
    publish: null,
  };
}

/** Autopilot's start answer. */
export function autopilotStarted(row: ContentJobRow): z.output<typeof AutopilotStarted> {
  return {
    job_id: row.id,
    status: row.status,
    stage: row.stage,
    usage_impact: usageImpact(row),
    created_at: iso(row.created_at),
  };
}

/** Artifacts (docs/api.md §3.1); anything not yet produced is null. */
export function artifactsView(row: ContentJobRow, a: ArtifactsRow | undefined) {
  const research = A.research.readNullable(a?.research ?? null);
  // The imported page (project_mode optimize) is cited after the researched pages.
  const sources = research
    ? [
        ...research.sources.map((s) => ({ id: s.id, url: s.url, title: s.title, platform: s.platform })),
        ...(research.imported
          ? [
              {
                id: research.sources.length + 1,
                url: research.imported.url,
                title: research.imported.title,
                platform: 'imported',
              },
            ]
          : []),
      ]
    : null;
  return {
    job_id: row.id,
    status: row.status,
    writer: a?.writer ?? null,
    outline: A.outline.readNullable(a?.outline ?? null),
    seo_metadata: A.seo_metadata.readNullable(a?.seo_metadata ?? null),
    entities: A.entities.readNullable(a?.entities ?? null),
    faqs: A.faqs.readNullable(a?.faqs ?? null),
    draft: A.draft.readNullable(a?.draft ?? null),
    citations: A.citations.readNullable(a?.citations ?? null),
    sources,
    review: A.review.readNullable(a?.review ?? null),
    score: A.score.readNullable(a?.score ?? null),
  };
}
