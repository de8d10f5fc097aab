import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { scoreContent as score } from '../../engine/optimize/score-content.ts';
import { SCORE_VIEWS, SUMMARY_RECOMMENDATIONS, SUMMARY_TERMS } from '../../engine/optimize/score-view.ts';
import { longText, shortText } from '../common/text.ts';
import { OptimizationResult, Recommendation, ScoreCheck, TermRow } from './schemas.ts';

/** The largest draft accepted, in characters (the request body is capped at 1 MiB as well). */
const MAX_CONTENT = 1_000_000;

export const scoreContent = defineOperation({
  name: 'score_content',
  title: 'Score draft content',
  description:
    'Score a draft against a complete optimization (free); delta: since its last score. Loop: start_optimization, rewrite, score_content.',
  family: 'optimize',
  http: { method: 'POST', path: '/optimizations/:optimization_id/score', status: 200 },
  scope: 'optimize:run',
  subscription: 'plan_required',
  idempotency: 'none',
  input: z.strictObject({
    optimization_id: shortText({ max: 64, trim: false }).describe('A complete optimization (opt_...).'),
    content: longText({ max: MAX_CONTENT }).describe('The draft.'),
    format: z.enum(['html', 'markdown', 'text']).describe('html (page or fragment), markdown, or text.'),
    title: shortText({ max: 300 }).optional().describe("Title tag (replaces the page's)."),
    meta_description: longText({ max: 1000 }).optional().describe('Meta description.'),
    view: z
      .enum(SCORE_VIEWS)
      .default('summary')
      .describe(
        `summary (default): score, categories, top ${SUMMARY_RECOMMENDATIONS} recommendations, delta since this optimization's last score; full: every check, term and recommendation.`,
      ),
  }),
  output: z.object({
    optimization_id: z.string(),
    rankabilityScore: OptimizationResult.shape.rankabilityScore,
    categoryScores: OptimizationResult.shape.categoryScores,
    scoreDetails: z
      .array(ScoreCheck.partial().required({ id: true, earned: true, possible: true }))
      .describe('Every check; view=summary gives each as {id, earned, possible}.'),
    recommendations: z
      .array(Recommendation)
      .describe(`Most points first: every one (view=full) or the top ${SUMMARY_RECOMMENDATIONS} (view=summary).`),
    recommendationCount: z.number().int().optional().describe('view=summary: how many recommendations there are.'),
    entities: z
      .array(TermRow.partial().required({ term: true, status: true }))
      .describe(`Term rows: every one (view=full), or the ${SUMMARY_TERMS} most important as {term, status}.`),
    sourceWordCount: z.number().int(),
    competitorCount: z.number().int(),
    scoringVersion: z.string(),
    delta: z
      .object({
        since: z.string().describe("When the optimization's previous draft was scored."),
        previousScore: z.number(),
        scoreChange: z.number(),
        categoryChanges: z.record(z.string(), z.number()).describe('Categories whose score moved, by how much.'),
        resolvedCount: z.number().int(),
        resolved: z.array(z.string()).describe('Up to 10 ids of recommendations no longer made.'),
        newCount: z.number().int(),
        new: z.array(z.string()).describe('Up to 10 ids of recommendations made now and not before.'),
      })
      .optional()
      .describe(
        'view=summary, from the second score of an optimization on: what changed since its previous score (by any caller).',
      ),
  }),
  errors: ['validation_error', 'plan_required', 'invalid_state', 'not_found', 'payload_too_large'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { optimization_id: id, view, ...content } = input;
    return score(ctx.engine, ctx.db, ctx.principal.orgId, id, content, view);
  },
});
