import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { readProject } from '../../engine/tracker/service.ts';
import { Coverage, Overall, PlatformMeasurement, ProjectIdParam, ProjectRecord, ScanRecord } from './schemas.ts';

export const getTrackerProject = defineOperation({
  name: 'get_tracker_project',
  title: 'Get a tracker project',
  description:
    "A project's settings, queries, SPI (Search Presence Index, 0-100) per platform and overall, latest_run (poll after a scan).",
  family: 'tracker',
  http: { method: 'GET', path: '/reporter/projects/:project_id', status: 200 },
  scope: 'reporter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({ project_id: ProjectIdParam }),
  output: ProjectRecord.extend({
    spi: z.object({
      method: z.literal('latest_per_platform'),
      overall: Overall,
      platforms: z.array(PlatformMeasurement),
      coverage: Coverage,
    }),
    latest_run: ScanRecord.nullable(),
  }),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => readProject(ctx.engine, ctx.db, ctx.principal.orgId, input.project_id),
});
