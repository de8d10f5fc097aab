import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { ClientFilter, Pagination, PaginationInput, Timestamp } from '../common/schemas.ts';
import { readSummary } from '../../engine/tracker/summaries.ts';
import { Coverage, Overall, Platform, ResultStatus, ScanStatus } from './schemas.ts';

export const getTrackerSummary = defineOperation({
  name: 'get_tracker_summary',
  title: 'Get tracker summary',
  description: 'Tracker scorecards, newest first: SPI per project and platform with denominators, and pooled.',
  family: 'tracker',
  http: { method: 'GET', path: '/reporter/summary', status: 200 },
  scope: 'reporter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({ client_id: ClientFilter, ...PaginationInput }),
  output: z.object({
    scope: z.enum(['organisation', 'client']),
    client_id: z.string().nullable(),
    snapshot: z.object({ method: z.literal('latest_per_platform') }),
    overall: z.object({
      spi: z.number().nullable(),
      denominators: z.object({
        pairs_measured: z.number().int(),
        pairs_present: z.number().int(),
        projects_measured: z.number().int(),
      }),
    }),
    data: z.array(
      Overall.extend({
        project_id: z.string(),
        client_id: z.string(),
        name: z.string(),
        domain: z.string(),
        platforms: z.partialRecord(
          Platform,
          z.object({
            spi: z.number().nullable(),
            status: ResultStatus,
            source_run_id: z.string(),
            run_status: ScanStatus,
            measured_at: Timestamp,
          }),
        ),
        coverage: Coverage,
        latest_run_id: z.string().nullable(),
        run_status: ScanStatus.nullable(),
        last_measured_at: Timestamp.nullable(),
      }),
    ),
    pagination: Pagination,
  }),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => readSummary(ctx.engine, ctx.db, ctx.principal.orgId, input.client_id, input),
});
