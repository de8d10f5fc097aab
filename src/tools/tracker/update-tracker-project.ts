import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { somethingToChange } from '../common/schemas.ts';
import { updateTrackerProject as update } from '../../engine/tracker/projects.ts';
import { projectView } from '../../engine/tracker/views.ts';
import { ProjectIdParam, ProjectRecord } from './schemas.ts';
import { projectChanges, projectFields } from './project-fields.ts';

const SETTINGS = Object.keys(projectFields);

export const updateTrackerProject = defineOperation({
  name: 'update_tracker_project',
  title: 'Update a tracker project',
  description: "Change a project's settings: only fields sent (at least one). Default brand names follow a new domain.",
  family: 'tracker',
  http: { method: 'PATCH', path: '/reporter/projects/:project_id', status: 200 },
  scope: 'reporter:write',
  subscription: null,
  idempotency: 'optional',
  input: z.strictObject({
    project_id: ProjectIdParam,
    name: projectFields.name.optional(),
    domain: projectFields.domain.optional(),
    query_kind: projectFields.query_kind.optional(),
    queries: projectFields.queries.optional(),
    brand_names: projectFields.brand_names.optional(),
    platforms: projectFields.platforms.optional(),
    location: projectFields.location.optional(),
    language: projectFields.language.optional(),
  }),
  output: ProjectRecord,
  errors: ['invalid_input', 'idempotency_key_reused', 'idempotency_key_in_use'],
  // Replacing the queries or names loses the previous configuration.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  validate: somethingToChange(SETTINGS),
  handler: async (ctx, input) => {
    const row = await update(
      ctx.db,
      ctx.principal.orgId,
      input.project_id,
      projectChanges(input),
      ctx.engine.clock.now(),
    );
    return { status: 200, body: projectView(row, true), resourceId: row.id };
  },
});
