import { z } from 'zod';
import { approveBrief } from '../../engine/content/service.ts';
import { jobDetail } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { ContentJobDetail } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const approveContentBrief = defineOperation({
  name: 'approve_content_brief',
  title: 'Approve a brief',
  description:
    'Approve the brief of a stepped content job at brief_ready: the job moves to generating_draft and the draft is written. 409 invalid_state otherwise.',
  family: 'copywriter',
  http: { method: 'POST', path: '/copywriter/jobs/:job_id/approve', status: 200 },
  scope: 'copywriter:run',
  subscription: 'plan_required',
  idempotency: 'none',
  input: z.strictObject({ job_id: shortText({ max: 64, trim: false }) }),
  output: ContentJobDetail,
  errors: ['invalid_input', 'plan_required', 'invalid_state'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (ctx, input) => {
    const row = await approveBrief(ctx.engine, ctx.db, ctx.principal.orgId, input.job_id);
    ctx.afterCommit(() => ctx.engine.runner.notify());
    return jobDetail(row);
  },
});
