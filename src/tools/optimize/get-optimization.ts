import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { waitForOptimization } from '../../engine/optimize/service.ts';
import { OptimizationRecord, ViewParam } from './schemas.ts';
import { shortText } from '../common/text.ts';
import { WaitSeconds } from '../common/schemas.ts';

export const getOptimization = defineOperation({
  name: 'get_optimization',
  title: 'Get an optimization',
  description:
    'An optimization in a view. Long-poll with wait_seconds; once complete, score drafts with score_content.',
  family: 'optimize',
  http: { method: 'GET', path: '/optimizations/:optimization_id', status: 200 },
  scope: 'optimize:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    optimization_id: shortText({ max: 64, trim: false }).describe('Optimization id (opt_...).'),
    view: ViewParam.default('summary').describe(
      'status; summary (default): + score, top 5 recommendations; full: + whole result, evidence (large).',
    ),
    wait_seconds: WaitSeconds,
  }),
  output: OptimizationRecord,
  errors: ['validation_error'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) =>
    await waitForOptimization(
      ctx.engine,
      ctx.db,
      ctx.principal.orgId,
      input.optimization_id,
      input.view,
      input.wait_seconds,
      ctx.signal,
    ),
});
