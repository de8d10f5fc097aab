import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { scoreContent as score } from '../../engine/optimize/score-content.ts';
import { longText, shortText } from '../common/text.ts';
import { OptimizationResult, Recommendation } from './schemas.ts';

/** The largest draft accepted, in characters (the request body is capped at 1 MiB as well). */
const MAX_CONTENT = 1_000_000;

export const scoreContent = defineOperation({
  name: 'score_content',
  title: 'Score draft content',
  description:
    "Score a draft against a complete optimization's competitors (free). Loop: start_optimization, rewrite per recommendations, score_content.",
  family: 'optimize',
  http: { method: 'POST', path: '/optimizations/:optimization_id/score', status: 200 },
  scope: 'optimize:run',
  subscription: 'plan_required',
  idempotency: 'none',
  input: z.strictObject({
    optimization_id: shortText({ max: 64, trim: false }).describe('Optimization id (opt_..., complete).'),
    content: longText({ max: MAX_CONTENT }).describe('The draft to score.'),
    format: z
      .enum(['html', 'markdown', 'text'])
      .describe('html (page or fragment), markdown, or text (paragraphs at blank lines).'),
    title: shortText({ max: 300 }).optional().describe("Title tag (overrides an HTML page's own)."),
    meta_description: longText({ max: 1000 }).optional().describe('Meta description.'),
  }),
  output: z.object({
    optimization_id: z.string(),
    rankabilityScore: OptimizationResult.shape.rankabilityScore,
    categoryScores: OptimizationResult.shape.categoryScores,
    scoreDetails: OptimizationResult.shape.scoreDetails,
    recommendations: z.array(Recommendation),
    entities: OptimizationResult.shape.entities,
    sourceWordCount: z.number().int(),
    competitorCount: z.number().int(),
    scoringVersion: z.string(),
  }),
  errors: ['validation_error', 'plan_required', 'invalid_state', 'not_found', 'payload_too_large'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { optimization_id: id, ...content } = input;
    return score(ctx.engine, ctx.db, ctx.principal.orgId, id, content);
  },
});
