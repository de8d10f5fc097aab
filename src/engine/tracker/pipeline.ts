import { ApiError } from '../../errors.ts';
import { ProviderError, type AnswerEngine, type SearchProvider } from '../../providers/types.ts';
import type { Db } from '../../store/db.ts';
import type { TrackerScanStatus } from '../../store/schema.ts';
import {
  advanceLatest,
  putResults,
  putSummary,
  summariesOf,
  TRACKER_SCAN_KIND,
  updateScan,
  type TrackerSummaryRow,
} from '../../store/repos/tracker.ts';
import type { Engine } from '../engine.ts';
import type { HookContext, Pipeline, Step, StepContext } from '../runner/types.ts';
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

const FINALIZE = 'finalize';

/** The provider that serves a platform now, or null (missing coverage, never a zero). */
export function providerFor(engine: Engine, platform: TrackerPlatform): SearchProvider | AnswerEngine | null {
  if (isAnswerPlatform(platform)) return engine.providers.answerEngines[platform] ?? null;
  try {
    return engine.providers.researchProvider('organic');
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}

/** The platforms among `platforms` that have a configured provider now. */
export function configuredPlatforms(engine: Engine, platforms: readonly TrackerPlatform[]): TrackerPlatform[] {
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

/** A scan's status from its platforms: all complete → complete, all failed → failed, otherwise partial. */
export function scanStatus(summaries: ReadonlyArray<{ status: string }>): TrackerScanStatus {
  if (summaries.length === 0) return 'failed';
  if (summaries.every((s) => s.status === 'complete')) return 'complete';
  if (summaries.every((s) => s.status === 'failed')) return 'failed';
  return 'partial';
}

/**
 * The tracker scan: one step per platform (a crash mid-scan resumes at the next unfinished platform; a re-run
 * platform repeats its provider calls with the same idempotency keys), then `finalize`. Each platform's results and
 * summary are written when its step finishes. The scan is charged once when it ends complete or partial and
 * released when every platform failed or the run could not finish.
 */
export function trackerScanPipeline(engine: Engine): Pipeline {
  const { limits, clock, logger } = engine;

  async function measureOne(
    ctx: StepContext,
    input: ScanInput,
    platform: TrackerPlatform,
    provider: SearchProvider | AnswerEngine,
    index: number,
    mentions: (t: string) => boolean,
  ): Promise<QueryMeasurement> {
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

  function platformStep(platform: TrackerPlatform): Step {
    return {
      name: platform,
      async run(ctx): Promise<PlatformOutput | null> {
        const input = ctx.checkpoint.input as ScanInput;
        if (!input.platforms.includes(platform)) return null;
        const provider = providerFor(engine, platform);
        if (!provider) {
          // Configured when the scan was accepted, gone now (restart with other settings): measured nothing.
          const now = clock.now();
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
        const mentions = brandMatcher(input.brand_names, input.domain);
        const results = await Promise.all(
          input.queries.map((_, i) => measureOne(ctx, input, platform, provider, i, mentions)),
        );
        ctx.signal.throwIfAborted();
        return { platform, provider: provider.name, results };
      },
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

  async function markRunning(ctx: HookContext) {
    const row = await ctx.trx
      .selectFrom('tracker_scans')
      .select(['status', 'started_at'])
      .where('id', '=', ctx.resourceId)
      .executeTakeFirstOrThrow();
    if (row.status === 'queued')
      await updateScan(ctx.trx, ctx.resourceId, { status: 'running', started_at: row.started_at ?? ctx.now }, ctx.now);
  }

  return {
    kind: TRACKER_SCAN_KIND,
    steps: [
      ...TRACKER_PLATFORMS.map(platformStep),
      {
        name: FINALIZE,
        // Reads only: the summaries were written as each platform finished; onComplete applies the outcome.
        run: async (ctx) => finalizeFrom(ctx.db, ctx.resourceId),
      },
    ],
    async beforeStep(ctx) {
      await markRunning(ctx);
    },
    async afterStep(ctx, step, _index, output) {
      if (step.name === FINALIZE || output === null || output === undefined) return;
      const out = output as PlatformOutput;
      const input = ctx.checkpoint.input as ScanInput;
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
    },
    async onComplete(ctx) {
      const input = ctx.checkpoint.input as ScanInput;
      const out = ctx.checkpoint[FINALIZE] as Awaited<ReturnType<typeof finalizeFrom>>;
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
    },
    async onFail(ctx, message) {
      await updateScan(ctx.trx, ctx.resourceId, { status: 'failed', error: message, completed_at: ctx.now }, ctx.now);
      await engine.usage.release(ctx.trx, TRACKER_SCAN_KIND, ctx.resourceId);
    },
  };
}
