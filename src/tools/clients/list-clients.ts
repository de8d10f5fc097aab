import { z } from 'zod';
import { listClientViews } from '../../engine/accounts/clients.ts';
import { defineOperation } from '../define.ts';
import { listOf, pageOf, PaginationInput } from '../common/schemas.ts';
import { ClientView } from './schemas.ts';

export { ClientView };

export const listClients = defineOperation({
  name: 'list_clients',
  title: 'List clients',
  description: 'Client workspaces, newest first; most work is per client.',
  family: 'clients',
  http: { method: 'GET', path: '/clients', status: 200 },
  scope: null,
  subscription: null,
  idempotency: 'none',
  input: z.strictObject(PaginationInput),
  output: listOf(ClientView),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { rows, total } = await listClientViews(ctx.db, ctx.principal.orgId, input);
    return pageOf(rows, input, total);
  },
});
