import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { scoreContent as score } from '../../engine/optimize/score-content.ts';
import { SCORE_VIEWS } from '../../engine/optimize/score-view.ts';
import { SUMMARY_RECOMMENDATIONS } from '../../engine/optimize/contract.ts';
import { longText, shortText } from '../common/text.ts';
import { ScoreAnswer } from './schemas.ts';

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
  output: ScoreAnswer,
  errors: ['validation_error', 'plan_required', 'invalid_state', 'not_found', 'payload_too_large'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { optimization_id: id, view, ...content } = input;
    return score(ctx.engine, ctx.db, ctx.principal.orgId, id, content, view);
  },
});
