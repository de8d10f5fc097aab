import { z } from 'zod';
import { jobDetail } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { waitForContent } from '../../engine/content/follow.ts';
import { ContentJobDetail, WaitSeconds } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const getContentJob = defineOperation({
  name: 'get_content_job',
  title: 'Get a content job',
  description:
    'A job or Autopilot run: status, progress, request, error. Long-poll with wait_seconds; completed: get_content_artifacts.',
  family: 'copywriter',
  http: { method: 'GET', path: '/copywriter/jobs/:job_id', status: 200 },
  scope: 'copywriter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    job_id: shortText({ max: 64, trim: false }).describe('Job or Autopilot run id.'),
    wait_seconds: WaitSeconds,
  }),
  output: ContentJobDetail,
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) =>
    jobDetail(
      await waitForContent(ctx.engine, ctx.db, ctx.principal.orgId, input.job_id, input.wait_seconds, ctx.signal),
    ),
});
