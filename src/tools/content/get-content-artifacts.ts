import { z } from 'zod';
import { readJobWithArtifacts } from '../../engine/content/service.ts';
import { artifactsView } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { Artifacts } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const getContentArtifacts = defineOperation({
  name: 'get_content_artifacts',
  title: 'Get content artifacts',
  description:
    'The outputs of a content job or Autopilot run: outline, SEO metadata, entities, FAQs, draft (markdown, every sentence with its source), citations, sources and (Autopilot) review. Anything not produced yet is null; a stepped job at brief_ready has the brief and no draft.',
  family: 'copywriter',
  http: { method: 'GET', path: '/copywriter/jobs/:job_id/artifacts', status: 200 },
  scope: 'copywriter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({ job_id: shortText({ max: 64, trim: false }) }),
  output: Artifacts,
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { row, artifacts } = await readJobWithArtifacts(ctx.db, ctx.principal.orgId, input.job_id);
    return artifactsView(row, artifacts) as z.input<typeof Artifacts>;
  },
});
