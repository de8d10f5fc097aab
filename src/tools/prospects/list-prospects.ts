import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { listOf, pageOf, PaginationInput } from '../common/schemas.ts';
import { listItems } from '../../engine/prospects/service.ts';
import { ClientIdParam, ListIdParam, ProspectItemRecord, ProspectStatus } from './schemas.ts';

export const listProspects = defineOperation({
  name: 'list_prospects',
  title: 'List prospects',
  description:
    'The items of one prospect list, newest first, optionally only those with one status. At most 100 per page.',
  family: 'prospector',
  http: { method: 'GET', path: '/clients/:client_id/prospect-lists/:list_id/items', status: 200 },
  scope: 'prospector:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    client_id: ClientIdParam,
    list_id: ListIdParam,
    status: ProspectStatus.optional(),
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
