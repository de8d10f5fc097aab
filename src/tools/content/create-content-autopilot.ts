import { acceptContent, readContentJob } from '../../engine/content/service.ts';
import { autopilotStarted } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { followContent } from '../../engine/content/follow.ts';
import { autopilotRequest, platformErrors } from './request.ts';
import { AutopilotStarted, CreateAutopilotInput } from './schemas.ts';

export const createContentAutopilot = defineOperation({
  name: 'create_content_autopilot',
  title: 'Start Autopilot',
  description:
    'Hands-off research, brief, draft, optimization and review (autopilot usage). Poll get_autopilot_status.',
  family: 'autopilot',
  http: { method: 'POST', path: '/copywriter/autopilot', status: 202 },
  scope: 'copywriter:run',
  subscription: 'subscription_required',
  idempotency: 'optional',
  input: CreateAutopilotInput,
  output: AutopilotStarted,
  errors: [
    'invalid_input',
    'subscription_required',
    'location_conflict',
    'usage_limit_reached',
    'service_unavailable',
    'idempotency_key_reused',
  ],
  task: { kind: 'autopilot', idOf: (body) => body.job_id },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  validate: (ctx, input) => platformErrors(ctx.engine, input.research_platforms),
  handler: async (ctx, input) => {
    const row = await acceptContent(ctx.engine, ctx.db, ctx.principal, {
      kind: 'autopilot',
      clientId: input.client_id,
      request: (client) => autopilotRequest(input, client),
      mode: null,
      location: {
        location: input.location ?? null,
        lat: input.location_lat ?? null,
        lng: input.location_lng ?? null,
        allowConflict: input.allow_location_conflict,
      },
    });
    ctx.afterCommit(() => ctx.engine.runner.notify());
    return { status: 202, body: autopilotStarted(row), resourceId: row.id };
  },
  replay: async (ctx, stored) =>
    autopilotStarted(await readContentJob(ctx.db, ctx.principal.orgId, stored.resourceId!)),
  follow: async (ctx, body) => autopilotStarted(await followContent(ctx, body.job_id, body.status)),
});
