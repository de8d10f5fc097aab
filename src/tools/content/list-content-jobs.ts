import { z } from 'zod';
import { listJobs } from '../../engine/content/service.ts';
import { jobRow } from '../../engine/content/views.ts';
import { CONTENT_MODES, CONTENT_STATUS_VALUES } from '../../engine/content/states.ts';
import { defineOperation } from '../define.ts';
import { ClientFilter, listOf, pageOf, PaginationInput } from '../common/schemas.ts';
import { ContentJobRowView, LIST_KINDS } from './schemas.ts';

/** The status filter: every status of the content state table. */
export const JOB_STATUSES = CONTENT_STATUS_VALUES;

export const listContentJobs = defineOperation({
  name: 'list_content_jobs',
  title: 'List content jobs',
  description: 'Content jobs and Autopilot runs (kind says which), newest first.',
  family: 'copywriter',
  http: { method: 'GET', path: '/copywriter/jobs', status: 200 },
  scope: 'copywriter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    kind: z.enum(LIST_KINDS).optional().describe('content_job or autopilot; default both.'),
    client_id: ClientFilter,
    status: z
      .enum(JOB_STATUSES)
      .optional()
      .describe(
        'queued, researching, brief_ready (awaiting approval), generating_draft, completed, failed, draft (web app, not started).',
      ),
    mode: z.enum(CONTENT_MODES).optional().describe('auto or stepped (jobs only).'),
    ...PaginationInput,
  }),
  output: listOf(ContentJobRowView),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { rows, total } = await listJobs(
      ctx.db,
      ctx.principal.orgId,
      {
        kind: input.kind === undefined ? undefined : input.kind === 'content_job' ? 'job' : 'autopilot',
        clientId: input.client_id,
        status: input.status,
        mode: input.mode,
      },
      input,
    );
    return pageOf(rows.map(jobRow), input, total);
  },
});
