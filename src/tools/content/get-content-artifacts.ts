import { z } from 'zod';
import { readJobWithArtifacts } from '../../engine/content/service.ts';
import { artifactsView } from '../../engine/content/views.ts';
import { ASSISTANT_INCLUDE, DOCUMENT_MEDIA_TYPES, shapeArtifacts } from '../../engine/content/artifacts-view.ts';
import { defineOperation } from '../define.ts';
import { ArtifactsAnswer, Format, Include } from './artifacts-schema.ts';
import { shortText } from '../common/text.ts';

export const getContentArtifacts = defineOperation({
  name: 'get_content_artifacts',
  title: 'Get content artifacts',
  description:
    "A job's draft (markdown; [n] cites sources) and short brief; include adds the rest. Offline writer: a quoted research draft; rewrite it.",
  family: 'copywriter',
  http: { method: 'GET', path: '/copywriter/jobs/:job_id/artifacts', status: 200 },
  scope: 'copywriter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    job_id: shortText({ max: 64, trim: false }).describe('Job or Autopilot run id.'),
    include: Include,
    format: Format,
  }),
  output: ArtifactsAnswer,
  errors: ['invalid_input', 'invalid_state'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { row, artifacts } = await readJobWithArtifacts(ctx.db, ctx.principal.orgId, input.job_id);
    return shapeArtifacts(artifactsView(row, artifacts), input.format, input.include) as z.input<
      typeof ArtifactsAnswer
    >;
  },
  // An assistant gets the draft and the short brief unless it names parts; REST keeps every part by default.
  mcpDefaults: { include: [...ASSISTANT_INCLUDE] },
  render: {
    mediaTypes: Object.values(DOCUMENT_MEDIA_TYPES),
    document: (body) =>
      'format' in body && (body.format === 'markdown' || body.format === 'html')
        ? { mediaType: DOCUMENT_MEDIA_TYPES[body.format], text: body.content }
        : null,
  },
});
