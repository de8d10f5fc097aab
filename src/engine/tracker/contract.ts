/**
 * The tracker state table: the statuses of a scan (the API's run record), which end it, where each may move and the
 * MCP task status it maps to; the statuses of one platform's (or one query's) result; the platforms in scan order and
 * the kinds of query. The store's column types (src/store/schema.ts), the CHECK constraints' values (checked by
 * test/contract/state-tables.test.ts) and the tools' zod enums are made from these tuples.
 *
 * A scan has no stage column and reports no progress: its platforms are measured in turn, then it is finalized.
 */
import { z } from 'zod';
import { Timestamp } from '../../clock.ts';
import { ANSWER_PLATFORMS } from '../../providers/types.ts';
import { BILLING_STATUSES } from '../accounts/contract.ts';
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

// The records the tracker answers (the tools re-export them; the views are typed by them).

export const Platform = z.enum(TRACKER_PLATFORMS);
export const ScanStatus = z.enum(TRACKER_SCAN_STATUS_VALUES);
export const ResultStatus = z.enum(TRACKER_RESULT_STATUS_VALUES);
export const QueryKind = z.enum(TRACKER_QUERY_KINDS);

export const ProjectRecord = z.object({
  project_id: z.string(),
  client_id: z.string(),
  name: z.string(),
  domain: z.string().describe('Host without scheme or www.; subdomains count as the brand.'),
  brand_names: z.array(z.string()).describe('Names that count as a mention (the domain written out counts too).'),
  query_kind: QueryKind,
  queries: z.array(z.string()).optional().describe('Only in get_tracker_project.'),
  query_count: z.number().int(),
  platforms: z.array(Platform).describe('The platforms the project expects to be measured on.'),
  location: z.string().nullable(),
  language: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ScanRecord = z.object({
  run_id: z.string(),
  project_id: z.string(),
  status: ScanStatus,
  platforms: z.array(Platform).describe('Platforms this scan measures.'),
  missing_platforms: z
    .array(Platform)
    .describe('Project platforms with no configured provider: not scanned, missing coverage (not zero).'),
  query_count: z.number().int(),
  units: z.number().int().describe('Usage units reserved: one per query and scanned platform.'),
  spi: z
    .number()
    .nullable()
    .describe('Overall SPI of this scan once finished; null before or when nothing was measured.'),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  completed_at: Timestamp.nullable(),
  error: z.string().nullable(),
  billing_status: z.enum(BILLING_STATUSES),
});

export const Denominators = z.object({
  queries_tracked: z.number().int(),
  queries_measured: z.number().int().describe('The SPI denominator: queries measured successfully.'),
  queries_failed: z.number().int().describe('Failed calls: excluded from the denominator, not counted as zero.'),
  present: z.number().int(),
  mentioned: z.number().int(),
  cited: z.number().int(),
  ranked: z.number().int(),
  average_position: z.number().nullable(),
});

export const Overall = z.object({
  spi: z.number().nullable().describe('0-100; null when no platform has a measurement.'),
  denominators: z.object({
    pairs_measured: z.number().int().describe('Query-platform pairs measured: the overall SPI denominator.'),
    pairs_present: z.number().int(),
    platforms_included: z.array(Platform),
  }),
});

export const Coverage = z.object({
  expected: z.array(Platform),
  present: z.array(Platform),
  missing: z.array(Platform).describe('Expected platforms without data: absent from the answer, never zero.'),
  reasons: z.partialRecord(
    Platform,
    z.enum(['not_configured', 'no_successful_result', 'no_finished_run', 'not_in_run', 'failed_in_run']),
  ),
});

export const PlatformMeasurement = z.object({
  platform: Platform,
  status: ResultStatus.describe('partial: some queries failed; the SPI covers the measured ones.'),
  source_run_id: z.string().describe('The run this platform result comes from.'),
  run_status: ScanStatus,
  provider: z.string().nullable(),
  measured_at: Timestamp,
  spi: z.number().nullable(),
  denominators: Denominators,
  error: z.string().nullable(),
});

export const QueryResult = z.object({
  query: z.string(),
  status: ResultStatus,
  position: z
    .number()
    .int()
    .nullable()
    .describe("Rank of the brand's domain (organic result, or first citation in an AI answer); null when absent."),
  brand_mentioned: z.boolean(),
  brand_cited: z.boolean(),
  cited_urls: z.array(z.string()),
  measured_at: Timestamp,
  error: z.string().nullable(),
});

export const SnapshotMethod = z.enum(['latest_per_platform', 'latest_run']);

/** A project's SPI per UTC day (get_tracker_trends): a day without a successful run is a gap (spi null), never a zero. */
export const TrendsRecord = z.object({
  project_id: z.string(),
  days: z.number().int(),
  from: z.string().describe('First day (YYYY-MM-DD, UTC).'),
  to: z.string().describe('Last day: today (UTC).'),
  timezone: z.literal('UTC'),
  method: z.string(),
  platforms_expected: z.array(Platform),
  points: z.array(
    z.object({
      date: z.string(),
      run_status: ScanStatus.nullable().describe(
        'Status of the run the point comes from; failed when only failed runs finished that day; null when none did.',
      ),
      run_id: z.string().nullable(),
      spi: z.number().nullable().describe('Null: no successful run that day (a gap, not a zero).'),
      platforms: z
        .partialRecord(Platform, z.number())
        .describe('SPI per platform measured that day; absent platforms have no data.'),
      runs: z.number().int().describe('Runs finished that day.'),
    }),
  ),
});
