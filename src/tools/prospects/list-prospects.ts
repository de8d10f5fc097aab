import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { listOf, pageOf, PaginationInput } from '../common/schemas.ts';
import { listItems } from '../../engine/prospects/service.ts';
import { ClientIdParam, ListIdParam, PROSPECT_STATUSES_HELP, ProspectItemRecord, ProspectStatus } from './schemas.ts';

export const listProspects = defineOperation({
  name: 'list_prospects',
  title: 'List prospects',
  description: "A prospect list's items, newest first.",
  family: 'prospector',
  http: { method: 'GET', path: '/clients/:client_id/prospect-lists/:list_id/items', status: 200 },
  scope: 'prospector:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    client_id: ClientIdParam,
    list_id: ListIdParam,
    status: ProspectStatus.optional().describe(`Only this status: ${PROSPECT_STATUSES_HELP}.`),
    ...PaginationInput,
  }),
  output: listOf(ProspectItemRecord),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { rows, total } = await listItems(ctx.db, ctx.principal.orgId, input, input);
    return pageOf(rows, input, total);
  },
});
