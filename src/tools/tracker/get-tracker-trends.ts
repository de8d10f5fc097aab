import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { MAX_TREND_DAYS, readTrends } from '../../engine/tracker/trends.ts';
import { Platform, ProjectIdParam, ScanStatus } from './schemas.ts';

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
  output: z.object({
    project_id: z.string(),
    days: z.number().int(),
    from: z.string().describe('First day (YYYY-MM-DD, UTC).'),
    to: z.string().describe('Last day: today (UTC).'),
    timezone: z.literal('UTC'),
    method: z.string(),
    platforms_expected: z.array(Platform),
    points: z.array(
      z.object({
        date: z.string(),
        run_status: ScanStatus.nullable().describe(
          'Status of the run the point comes from; failed when only failed runs finished that day; null when none did.',
        ),
        run_id: z.string().nullable(),
        spi: z.number().nullable().describe('Null: no successful run that day (a gap, not a zero).'),
        platforms: z
          .partialRecord(Platform, z.number())
          .describe('SPI per platform measured that day; absent platforms have no data.'),
        runs: z.number().int().describe('Runs finished that day.'),
      }),
    ),
  }),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => readTrends(ctx.engine, ctx.db, ctx.principal.orgId, input.project_id, input.days),
});
