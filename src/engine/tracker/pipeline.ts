import { ApiError } from '../../errors.ts';
import { ProviderError, type AnswerEngine, type SearchProvider } from '../../providers/types.ts';
import type { Db } from '../../store/db.ts';
import type { TrackerScanStatus } from '../../store/schema.ts';
import {
  advanceLatest,
  putResults,
  putSummary,
  scanProgress,
  summariesOf,
  TRACKER_SCAN_KIND,
  updateScan,
  type TrackerSummaryRow,
} from '../../store/repos/tracker.ts';
import type { Engine, EngineServices } from '../engine.ts';
import {
  definePipeline,
  RetryableError,
  type Pipeline,
  type StepContext,
  type StepDef,
  type WriteContext,
} from '../runner/types.ts';
import { brandMatcher } from './match.ts';
import { measureAnswer, measureOrganic, topCited, type Measured } from './measure.ts';
import { denominators, overallSpi, platformSpi, tally } from './spi.ts';
import {
  isAnswerPlatform,
  platformStatus,
  TRACKER_PLATFORMS,
  type PlatformOutput,
  type QueryMeasurement,
  type ScanInput,
  type TrackerPlatform,
} from './types.ts';

/** A scan measures each platform in turn, then finalizes; the scan row has no stage column, so stages are not stored. */
type TrackerStage = 'measuring' | 'finalizing';

type FinalizeOutput = Awaited<ReturnType<typeof finalizeFrom>>;

/** The scan pipeline's step outputs: one per platform (null when the scan does not measure it), then finalize. */
type ScanOutputs = { [P in TrackerPlatform]: PlatformOutput | null } & { finalize: FinalizeOutput };

type Ctx = StepContext<ScanInput, ScanOutputs>;

/** The provider that serves a platform now, or null (missing coverage, never a zero). */
export function providerFor(engine: EngineServices, platform: TrackerPlatform): SearchProvider | AnswerEngine | null {
  if (isAnswerPlatform(platform)) return engine.providers.answerEngines[platform] ?? null;
  try {
    return engine.providers.researchProvider('organic');
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}

/** The platforms among `platforms` that have a configured provider now. */
export function configuredPlatforms(engine: EngineServices, platforms: readonly TrackerPlatform[]): TrackerPlatform[] {
  return platforms.filter((p) => providerFor(engine, p) !== null);
}

/** Client-safe text of a failed provider call (adapters' messages carry no secrets or upstream bodies). */
function failure(err: unknown): string {
  if (err instanceof ProviderError) return err.message;
  return 'the provider call failed';
}

/** The scan's per-platform aggregate, computed from its results; written when the platform finishes. */
export function summarize(runId: string, projectId: string, out: PlatformOutput, now: number): TrackerSummaryRow {
  const t = tally(out.results);
  const status = platformStatus(out.results);
  const firstError = out.results.find((r) => r.error)?.error ?? null;
  return {
    run_id: runId,
    platform: out.platform,
    project_id: projectId,
    status,
    provider: out.provider,
    ...t,
    spi: platformSpi(t),
    top_cited: JSON.stringify(topCited(out.results)),
    measured_at: out.results.reduce((a, r) => Math.max(a, r.measured_at), 0) || now,
    error: status === 'complete' ? null : firstError,
  };
}

async function finalizeFrom(db: Db, runId: string) {
  const summaries = await summariesOf(db, runId);
  const status = scanStatus(summaries);
  const usable = summaries.filter((s) => s.status !== 'failed');
  const overall = overallSpi(usable);
  const scores = Object.fromEntries(
    summaries.map((s) => [
      s.platform,
      { status: s.status, spi: s.spi, measured_at: s.measured_at, denominators: denominators(s) },
    ]),
  );
  return {
    status,
    spi: overall.spi,
    scores,
    errors: summaries.filter((s) => s.status === 'failed').map((s) => `${s.platform}: ${s.error ?? 'failed'}`),
  };
}

/** A scan's status from its platforms: all complete → complete, all failed → failed, otherwise partial. */
export function scanStatus(summaries: ReadonlyArray<{ status: string }>): TrackerScanStatus {
  if (summaries.length === 0) return 'failed';
  if (summaries.every((s) => s.status === 'complete')) return 'complete';
  if (summaries.every((s) => s.status === 'failed')) return 'failed';
  return 'partial';
}

/** One query asked on one platform: its measurement, or a failed row (a retryable failure is also pushed on `retries`). */
async function measureQuery(
  engine: Engine,
  ctx: Ctx,
  platform: TrackerPlatform,
  provider: SearchProvider | AnswerEngine,
  index: number,
  mentions: (t: string) => boolean,
  retries: ProviderError[],
): Promise<QueryMeasurement> {
  const { limits, clock, logger } = engine;
  const { input } = ctx;
  const query = input.queries[index]!;
  const base = { query_index: index, query };
  const options = {
    ...(input.location ? { location: input.location } : {}),
    language: input.language,
    signal: ctx.signal,
    idempotencyKey: ctx.idempotencyKey(String(index)),
  };
  try {
    let measured: Measured;
    if (isAnswerPlatform(platform)) {
      const answer = await limits.answer.add(() => (provider as AnswerEngine).ask(query, platform, options), {
        signal: ctx.signal,
      });
      measured = measureAnswer(answer, input.domain, mentions);
    } else {
      const r = await limits.search.add(
        () => (provider as SearchProvider).search(query, { ...options, platform: 'organic', limit: 10 }),
        { signal: ctx.signal },
      );
      measured = measureOrganic(r.results, input.domain, mentions);
    }
    return { ...base, status: 'complete', ...measured, measured_at: clock.now(), error: null };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    logger.warn({ err, runId: ctx.runId, platform, query }, 'tracker query failed');
    if (err instanceof ProviderError && err.retryable) retries.push(err);
    return {
      ...base,
      status: 'failed',
      position: null,
      brand_mentioned: false,
      brand_cited: false,
      cited_urls: [],
      measured_at: clock.now(),
      error: failure(err),
    };
  }
}

/** A platform whose provider is gone since the scan was accepted: every query failed, measured nothing. */
function unmeasured(platform: TrackerPlatform, input: ScanInput, now: number): PlatformOutput {
  const error = `no provider is configured for ${platform}`;
  return {
    platform,
    provider: null,
    results: input.queries.map((query, i) => ({
      query_index: i,
      query,
      status: 'failed',
      position: null,
      brand_mentioned: false,
      brand_cited: false,
      cited_urls: [],
      measured_at: now,
      error,
    })),
  };
}

/** Measures one platform's queries, or throws a RetryableError to measure it again after a transient failure. */
async function measurePlatform(engine: Engine, ctx: Ctx, platform: TrackerPlatform): Promise<PlatformOutput | null> {
  const { input } = ctx;
  if (!input.platforms.includes(platform)) return null;
  const provider = providerFor(engine, platform);
  // Configured when the scan was accepted, gone now (restart with other settings): measured nothing.
  if (!provider) return unmeasured(platform, input, engine.clock.now());
  const mentions = brandMatcher(input.brand_names, input.domain);
  const retries: ProviderError[] = [];
  const results = await Promise.all(
    input.queries.map((_, i) => measureQuery(engine, ctx, platform, provider, i, mentions, retries)),
  );
  ctx.signal.throwIfAborted();
  // A transient provider failure (rate limit, outage) measures the platform again later, as one retried step,
  // until the last attempt, which records what failed: each query is asked at most AGENT_API_MAX_ATTEMPTS times.
  if (retries.length > 0 && !ctx.lastAttempt) {
    throw new RetryableError(`${platform}: ${retries.length} of ${results.length} queries failed for now`, {
      retryAfterMs: Math.max(0, ...retries.map((e) => e.retryAfterMs ?? 0)),
    });
  }
  return { platform, provider: provider.name, results };
}

/** Writes a measured platform's results and its summary. */
async function persistPlatform(ctx: WriteContext<ScanInput, ScanOutputs>, out: PlatformOutput | null): Promise<void> {
  if (out === null) return;
  const { input } = ctx;
  await putResults(
    ctx.trx,
    out.results.map((r) => ({
      run_id: ctx.resourceId,
      platform: out.platform,
      query_index: r.query_index,
      project_id: input.project_id,
      query: r.query,
      status: r.status,
      position: r.position,
      brand_mentioned: r.brand_mentioned ? 1 : 0,
      brand_cited: r.brand_cited ? 1 : 0,
      cited_urls: JSON.stringify(r.cited_urls),
      measured_at: r.measured_at,
      error: r.error,
    })),
  );
  await putSummary(ctx.trx, summarize(ctx.resourceId, input.project_id, out, ctx.now));
}

/** The step that measures one platform; its results and summary are written when it finishes. */
function platformStep<P extends TrackerPlatform>(
  engine: Engine,
  platform: P,
): StepDef<TrackerStage, ScanInput, ScanOutputs, P> {
  return {
    name: platform,
    stage: 'measuring',
    // Each platform's results and summary are written when its step finishes.
    transient: true,
    run: (ctx: Ctx) => measurePlatform(engine, ctx, platform),
    persist: (ctx, out) => persistPlatform(ctx, out),
  };
}

/** Marks a queued scan running when its first stage begins. */
async function markRunning(ctx: WriteContext<ScanInput, ScanOutputs>) {
  const row = await scanProgress(ctx.trx, ctx.resourceId);
  if (row.status === 'queued')
    await updateScan(ctx.trx, ctx.resourceId, { status: 'running', started_at: row.started_at ?? ctx.now }, ctx.now);
}

/** The last step: the scan's outcome, read from the summaries the platforms wrote. */
const finalizeStep: StepDef<TrackerStage, ScanInput, ScanOutputs, 'finalize'> = {
  name: 'finalize',
  stage: 'finalizing',
  transient: true,
  // Reads only: the summaries were written as each platform finished; onComplete applies the outcome.
  run: async (ctx) => finalizeFrom(ctx.db, ctx.resourceId),
};

/** Applies a finished scan's outcome: its row, each measured platform's latest pointer, and the charge or release. */
async function completeScan(engine: Engine, ctx: WriteContext<ScanInput, ScanOutputs>): Promise<void> {
  const { input } = ctx;
  const out = ctx.output('finalize');
  const failed = out.status === 'failed';
  await updateScan(
    ctx.trx,
    ctx.resourceId,
    {
      status: out.status,
      spi: out.spi,
      platform_scores: JSON.stringify(out.scores),
      error: failed ? `Every platform failed: ${out.errors.join('; ')}` : null,
      completed_at: ctx.now,
    },
    ctx.now,
  );
  if (failed) {
    await engine.usage.release(ctx.trx, TRACKER_SCAN_KIND, ctx.resourceId);
    return;
  }
  for (const [platform, s] of Object.entries(out.scores)) {
    if (s.status !== 'failed')
      await advanceLatest(ctx.trx, input.project_id, platform as TrackerPlatform, ctx.resourceId, s.measured_at);
  }
  await engine.usage.chargeOrDefer(ctx.trx, TRACKER_SCAN_KIND, ctx.resourceId);
}

/**
 * The tracker scan: one step per platform (a crash mid-scan resumes at the next unfinished platform; a re-run
 * platform repeats its provider calls with the same idempotency keys), then `finalize`. Each platform's results and
 * summary are written when its step finishes. The scan is charged once when it ends complete or partial and
 * released when every platform failed or the run could not finish.
 */
export function trackerScanPipeline(engine: Engine): Pipeline {
  return definePipeline<TrackerStage, ScanInput, ScanOutputs>({
    kind: TRACKER_SCAN_KIND,
    steps: [...TRACKER_PLATFORMS.map((p) => platformStep(engine, p)), finalizeStep],
    enterStage: (ctx) => markRunning(ctx),
    onComplete: (ctx) => completeScan(engine, ctx),
    async onFail(ctx, message) {
      await updateScan(ctx.trx, ctx.resourceId, { status: 'failed', error: message, completed_at: ctx.now }, ctx.now);
      await engine.usage.release(ctx.trx, TRACKER_SCAN_KIND, ctx.resourceId);
    },
  });
}
