/**
 * The tracker state table: the statuses of a scan (the API's run record), which end it, where each may move and the
 * MCP task status it maps to; the statuses of one platform's (or one query's) result; the platforms in scan order and
 * the kinds of query. The store's column types (src/store/schema.ts), the CHECK constraints' values (checked by
 * test/contract/state-tables.test.ts) and the tools' zod enums are made from these tuples.
 *
 * A scan has no stage column and reports no progress: its platforms are measured in turn, then it is finalized.
 */
import { ANSWER_PLATFORMS } from '../../providers/types.ts';
import type { TaskStatus } from '../content/states.ts';

/** Every platform the tracker measures, in scan order: organic search first, then the AI answer platforms. */
export const TRACKER_PLATFORMS = ['organic', ...ANSWER_PLATFORMS] as const;
export type TrackerPlatform = (typeof TRACKER_PLATFORMS)[number];

export const TRACKER_QUERY_KINDS = ['keywords', 'prompts'] as const;
export type TrackerQueryKind = (typeof TRACKER_QUERY_KINDS)[number];

export const TRACKER_SCAN_STATUS_VALUES = ['queued', 'running', 'complete', 'partial', 'failed'] as const;
export type TrackerScanStatus = (typeof TRACKER_SCAN_STATUS_VALUES)[number];

/**
 * Per scan status: terminal (never moves again), `usable` (its measurements count in snapshots and its usage is
 * charged), the MCP task status, and the statuses it may move to.
 */
export const TRACKER_SCAN_STATUSES = {
  queued: { terminal: false, usable: false, task: 'working', next: ['running', 'failed'] },
  running: { terminal: false, usable: false, task: 'working', next: ['complete', 'partial', 'failed'] },
  complete: { terminal: true, usable: true, task: 'completed', next: [] },
  partial: { terminal: true, usable: true, task: 'completed', next: [] },
  failed: { terminal: true, usable: false, task: 'failed', next: [] },
} as const satisfies Record<
  TrackerScanStatus,
  { terminal: boolean; usable: boolean; task: TaskStatus; next: readonly TrackerScanStatus[] }
>;

/** A platform's (or one query's) result: every query measured, some, or none. */
export const TRACKER_RESULT_STATUS_VALUES = ['complete', 'partial', 'failed'] as const;
export type TrackerResultStatus = (typeof TRACKER_RESULT_STATUS_VALUES)[number];

/** The scan statuses that still have work ahead (a project with such a scan cannot be deleted). */
export const TRACKER_WORKING_STATUSES = TRACKER_SCAN_STATUS_VALUES.filter((s) => !TRACKER_SCAN_STATUSES[s].terminal);

export function isTerminalScan(status: TrackerScanStatus): boolean {
  return TRACKER_SCAN_STATUSES[status].terminal;
}

/** Whether a scan ended with measurements to use (complete or partial). */
export function isUsableScan(status: TrackerScanStatus): boolean {
  return TRACKER_SCAN_STATUSES[status].usable;
}
