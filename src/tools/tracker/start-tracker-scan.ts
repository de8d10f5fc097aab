import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { readScan, startScan } from '../../engine/tracker/service.ts';
import { ProjectIdParam, ScanRecord } from './schemas.ts';

export const startTrackerScan = defineOperation({
  name: 'start_tracker_scan',
  title: 'Start a tracker scan',
  description:
    "Measure a project's queries on its platforms (1 unit per query and platform). 202; poll get_tracker_project.",
  family: 'tracker',
  http: { method: 'POST', path: '/reporter/projects/:project_id/scans', status: 202 },
  scope: 'reporter:run',
  subscription: 'subscription_required',
  idempotency: 'optional',
  input: z.strictObject({ project_id: ProjectIdParam }),
  output: ScanRecord,
  errors: [
    'invalid_input',
    'subscription_required',
    'usage_limit_reached',
    'invalid_state',
    'idempotency_key_reused',
    'idempotency_key_in_use',
  ],
  // Not idempotent without a key: each call starts another scan.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (ctx, input) => {
    const scan = await startScan(ctx.engine, ctx.db, ctx.principal, input.project_id);
    ctx.afterCommit(() => ctx.engine.runner.notify());
    return { status: 202, body: scan, resourceId: scan.run_id };
  },
  replay: async (ctx, stored) => readScan(ctx.db, stored.resourceId!),
});
