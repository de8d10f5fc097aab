/**
 * The optimization state table: the stages a run passes, in order, and the progress each reports. Keyed by every
 * `OptimizationStage`, so a stage added to the store's type without a place here does not compile (a missing entry
 * used to read as 0% progress).
 */
import type { OptimizationRow } from '../../store/repos/optimizations.ts';
import type { OptimizationStage } from '../../store/schema.ts';

/** Each stage's position in the run: queued is 0, an ended run is OPTIMIZATION_PROGRESS_TOTAL. */
export const OPTIMIZATION_STAGES = { searching: 1, fetching: 2, scoring: 3 } as const satisfies Record<
  OptimizationStage,
  number
>;

/** The progress total MCP notifications carry: one past the last stage. */
export const OPTIMIZATION_PROGRESS_TOTAL = Math.max(...Object.values(OPTIMIZATION_STAGES)) + 1;

/** Progress of a run as (done, total, stage) for MCP progress notifications. */
export function optimizationProgress(row: Pick<OptimizationRow, 'status' | 'stage'>): {
  progress: number;
  total: number;
  message: string;
} {
  const total = OPTIMIZATION_PROGRESS_TOTAL;
  if (row.status === 'complete' || row.status === 'failed') return { progress: total, total, message: row.status };
  if (row.status === 'queued') return { progress: 0, total, message: 'queued' };
  // Running always has a stage (enterStage sets both); without one it is at least past queued.
  return { progress: row.stage ? OPTIMIZATION_STAGES[row.stage] : 1, total, message: row.stage ?? 'running' };
}
