import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { UsageImpact } from '../common/schemas.ts';
import { BASE_UNITS, METERED_OPERATIONS } from '../../engine/platform/usage.ts';

export const estimateUsage = defineOperation({
  name: 'estimate_usage',
  title: 'Estimate usage',
  description: 'Units an operation would reserve, its pool impact, whether it would be refused now.',
  family: 'usage',
  http: { method: 'GET', path: '/usage/estimate', status: 200 },
  scope: null,
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    operation: z
      .enum(METERED_OPERATIONS)
      .describe('content_job, autopilot, optimize_page or tracker_scan (one query, one platform).'),
  }),
  output: z.object({
    operation: z.enum(METERED_OPERATIONS),
    units: z.number().int(),
    usage_impact: UsageImpact,
    would_exceed: z.boolean(),
  }),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => ({
    operation: input.operation,
    ...(await ctx.engine.usage.estimate(ctx.db, ctx.principal.orgId, ctx.principal.plan, BASE_UNITS[input.operation])),
  }),
});
