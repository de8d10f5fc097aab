/**
 * The engine's operational metrics in Prometheus form (prom-client), on a registry of its own per engine (never the
 * library's global one, so two apps in one process never mix figures). The engine records as work happens; the
 * `/metrics` route (transport/http/metrics.ts) adds the figures read at scrape time (queue depth, database pool,
 * process) and renders the registry.
 */
import { Counter, Histogram, Registry } from 'prom-client';

/** Why a request or call was refused before any work: the request limit, the failed-authentication limit, usage. */
export type RejectionReason = 'rate_limit' | 'failed_auth' | 'usage_limit';

/** Run durations run from seconds to hours (research and drafting wait on providers); waits from ms to minutes. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const RUN_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];
const CALL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export function createMetrics() {
  const registry = new Registry();
  const claimWait = new Histogram({
    name: 'agent_api_run_claim_wait_seconds',
    help: 'From the moment a run step was due to the moment a worker claimed it, by run kind.',
    labelNames: ['kind'],
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const stepSeconds = new Histogram({
    name: 'agent_api_run_step_seconds',
    help: 'Time a claimed step took, by run kind and outcome (ok, retry, failed).',
    labelNames: ['kind', 'outcome'],
    buckets: RUN_BUCKETS,
    registers: [registry],
  });
  const runSeconds = new Histogram({
    name: 'agent_api_run_seconds',
    help: 'From acceptance to the end of a run, by run kind and outcome (done, failed).',
    labelNames: ['kind', 'outcome'],
    buckets: RUN_BUCKETS,
    registers: [registry],
  });
  const stepFailures = new Counter({
    name: 'agent_api_run_step_failures_total',
    help: 'Steps that failed, by run kind and whether the run will retry (retry) or has failed (final).',
    labelNames: ['kind', 'disposition'],
    registers: [registry],
  });
  const providerCalls = new Counter({
    name: 'agent_api_provider_calls_total',
    help: 'Outbound provider calls, by provider kind (search, fetch, writer, answer) and outcome (ok, error).',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  const providerSeconds = new Histogram({
    name: 'agent_api_provider_call_seconds',
    help: 'Time an outbound provider call took once it had its concurrency slot, by provider kind.',
    labelNames: ['kind'],
    buckets: CALL_BUCKETS,
    registers: [registry],
  });
  const rejections = new Counter({
    name: 'agent_api_rejections_total',
    help: 'Requests refused before any work: rate_limit (per key), failed_auth (per address), usage_limit (window).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['rate_limit', 'failed_auth', 'usage_limit'] satisfies RejectionReason[])
    rejections.inc({ reason }, 0);

  return {
    registry,
    /** A worker claimed a step that had been due for `waitedMs`. */
    claimed(kind: string, waitedMs: number): void {
      claimWait.observe({ kind }, Math.max(0, waitedMs) / 1000);
    },
    /** A claimed step ended: `ok` (moved on), `retry` (failed, will run again) or `failed` (the run failed). */
    stepEnded(kind: string, outcome: 'ok' | 'retry' | 'failed', ms: number): void {
      stepSeconds.observe({ kind, outcome }, ms / 1000);
      if (outcome !== 'ok') stepFailures.inc({ kind, disposition: outcome === 'retry' ? 'retry' : 'final' });
    },
    /** A run ended, `ms` after it was accepted. */
    runEnded(kind: string, outcome: 'done' | 'failed', ms: number): void {
      runSeconds.observe({ kind, outcome }, Math.max(0, ms) / 1000);
    },
    providerCall(kind: string, ok: boolean, ms: number): void {
      providerCalls.inc({ kind, outcome: ok ? 'ok' : 'error' });
      providerSeconds.observe({ kind }, ms / 1000);
    },
    rejected(reason: RejectionReason): void {
      rejections.inc({ reason });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
