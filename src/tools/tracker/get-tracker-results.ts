import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { readResults } from '../../engine/tracker/snapshot.ts';
import {
  Coverage,
  Overall,
  Platform,
  PlatformMeasurement,
  ProjectIdParam,
  QueryResult,
  ScanStatus,
  SnapshotMethod,
} from './schemas.ts';

export const getTrackerResults = defineOperation({
  name: 'get_tracker_results',
  title: 'Get tracker results',
  description: 'Per-query results by platform; platforms without data are in coverage.missing, never zero.',
  family: 'tracker',
  http: { method: 'GET', path: '/reporter/projects/:project_id/results', status: 200 },
  scope: 'reporter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    project_id: ProjectIdParam,
    snapshot: SnapshotMethod.default('latest_per_platform').describe(
      "latest_per_platform (default): each platform's newest result; latest_run: the last run.",
    ),
    platform: Platform.optional().describe('organic, chatgpt, perplexity, claude or google_ai_overview.'),
  }),
  output: z.object({
    project_id: z.string(),
    snapshot: z.object({ method: SnapshotMethod, description: z.string() }),
    latest_run_id: z.string().nullable().describe('The most recently finished run (any status).'),
    run_status: ScanStatus.nullable().describe('Status of latest_run_id.'),
    spi: Overall,
    coverage: Coverage,
    platforms: z.array(PlatformMeasurement.extend({ results: z.array(QueryResult) })),
  }),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) =>
    readResults(ctx.engine, ctx.db, ctx.principal.orgId, input.project_id, input.snapshot, input.platform),
});
