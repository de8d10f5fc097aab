import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { MAX_TREND_DAYS, readTrends } from '../../engine/tracker/trends.ts';
import { ProjectIdParam, TrendsRecord } from './schemas.ts';

export const getTrackerTrends = defineOperation({
  name: 'get_tracker_trends',
  title: 'Get tracker trends',
  description: "A project's daily SPI (UTC) over `days`; days without a successful run are gaps (spi null), not zeros.",
  family: 'tracker',
  http: { method: 'GET', path: '/reporter/projects/:project_id/trends', status: 200 },
  scope: 'reporter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    project_id: ProjectIdParam,
    days: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_TREND_DAYS)
      .default(30)
      .describe(`Days of history, 1-${MAX_TREND_DAYS} (default 30).`),
  }),
  output: TrendsRecord,
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => readTrends(ctx.engine, ctx.db, ctx.principal.orgId, input.project_id, input.days),
});
