import { z } from 'zod';
import { readJobWithArtifacts } from '../../engine/content/service.ts';
import { artifactsView } from '../../engine/content/views.ts';
import { DOCUMENT_MEDIA_TYPES, shapeArtifacts } from '../../engine/content/artifacts-view.ts';
import { defineOperation } from '../define.ts';
import { ArtifactsAnswer, Format, Include } from './artifacts-schema.ts';
import { shortText } from '../common/text.ts';

export const getContentArtifacts = defineOperation({
  name: 'get_content_artifacts',
  title: 'Get content artifacts',
  description:
    "The outputs of a content job or Autopilot run: outline, SEO metadata, entities, FAQs, draft (markdown; each sentence ends with its source marker [n]), citations (each pointing into the draft with `at`, with the source's words only when the claim is not quoted verbatim), sources, review and score. `include` picks parts (default all; job_id, status, writer, notice and sources always come). `format` markdown or html answers the draft as one document with its citations as footnotes. The offline (extractive) writer's draft is a quoted research draft (see `notice`): its sentences are quoted from the sources, so rewrite it in your own words before publishing. Anything not produced yet is null; a stepped job at brief_ready has the brief and no draft.",
  family: 'copywriter',
  http: { method: 'GET', path: '/copywriter/jobs/:job_id/artifacts', status: 200 },
  scope: 'copywriter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    job_id: shortText({ max: 64, trim: false }),
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
  render: {
    mediaTypes: Object.values(DOCUMENT_MEDIA_TYPES),
    document: (body) =>
      'format' in body && (body.format === 'markdown' || body.format === 'html')
        ? { mediaType: DOCUMENT_MEDIA_TYPES[body.format], text: body.content }
        : null,
  },
});
