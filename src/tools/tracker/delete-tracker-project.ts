import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { shortText } from '../common/text.ts';
import { deleteTrackerProject as remove } from '../../engine/tracker/projects.ts';
import { ProjectIdParam } from './schemas.ts';

export const deleteTrackerProject = defineOperation({
  name: 'delete_tracker_project',
  title: 'Delete a tracker project',
  description:
    'Delete a project, its scans and results; confirm with its exact name (else 409). Refused while a scan runs.',
  family: 'tracker',
  http: { method: 'DELETE', path: '/reporter/projects/:project_id', status: 200 },
  scope: 'reporter:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    project_id: ProjectIdParam,
    name: shortText({ max: 200, trim: false }).describe('Exact current name, to confirm.'),
  }),
  output: z.object({
    deleted: z.literal(true),
    project_id: z.string(),
    name: z.string(),
    scans_deleted: z.number().int(),
    results_deleted: z.number().int().describe('Per-query results of those scans.'),
    summaries_deleted: z.number().int().describe('Per-platform summaries of those scans.'),
  }),
  errors: [
    'invalid_input',
    'confirmation_mismatch',
    'invalid_state',
    'idempotency_key_required',
    'idempotency_key_reused',
    'idempotency_key_in_use',
  ],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { deleted } = await remove(ctx.db, ctx.principal.orgId, input.project_id, { name: input.name });
    const body = {
      deleted: true as const,
      project_id: input.project_id,
      name: input.name,
      scans_deleted: deleted.scans,
      results_deleted: deleted.results,
      summaries_deleted: deleted.summaries,
    };
    return { status: 200, body, resourceId: input.project_id };
  },
});
