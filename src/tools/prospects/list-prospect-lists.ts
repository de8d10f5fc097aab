import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { listOf, pageOf, PaginationInput } from '../common/schemas.ts';
import { listLists } from '../../engine/prospects/service.ts';
import { ClientIdParam, ProspectListRecord } from './schemas.ts';

export const listProspectLists = defineOperation({
  name: 'list_prospect_lists',
  title: 'List prospect lists',
  description: "A client's outreach lists, recently updated first, with counts per status.",
  family: 'prospector',
  http: { method: 'GET', path: '/clients/:client_id/prospect-lists', status: 200 },
  scope: 'prospector:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({ client_id: ClientIdParam, ...PaginationInput }),
  output: listOf(ProspectListRecord),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { rows, total } = await listLists(ctx.db, ctx.principal.orgId, input.client_id, input);
    return pageOf(rows, input, total);
  },
});
