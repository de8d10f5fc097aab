/**
 * The optimization state table: the statuses a run has (which end it, which MCP task status each maps to, where each
 * may move) and the stages a running run passes, in order, with the progress each reports. The store's column types
 * and the tools' zod enums are made from these tuples, so a status or stage added here is one edit and the compiler
 * points at every place that must handle it (a missing stage used to read as 0% progress).
 */
import type { TaskStatus } from '../content/states.ts';

export const OPTIMIZATION_STATUS_VALUES = ['queued', 'running', 'complete', 'failed'] as const;
export type OptimizationStatus = (typeof OPTIMIZATION_STATUS_VALUES)[number];

/** Per status: terminal (never moves again), the MCP task status, and the statuses it may move to. */
export const OPTIMIZATION_STATUSES = {
  queued: { terminal: false, task: 'working', next: ['running', 'failed'] },
  running: { terminal: false, task: 'working', next: ['complete', 'failed'] },
  complete: { terminal: true, task: 'completed', next: [] },
  failed: { terminal: true, task: 'failed', next: [] },
} as const satisfies Record<
  OptimizationStatus,
  { terminal: boolean; task: TaskStatus; next: readonly OptimizationStatus[] }
>;

/** The pipeline steps an optimization passes while running, in order. */
export const OPTIMIZATION_STAGE_VALUES = ['searching', 'fetching', 'scoring'] as const;
export type OptimizationStage = (typeof OPTIMIZATION_STAGE_VALUES)[number];

/** Each stage's position in the run: queued is 0, an ended run is OPTIMIZATION_PROGRESS_TOTAL. */
export const OPTIMIZATION_STAGES = { searching: 1, fetching: 2, scoring: 3 } as const satisfies Record<
  OptimizationStage,
  number
>;

/** The progress total MCP notifications carry: one past the last stage. */
export const OPTIMIZATION_PROGRESS_TOTAL = Math.max(...Object.values(OPTIMIZATION_STAGES)) + 1;

export function isTerminalOptimization(status: OptimizationStatus): boolean {
  return OPTIMIZATION_STATUSES[status].terminal;
}

export function optimizationTaskStatus(status: OptimizationStatus): TaskStatus {
  return OPTIMIZATION_STATUSES[status].task;
}

/** Progress of a run as (done, total, stage) for MCP progress notifications. */
export function optimizationProgress(row: { status: OptimizationStatus; stage: OptimizationStage | null }): {
  progress: number;
  total: number;
  message: string;
} {
  const total = OPTIMIZATION_PROGRESS_TOTAL;
  switch (row.status) {
    case 'complete':
    case 'failed':
      return { progress: total, total, message: row.status };
    case 'queued':
      return { progress: 0, total, message: 'queued' };
    case 'running':
      // Running always has a stage (enterStage sets both); without one it is at least past queued.
      return { progress: row.stage ? OPTIMIZATION_STAGES[row.stage] : 1, total, message: row.stage ?? 'running' };
    default:
      return assertNever(row.status);
  }
}

/** The default of an exhaustive switch: a value the compiler says cannot occur. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled state: ${String(value)}`);
}
