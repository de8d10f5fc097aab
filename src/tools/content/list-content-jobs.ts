import { z } from 'zod';
import { listJobs } from '../../engine/content/service.ts';
import { jobRow } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { listOf, pageOf, PaginationInput, Uuid } from '../common/schemas.ts';
import { ContentJobRowView } from './schemas.ts';

export const JOB_STATUSES = [
  'draft',
  'queued',
  'researching',
  'brief_ready',
  'generating_draft',
  'completed',
  'failed',
] as const;

export const listContentJobs = defineOperation({
  name: 'list_content_jobs',
  title: 'List content jobs',
  description: "The organisation's content jobs, newest first; filter by client, status or mode.",
  family: 'copywriter',
  http: { method: 'GET', path: '/copywriter/jobs', status: 200 },
  scope: 'copywriter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    client_id: Uuid.optional(),
    status: z.enum(JOB_STATUSES).optional(),
    mode: z.enum(['auto', 'stepped']).optional(),
    ...PaginationInput,
  }),
  output: listOf(ContentJobRowView),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { rows, total } = await listJobs(
      ctx.db,
      ctx.principal.orgId,
      { kind: 'job', clientId: input.client_id, status: input.status, mode: input.mode },
      input,
    );
    return pageOf(rows.map(jobRow), input, total);
  },
});
