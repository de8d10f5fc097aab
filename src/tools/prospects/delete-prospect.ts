import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { deleteProspect as remove } from '../../engine/prospects/service.ts';
import { MAX_PROSPECT_URL_LENGTH } from '../../engine/prospects/normalize-url.ts';
import { ClientIdParam, ListIdParam } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const deleteProspect = defineOperation({
  name: 'delete_prospect',
  title: 'Delete a prospect',
  description: 'Remove an item from a list, confirmed by its exact saved url (else 409).',
  family: 'prospector',
  http: { method: 'DELETE', path: '/clients/:client_id/prospect-lists/:list_id/items', status: 200 },
  scope: 'prospector:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    client_id: ClientIdParam,
    list_id: ListIdParam,
    url: shortText({ max: MAX_PROSPECT_URL_LENGTH, trim: false }).describe('Exact saved url, to confirm.'),
  }),
  output: z.object({ deleted: z.literal(true), item_id: z.string(), list_id: z.string(), url: z.string() }),
  errors: [
    'invalid_input',
    'confirmation_mismatch',
    'idempotency_key_required',
    'idempotency_key_reused',
    'idempotency_key_in_use',
  ],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const body = await remove(ctx.engine, ctx.db, ctx.principal.orgId, input);
    return { status: 200, body, resourceId: body.item_id };
  },
});
