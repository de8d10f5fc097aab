import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { createList } from '../../engine/prospects/service.ts';
import { ClientIdParam, Line, OPPORTUNITY_TYPES_HELP, OpportunityType, ProspectListRecord } from './schemas.ts';

export const createProspectList = defineOperation({
  name: 'create_prospect_list',
  title: 'Create a prospect list',
  description: 'Create an outreach list for a client (201); add items with save_prospect.',
  family: 'prospector',
  http: { method: 'POST', path: '/clients/:client_id/prospect-lists', status: 201 },
  scope: 'prospector:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    client_id: ClientIdParam,
    name: Line(200).describe('List name, ≤ 200 chars.'),
    opportunity_type: OpportunityType.nullable()
      .default(null)
      .describe(`New items' type: ${OPPORTUNITY_TYPES_HELP}; default null.`),
  }),
  output: ProspectListRecord,
  errors: ['invalid_input', 'idempotency_key_required', 'idempotency_key_reused', 'idempotency_key_in_use'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const list = await createList(ctx.engine, ctx.db, ctx.principal.orgId, input);
    return { status: 201, body: list, resourceId: list.list_id };
  },
});
