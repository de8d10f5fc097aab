import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { Uuid } from '../common/schemas.ts';
import { updateProspect as update } from '../../engine/prospects/service.ts';
import { ClientIdParam, FreeText, ListIdParam, ProspectItemRecord, ProspectStatus } from './schemas.ts';

export const updateProspect = defineOperation({
  name: 'update_prospect',
  title: 'Update a prospect',
  description:
    "Record what happened with a prospect: status and/or notes (at least one). Any status may follow any other; notes replaces the notes and notes: null clears them. A real change moves the item's and the list's updated_at. Sends nothing to anyone. Requires an idempotency key.",
  family: 'prospector',
  http: { method: 'PATCH', path: '/clients/:client_id/prospect-lists/:list_id/items/:item_id', status: 200 },
  scope: 'prospector:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    client_id: ClientIdParam,
    list_id: ListIdParam,
    item_id: Uuid.describe('The item (path id).'),
    status: ProspectStatus.optional(),
    notes: FreeText(10_000).nullable().optional().describe('New notes; null clears them.'),
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
