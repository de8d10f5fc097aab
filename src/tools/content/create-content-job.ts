import { acceptContent, readContentJob } from '../../engine/content/service.ts';
import { jobCreated } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { followContent } from '../../engine/content/follow.ts';
import { jobRequest, platformErrors, urlErrors } from './request.ts';
import { ContentJobCreated, CreateContentJobInput } from './schemas.ts';

export const createContentJob = defineOperation({
  name: 'create_content_job',
  title: 'Create a content job',
  description: 'Research a topic, write a brief and draft (content_job usage). Poll get_content_job.',
  family: 'copywriter',
  http: { method: 'POST', path: '/copywriter/jobs', status: 201, replayStatus: 200 },
  scope: 'copywriter:run',
  subscription: 'plan_required',
  idempotency: 'optional',
  input: CreateContentJobInput,
  output: ContentJobCreated,
  errors: ['invalid_input', 'plan_required', 'usage_limit_reached', 'service_unavailable', 'idempotency_key_reused'],
  task: { kind: 'content_job', idOf: (body) => body.job_id },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  validate: (ctx, input) => [
    ...urlErrors(ctx, 'source_url', input.source_url),
    ...platformErrors(ctx.engine, input.research_platforms),
  ],
  handler: async (ctx, input) => {
    const row = await acceptContent(ctx.engine, ctx.db, ctx.principal, {
      kind: 'job',
      clientId: input.client_id,
      request: (client) => jobRequest(input, client),
      mode: input.mode,
    });
    ctx.afterCommit(() => ctx.engine.runner.notify());
    return { status: 201, body: jobCreated(row), resourceId: row.id };
  },
  replay: async (ctx, stored) => jobCreated(await readContentJob(ctx.db, ctx.principal.orgId, stored.resourceId!)),
  follow: async (ctx, body) => {
    const row = await followContent(ctx, body.job_id, body.status);
    return jobCreated(row);
  },
});
