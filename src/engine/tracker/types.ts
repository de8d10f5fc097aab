import { ANSWER_PLATFORMS, type AnswerPlatform } from '../../providers/types.ts';
import { TRACKER_PLATFORMS, type TrackerPlatform, type TrackerResultStatus } from './contract.ts';

// The platforms live in the tracker's state table (contract.ts).
export { TRACKER_PLATFORMS };
export type { TrackerPlatform };

export function isAnswerPlatform(p: TrackerPlatform): p is AnswerPlatform {
  return (ANSWER_PLATFORMS as readonly string[]).includes(p);
}

/** What a scan measures, frozen into the run's checkpoint when it is accepted. */
export interface ScanInput {
  project_id: string;
  domain: string;
  brand_names: string[];
  queries: string[];
  platforms: TrackerPlatform[];
  location: string | null;
  language: string;
}

/** One query measured on one platform. */
export interface QueryMeasurement {
  query_index: number;
  query: string;
  status: Exclude<TrackerResultStatus, 'partial'>;
  position: number | null;
  brand_mentioned: boolean;
  brand_cited: boolean;
  cited_urls: string[];
  measured_at: number;
  error: string | null;
}

/** A platform step's output: every query's measurement, or null when the scan does not include the platform. */
export interface PlatformOutput {
  platform: TrackerPlatform;
  provider: string | null;
  results: QueryMeasurement[];
}

/** Platform status from its queries: all measured complete, none failed, otherwise partial. */
export function platformStatus(results: ReadonlyArray<{ status: string }>): TrackerResultStatus {
  const ok = results.filter((r) => r.status === 'complete').length;
  if (ok === results.length && ok > 0) return 'complete';
  return ok === 0 ? 'failed' : 'partial';
}
