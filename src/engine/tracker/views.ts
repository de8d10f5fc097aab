import type { z } from 'zod';
import { iso } from '../../clock.ts';
import { billingStatus } from '../accounts/contract.ts';
import type {
  LatestSummaryRow,
  TrackerProjectRow,
  TrackerResultRow,
  TrackerScanRow,
  TrackerSummaryRow,
} from '../../store/repos/tracker.ts';
import type { TrackerScanStatus } from '../../store/schema.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import {
  isUsableScan,
  type Overall,
  type PlatformMeasurement,
  type ProjectRecord,
  type QueryResult,
  type ScanRecord,
} from './contract.ts';
import { denominators, overallSpi } from './spi.ts';

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** A project's configuration; `queries` only in the detail view (lists carry the count). */
export function projectView(row: TrackerProjectRow, withQueries: boolean): z.output<typeof ProjectRecord> {
  return {
    project_id: row.id,
    client_id: row.client_id,
    name: row.name,
    domain: row.domain,
    brand_names: JSON_COLUMNS.tracker_projects.brand_names.read(row.brand_names),
    query_kind: row.query_kind,
    ...(withQueries ? { queries: JSON_COLUMNS.tracker_projects.queries.read(row.queries) } : {}),
    query_count: row.query_count,
    platforms: JSON_COLUMNS.tracker_projects.platforms.read(row.platforms),
    location: row.location,
    language: row.language,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** A scan's billing status: usable once it produced a usable result (src/engine/accounts/contract.ts). */
function scanBilling(row: Pick<TrackerScanRow, 'status' | 'ledger_state'>) {
  return billingStatus(row.ledger_state, isUsableScan(row.status));
}

/** The scan (run) record: what start_tracker_scan answers and project reads show as `latest_run`. */
export function scanView(row: TrackerScanRow): z.output<typeof ScanRecord> {
  return {
    run_id: row.id,
    project_id: row.project_id,
    status: row.status,
    platforms: JSON_COLUMNS.tracker_scans.platforms.read(row.platforms),
    missing_platforms: JSON_COLUMNS.tracker_scans.missing_platforms.read(row.missing_platforms),
    query_count: row.query_count,
    units: row.units,
    spi: row.spi,
    created_at: iso(row.created_at),
    started_at: isoOrNull(row.started_at),
    completed_at: isoOrNull(row.completed_at),
    error: row.error,
    billing_status: scanBilling(row),
  };
}

/** One platform's measurement in a snapshot: where it came from, its status, SPI and denominators. */
export function platformView(s: TrackerSummaryRow, runStatus: TrackerScanStatus): z.output<typeof PlatformMeasurement> {
  return {
    platform: s.platform,
    status: s.status,
    source_run_id: s.run_id,
    run_status: runStatus,
    provider: s.provider,
    measured_at: iso(s.measured_at),
    spi: s.spi,
    denominators: denominators(s),
    error: s.error,
  };
}

export function resultView(r: TrackerResultRow): z.output<typeof QueryResult> {
  return {
    query: r.query,
    status: r.status,
    position: r.position,
    brand_mentioned: r.brand_mentioned === 1,
    brand_cited: r.brand_cited === 1,
    cited_urls: JSON_COLUMNS.tracker_results.cited_urls.read(r.cited_urls),
    measured_at: iso(r.measured_at),
    error: r.error,
  };
}

/** The overall SPI of a set of platform measurements, with its denominators. */
export function overallView(summaries: readonly (TrackerSummaryRow | LatestSummaryRow)[]): z.output<typeof Overall> {
  const o = overallSpi(summaries);
  return {
    spi: o.spi,
    denominators: {
      pairs_measured: o.pairs_measured,
      pairs_present: o.pairs_present,
      platforms_included: o.platforms_included,
    },
  };
}
