import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { ClientFilter, listOf, pageOf, PaginationInput } from '../common/schemas.ts';
import { listProjectViews } from '../../engine/tracker/service.ts';
import { ProjectRecord } from './schemas.ts';

export const listTrackerProjects = defineOperation({
  name: 'list_tracker_projects',
  title: 'List tracker projects',
  description: 'Tracker projects (without queries), newest first.',
  family: 'tracker',
  http: { method: 'GET', path: '/reporter/projects', status: 200 },
  scope: 'reporter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({ client_id: ClientFilter, ...PaginationInput }),
  output: listOf(ProjectRecord),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { rows, total } = await listProjectViews(ctx.engine, ctx.db, ctx.principal.orgId, input.client_id, input);
    return pageOf(rows, input, total);
  },
});
