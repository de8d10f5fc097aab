/**
 * The one state table of content jobs and Autopilot runs. Every status and stage, the status a stage runs under, its
 * progress percent, which statuses rest (nothing moves until someone acts, or ever) and the MCP task status each
 * status maps to. Adding a stage is one entry here; the store's column types, the pipelines, the views and the task
 * mapping follow from it, and the compiler points at anything that does not.
 *
 * The contract's names are kept (docs/api.md §3.1, §3.2): a content job ends in status `completed` with stage `completed`, an Autopilot run in
 * status `completed` with stage `complete`; a failed one in status and stage `failed`.
 */

/** The MCP task statuses a resource can map to. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const CONTENT_STATUSES = {
  /** A web-app project saved before generation (never created by this API). */
  draft: { resting: true, task: 'working' },
  queued: { resting: false, task: 'working' },
  researching: { resting: false, task: 'working' },
  /** A stepped job waiting for approve_content_brief. */
  brief_ready: { resting: true, task: 'input_required' },
  generating_draft: { resting: false, task: 'working' },
  completed: { resting: true, task: 'completed' },
  failed: { resting: true, task: 'failed' },
} as const satisfies Record<string, { resting: boolean; task: TaskStatus }>;

export type ContentStatus = keyof typeof CONTENT_STATUSES;

/** Stages in the order a run passes them; `percent` is the progress a client sees while the run is there. */
export const CONTENT_STAGES = {
  not_started: { status: 'draft', percent: 0 },
  queued: { status: 'queued', percent: 0 },
  researching: { status: 'researching', percent: 15 },
  briefing: { status: 'researching', percent: 30 },
  brief_ready: { status: 'brief_ready', percent: 50 },
  drafting: { status: 'generating_draft', percent: 60 },
  /** A content job's draft is scored against the researched pages (artifacts.score). */
  scoring: { status: 'generating_draft', percent: 70 },
  optimizing: { status: 'generating_draft', percent: 75 },
  fact_checking: { status: 'generating_draft', percent: 85 },
  finalizing: { status: 'generating_draft', percent: 95 },
  /** A content job's last stage. */
  completed: { status: 'completed', percent: 100 },
  /** An Autopilot run's last stage. */
  complete: { status: 'completed', percent: 100 },
  failed: { status: 'failed', percent: 100 },
} as const satisfies Record<string, { status: ContentStatus; percent: number }>;

export type ContentStage = keyof typeof CONTENT_STAGES;

/** The stage a finished run of each kind ends in. */
export const FINAL_STAGE = { job: 'completed', autopilot: 'complete' } as const satisfies Record<string, ContentStage>;

/**
 * The stages a run reports as MCP progress, in order: its position is the progress and the last index the total.
 * An Autopilot run's `complete` reports as `completed`'s position, a failed run as the last.
 */
export const PROGRESS_STAGES: readonly ContentStage[] = (Object.keys(CONTENT_STAGES) as ContentStage[]).filter(
  (s) => s !== 'not_started' && s !== 'complete' && s !== 'failed',
);

export function progressPosition(stage: ContentStage): number {
  if (stage === 'failed') return PROGRESS_STAGES.length - 1;
  return Math.max(0, PROGRESS_STAGES.indexOf(stage === 'complete' ? 'completed' : stage));
}

export function isRestingStatus(status: ContentStatus): boolean {
  return CONTENT_STATUSES[status].resting;
}

export function stagePercent(stage: ContentStage): number {
  return CONTENT_STAGES[stage].percent;
}

export function taskStatusOf(status: ContentStatus): TaskStatus {
  return CONTENT_STATUSES[status].task;
}

export function isContentStatus(value: string): value is ContentStatus {
  return Object.prototype.hasOwnProperty.call(CONTENT_STATUSES, value);
}
