import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { Uuid } from '../common/schemas.ts';
import { updateProspect as update } from '../../engine/prospects/service.ts';
import {
  ClientIdParam,
  FreeText,
  ListIdParam,
  PROSPECT_STATUSES_HELP,
  ProspectItemRecord,
  ProspectStatus,
} from './schemas.ts';

export const updateProspect = defineOperation({
  name: 'update_prospect',
  title: 'Update a prospect',
  description: "Set a prospect's status and/or notes (at least one). Sends nothing.",
  family: 'prospector',
  http: { method: 'PATCH', path: '/clients/:client_id/prospect-lists/:list_id/items/:item_id', status: 200 },
  scope: 'prospector:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    client_id: ClientIdParam,
    list_id: ListIdParam,
    item_id: Uuid.describe('Item id.'),
    status: ProspectStatus.optional().describe(`New status: ${PROSPECT_STATUSES_HELP}.`),
    notes: FreeText(10_000).nullable().optional().describe('Replaces the notes; null clears.'),
  }),
  output: ProspectItemRecord,
  errors: ['invalid_input', 'idempotency_key_required', 'idempotency_key_reused', 'idempotency_key_in_use'],
  // Overwriting or clearing notes loses the previous text, so this is not an additive-only tool.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  validate: (_ctx, input) =>
    input.status === undefined && input.notes === undefined
      ? [{ path: '(body)', message: 'Send at least one of status or notes.' }]
      : [],
  handler: async (ctx, input) => {
    const item = await update(ctx.engine, ctx.db, ctx.principal.orgId, input);
    return { status: 200, body: item, resourceId: item.item_id };
  },
});
