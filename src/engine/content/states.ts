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

/** The kinds of run the content table serves: a content job and an Autopilot run. */
export const CONTENT_RUN_KINDS = ['job', 'autopilot'] as const;
export type ContentRunKind = (typeof CONTENT_RUN_KINDS)[number];

/** Where a content project was made: this API, or the web app (never created here). */
export const CREATION_SOURCES = ['agent_api', 'web_app'] as const;
export type CreationSource = (typeof CREATION_SOURCES)[number];

/** How a content job passes its brief: approved automatically, or paused at brief_ready for approve_content_brief. */
export const CONTENT_MODES = ['auto', 'stepped'] as const;
export type ContentMode = (typeof CONTENT_MODES)[number];

/**
 * Every status, in the order a run passes them: `resting` (nothing moves until someone acts, or ever), `terminal`
 * (never moves again), the MCP task status it maps to, and `next`, the statuses it may move to.
 */
export const CONTENT_STATUSES = {
  /** A web-app project saved before generation (never created by this API). */
  draft: { resting: true, terminal: false, task: 'working', next: [] },
  queued: { resting: false, terminal: false, task: 'working', next: ['researching', 'failed'] },
  researching: {
    resting: false,
    terminal: false,
    task: 'working',
    next: ['brief_ready', 'generating_draft', 'failed'],
  },
  /** A stepped job waiting for approve_content_brief. */
  brief_ready: { resting: true, terminal: false, task: 'input_required', next: ['generating_draft'] },
  generating_draft: { resting: false, terminal: false, task: 'working', next: ['completed', 'failed'] },
  completed: { resting: true, terminal: true, task: 'completed', next: [] },
  failed: { resting: true, terminal: true, task: 'failed', next: [] },
} as const satisfies Record<string, { resting: boolean; terminal: boolean; task: TaskStatus; next: readonly string[] }>;

export type ContentStatus = keyof typeof CONTENT_STATUSES;

/** The statuses as a tuple, in the table's order: the zod enums and the status filters are made from it. */
export const CONTENT_STATUS_VALUES = Object.keys(CONTENT_STATUSES) as [ContentStatus, ...ContentStatus[]];

const BOTH = ['job', 'autopilot'] as const;

/**
 * Stages in the order a run passes them; `percent` is the progress a client sees while the run is there, `kinds` the
 * kinds of run that pass it (a content job pauses at brief_ready only when stepped).
 */
export const CONTENT_STAGES = {
  not_started: { status: 'draft', percent: 0, kinds: [] },
  queued: { status: 'queued', percent: 0, kinds: BOTH },
  researching: { status: 'researching', percent: 15, kinds: BOTH },
  briefing: { status: 'researching', percent: 30, kinds: BOTH },
  brief_ready: { status: 'brief_ready', percent: 50, kinds: ['job'] },
  drafting: { status: 'generating_draft', percent: 60, kinds: BOTH },
  /** A content job's draft is scored against the researched pages (artifacts.score). */
  scoring: { status: 'generating_draft', percent: 70, kinds: ['job'] },
  optimizing: { status: 'generating_draft', percent: 75, kinds: ['autopilot'] },
  fact_checking: { status: 'generating_draft', percent: 85, kinds: ['autopilot'] },
  finalizing: { status: 'generating_draft', percent: 95, kinds: ['autopilot'] },
  /** A content job's last stage. */
  completed: { status: 'completed', percent: 100, kinds: ['job'] },
  /** An Autopilot run's last stage. */
  complete: { status: 'completed', percent: 100, kinds: ['autopilot'] },
  failed: { status: 'failed', percent: 100, kinds: BOTH },
} as const satisfies Record<string, { status: ContentStatus; percent: number; kinds: readonly ContentRunKind[] }>;

export type ContentStage = keyof typeof CONTENT_STAGES;

/** The stages as a tuple, in the table's order. */
export const CONTENT_STAGE_VALUES = Object.keys(CONTENT_STAGES) as [ContentStage, ...ContentStage[]];

/** The stages a run of `kind` can pass, in order (what docs/content.md lists per kind). */
export function stagesOfKind(kind: ContentRunKind): ContentStage[] {
  return CONTENT_STAGE_VALUES.filter((s) => (CONTENT_STAGES[s].kinds as readonly ContentRunKind[]).includes(kind));
}

/** Whether a run at `from` may move to `to` (the statuses' `next`; staying is always allowed). */
export function isAllowedContentMove(from: ContentStatus, to: ContentStatus): boolean {
  return from === to || (CONTENT_STATUSES[from].next as readonly ContentStatus[]).includes(to);
}

/** The stage a finished run of each kind ends in. */
export const FINAL_STAGE = { job: 'completed', autopilot: 'complete' } as const satisfies Record<
  ContentRunKind,
  ContentStage
>;

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

export function isTerminalStatus(status: ContentStatus): boolean {
  return CONTENT_STATUSES[status].terminal;
}

export function isContentStatus(value: string): value is ContentStatus {
  return Object.prototype.hasOwnProperty.call(CONTENT_STATUSES, value);
}
