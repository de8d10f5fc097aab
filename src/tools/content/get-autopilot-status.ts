import { z } from 'zod';
import { readArtifacts } from '../../engine/content/service.ts';
import { autopilotStatus } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { waitForContent } from '../../engine/content/follow.ts';
import { AutopilotStatus, WaitSeconds } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const getAutopilotStatus = defineOperation({
  name: 'get_autopilot_status',
  title: 'Poll Autopilot',
  description:
    "An Autopilot run's stage, passes, billing, error, review. Long-poll with wait_seconds; then get_content_artifacts.",
  family: 'autopilot',
  http: { method: 'GET', path: '/copywriter/autopilot/:job_id', status: 200 },
  scope: 'copywriter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    job_id: shortText({ max: 64, trim: false }).describe('Autopilot run id.'),
    wait_seconds: WaitSeconds,
  }),
  output: AutopilotStatus,
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const row = await waitForContent(
      ctx.engine,
      ctx.db,
      ctx.principal.orgId,
      input.job_id,
      input.wait_seconds,
      ctx.signal,
      'autopilot',
    );
    return autopilotStatus(row, await readArtifacts(ctx.db, row)) as z.input<typeof AutopilotStatus>;
  },
});
