import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { waitForOptimization } from '../../engine/optimize/service.ts';
import { OptimizationRecord, ViewParam, type OptimizationRecordData } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const getOptimization = defineOperation({
  name: 'get_optimization',
  title: 'Get an optimization',
  description:
    'Read an optimization: view=status while queued or running, summary after completion (the default), full for the complete result and evidence (read it once). wait_seconds (0-30) long-polls until the status changes.',
  family: 'optimize',
  http: { method: 'GET', path: '/optimizations/:optimization_id', status: 200 },
  scope: 'optimize:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    optimization_id: shortText({ max: 64, trim: false }),
    view: ViewParam.default('summary'),
    wait_seconds: z.coerce
      .number()
      .int()
      .min(0)
      .max(30)
      .default(0)
      .describe('Wait up to this many seconds for the status to change.'),
  }),
  output: OptimizationRecord,
  errors: ['validation_error'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) =>
    (await waitForOptimization(
      ctx.engine,
      ctx.db,
      ctx.principal.orgId,
      input.optimization_id,
      input.view,
      input.wait_seconds,
      ctx.signal,
    )) as OptimizationRecordData,
});
