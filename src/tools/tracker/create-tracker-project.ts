import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { ClientId } from '../common/schemas.ts';
import { createTrackerProject as create } from '../../engine/tracker/projects.ts';
import { projectView } from '../../engine/tracker/views.ts';
import { ProjectRecord } from './schemas.ts';
import { projectFields } from './project-fields.ts';

export const createTrackerProject = defineOperation({
  name: 'create_tracker_project',
  title: 'Create a tracker project',
  description: 'Create a tracker project for a client (201); nothing is measured or charged until start_tracker_scan.',
  family: 'tracker',
  http: { method: 'POST', path: '/reporter/projects', status: 201 },
  scope: 'reporter:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    client_id: ClientId,
    name: projectFields.name,
    domain: projectFields.domain,
    query_kind: projectFields.query_kind
      .default('keywords')
      .describe(`${projectFields.query_kind.description} Default keywords.`),
    queries: projectFields.queries,
    brand_names: projectFields.brand_names.optional(),
    platforms: projectFields.platforms
      .default(['organic'])
      .describe(`${projectFields.platforms.description} Default organic.`),
    location: projectFields.location.default(null),
    language: projectFields.language.default('en').describe(`${projectFields.language.description} Default en.`),
  }),
  output: ProjectRecord,
  errors: ['invalid_input', 'idempotency_key_required', 'idempotency_key_reused', 'idempotency_key_in_use'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const row = await create(
      ctx.db,
      ctx.principal.orgId,
      {
        clientId: input.client_id,
        name: input.name,
        domain: input.domain,
        queries: input.queries,
        queryKind: input.query_kind,
        brandNames: input.brand_names,
        platforms: input.platforms,
        location: input.location,
        language: input.language,
      },
      ctx.engine.clock.now(),
    );
    return { status: 201, body: projectView(row, true), resourceId: row.id };
  },
});
