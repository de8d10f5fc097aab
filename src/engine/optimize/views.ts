import { iso } from '../../clock.ts';
import type { OptimizationRow } from '../../store/repos/optimizations.ts';

// Progress lives in the state table; the service reads it from here with the views.
export { optimizationProgress } from './states.ts';

export type BillingStatus = 'reserved' | 'finalized' | 'released' | 'reconciliation_pending';
export type OptimizationView = 'status' | 'summary' | 'full';

/**
 * Billing state read from the ledger, not stored twice: charged is `finalized`, released is `released`, and a
 * reservation still open on a complete run is `reconciliation_pending` (the charge write failed; the reconciler
 * retries it).
 */
export function billingStatus(row: Pick<OptimizationRow, 'status' | 'ledger_state'>): BillingStatus {
  if (row.ledger_state === 'charged') return 'finalized';
  if (row.ledger_state === 'released') return 'released';
  return row.status === 'complete' ? 'reconciliation_pending' : 'reserved';
}

/**
 * The summary's top recommendations, confidence and warnings. Runs finished before they were saved have none: an
 * empty list and normal confidence.
 */
function summaryExtras(json: string | null): {
  recommendations: unknown[];
  confidence: 'normal' | 'low';
  warnings: string[];
} {
  if (json === null) return { recommendations: [], confidence: 'normal', warnings: [] };
  return JSON.parse(json) as ReturnType<typeof summaryExtras>;
}

/** The record in the requested view: `status` for polling, `summary` after completion, `full` with the evidence. */
export function optimizationView(row: OptimizationRow, view: OptimizationView) {
  const base = {
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
    billing_status: billingStatus(row),
  };
  if (view === 'status') return base;
  const summary =
    row.status === 'complete'
      ? {
          rankabilityScore: row.score ?? 0,
          sourceWordCount: row.source_word_count ?? 0,
          competitorCount: row.competitor_count ?? 0,
          duration: row.duration_ms ?? 0,
          billingFinalized: billingStatus(row) === 'finalized',
          ...summaryExtras(row.summary_extras),
        }
      : null;
  if (view === 'summary') return { ...base, summary };
  return {
    ...base,
    summary,
    result: row.result === null ? null : (JSON.parse(row.result) as Record<string, unknown>),
    evidence: row.evidence === null ? null : (JSON.parse(row.evidence) as Record<string, unknown>),
  };
}
