import { iso } from '../../clock.ts';
import { billingStatus, type BillingStatus } from '../accounts/contract.ts';
import { JSON_COLUMNS, type SummaryExtras } from '../../store/json-columns.ts';
import type { OptimizationRow } from '../../store/repos/optimizations.ts';

const O = JSON_COLUMNS.optimizations;

// Progress lives in the state table; the service reads it from here with the views.
export { optimizationProgress } from './states.ts';

export type OptimizationView = 'status' | 'summary' | 'full';

/** An optimization's billing status: usable once complete (src/engine/accounts/contract.ts). */
export function optimizationBilling(row: Pick<OptimizationRow, 'status' | 'ledger_state'>): BillingStatus {
  return billingStatus(row.ledger_state, row.status === 'complete');
}

/**
 * The summary's top recommendations, confidence and warnings. Runs finished before they were saved have none: an
 * empty list and normal confidence.
 */
function summaryExtras(json: string | null): SummaryExtras {
  return O.summary_extras.readOr(json, { recommendations: [], confidence: 'normal', warnings: [] });
}

/** The status view: what polling reads. */
export function optimizationStatusView(row: OptimizationRow) {
  return {
    optimization_id: row.id,
    status: row.status,
    stage: row.status === 'running' ? row.stage : null,
    client_id: row.client_id,
    url: row.url,
    keyword: row.keyword,
    language: row.language,
    created_at: iso(row.created_at),
    started_at: row.started_at === null ? null : iso(row.started_at),
    completed_at: row.completed_at === null ? null : iso(row.completed_at),
    error: row.error,
    billing_status: optimizationBilling(row),
  };
}

/** The summary view: the status view and, once complete, the summary (null before). */
export function optimizationSummaryView(row: OptimizationRow) {
  const summary =
    row.status === 'complete'
      ? {
          rankabilityScore: row.score ?? 0,
          sourceWordCount: row.source_word_count ?? 0,
          competitorCount: row.competitor_count ?? 0,
          duration: row.duration_ms ?? 0,
          billingFinalized: optimizationBilling(row) === 'finalized',
          ...summaryExtras(row.summary_extras),
        }
      : null;
  return { ...optimizationStatusView(row), summary };
}

/** The full view: the summary view with the stored result and evidence. */
export function optimizationFullView(row: OptimizationRow) {
  return {
    ...optimizationSummaryView(row),
    result: O.result.readNullable(row.result),
    evidence: O.evidence.readNullable(row.evidence),
  };
}

/** The record in the requested view: `status` for polling, `summary` after completion, `full` with the evidence. */
export function optimizationView(row: OptimizationRow, view: OptimizationView) {
  switch (view) {
    case 'status':
      return optimizationStatusView(row);
    case 'summary':
      return optimizationSummaryView(row);
    case 'full':
      return optimizationFullView(row);
  }
}
