import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { deleteList } from '../../engine/prospects/service.ts';
import { ClientIdParam, ListIdParam } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const deleteProspectList = defineOperation({
  name: 'delete_prospect_list',
  title: 'Delete a prospect list',
  description: 'Delete a list and its items, confirmed by its exact current name (else 409).',
  family: 'prospector',
  http: { method: 'DELETE', path: '/clients/:client_id/prospect-lists/:list_id', status: 200 },
  scope: 'prospector:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    client_id: ClientIdParam,
    list_id: ListIdParam,
    name: shortText({ max: 200, trim: false }).describe('Exact current name, to confirm.'),
  }),
  output: z.object({
    deleted: z.literal(true),
    list_id: z.string(),
    name: z.string(),
    items_deleted: z.number().int(),
  }),
  errors: [
    'invalid_input',
    'confirmation_mismatch',
    'idempotency_key_required',
    'idempotency_key_reused',
    'idempotency_key_in_use',
  ],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const body = await deleteList(ctx.db, ctx.principal.orgId, input);
    return { status: 200, body, resourceId: body.list_id };
  },
});
