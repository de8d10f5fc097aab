import { acceptContent, readContentJob } from '../../engine/content/service.ts';
import { jobCreated } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { followContent } from '../../engine/content/follow.ts';
import { jobRequest, platformErrors, urlErrors } from './request.ts';
import { ContentJobCreated, CreateContentJobInput } from './schemas.ts';

export const createContentJob = defineOperation({
  name: 'create_content_job',
  title: 'Create a content job',
  description:
    "Research a topic for a client, write a brief (outline, SEO metadata, entities, FAQs) and a draft in the client's voice. mode auto runs straight through; mode stepped pauses at brief_ready until approve_content_brief, which can edit the brief or take a draft you wrote (draft_body) to score and fact-check. With the offline writer (writer: extractive) the draft is a quoted research draft: its sentences are quoted from the listed sources; rewrite it before publishing. Research keeps only pages about the topic; with fewer than 2 the job fails with error_code insufficient_research and nothing is charged. Answers 201 with the queued job (200 with the existing job for a repeated idempotency key); poll get_content_job, read get_content_artifacts.",
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
    const row = await followContent(ctx.engine, ctx.db, ctx.principal.orgId, body.job_id, ctx.progress, ctx.signal);
    return jobCreated(row);
  },
});
