import { iso } from '../../clock.ts';
import type { OptimizationStage } from '../../store/schema.ts';
import { OPTIMIZATION_KIND, optimizationStartedAt, updateOptimization } from '../../store/repos/optimizations.ts';
import type { Engine } from '../engine.ts';
import { definePipeline, type Pipeline } from '../runner/types.ts';
import type { OptimizationInput, OptimizationOutputs } from './pipeline-types.ts';
import { fetchPages } from './fetch-step.ts';
import { scorePageStep } from './score-step.ts';

export type { OptimizationInput } from './pipeline-types.ts';

/** Recommendations the summary view carries. */
export const SUMMARY_RECOMMENDATIONS = 5;

/** The optimization pipeline: search the keyword, fetch the page and its competitors, score. */
export function optimizationPipeline(engine: Engine): Pipeline {
  const { providers, limits } = engine;
  return definePipeline<OptimizationStage, OptimizationInput, OptimizationOutputs>({
    kind: OPTIMIZATION_KIND,
    steps: [
      {
        name: 'search',
        stage: 'searching',
        transient: true,
        async run(ctx) {
          const { input } = ctx;
          if (input.competitorUrls?.length) {
            // The caller's candidates replace the search: no provider is asked.
            return {
              provider: 'competitor_urls',
              query: input.keyword,
              language: input.language,
              fetchedAt: iso(engine.clock.now()),
              results: input.competitorUrls.map((url, i) => ({ position: i + 1, url, title: '', snippet: '' })),
            };
          }
          const provider = providers.researchProvider('organic');
          const r = await limits.search.add(() =>
            provider.search(input.keyword, {
              platform: 'organic',
              language: input.language,
              limit: 10,
              signal: ctx.signal,
              idempotencyKey: ctx.idempotencyKey(),
            }),
          );
          return {
            provider: r.provider,
            query: input.keyword,
            language: input.language,
            fetchedAt: r.fetchedAt,
            results: r.results.slice(0, 10),
          };
        },
      },
      {
        name: 'fetch',
        stage: 'fetching',
        transient: true,
        run: (ctx) => fetchPages(engine, ctx),
      },
      {
        name: 'score',
        stage: 'scoring',
        // onComplete writes the result and evidence to the optimization row.
        transient: true,
        run: async (ctx) => scorePageStep(engine, ctx),
      },
    ],
    async enterStage(ctx, stage) {
      const startedAt = await optimizationStartedAt(ctx.trx, ctx.resourceId);
      await updateOptimization(
        ctx.trx,
        ctx.resourceId,
        { status: 'running', stage, started_at: startedAt ?? ctx.now },
        ctx.now,
      );
    },
    async onComplete(ctx) {
      const out = ctx.output('score');
      const duration = ctx.now - ((await optimizationStartedAt(ctx.trx, ctx.resourceId)) ?? ctx.now);
      await updateOptimization(
        ctx.trx,
        ctx.resourceId,
        {
          status: 'complete',
          stage: null,
          completed_at: ctx.now,
          score: out.result.rankabilityScore,
          source_word_count: out.result.sourceWordCount,
          competitor_count: out.result.competitorCount,
          duration_ms: duration,
          result: JSON.stringify({ ...out.result, duration }),
          evidence: JSON.stringify({ ...out.evidence, completedAt: iso(ctx.now) }),
          scoring_model: JSON.stringify(out.model),
          summary_extras: JSON.stringify({
            recommendations: out.result.recommendations.slice(0, SUMMARY_RECOMMENDATIONS),
            confidence: out.result.confidence,
            warnings: out.result.warnings,
          }),
        },
        ctx.now,
      );
      await engine.usage.chargeOrDefer(ctx.trx, OPTIMIZATION_KIND, ctx.resourceId);
    },
    async onFail(ctx, message) {
      await updateOptimization(
        ctx.trx,
        ctx.resourceId,
        { status: 'failed', stage: null, error: message, completed_at: ctx.now },
        ctx.now,
      );
      await engine.usage.release(ctx.trx, OPTIMIZATION_KIND, ctx.resourceId);
    },
  });
}
