import { z } from 'zod';
import { listClientViews } from '../../engine/clients.ts';
import { defineOperation } from '../define.ts';
import { listOf, pageOf, PaginationInput, Timestamp } from '../common/schemas.ts';

export const ClientView = z.object({
  client_id: z.string(),
  name: z.string(),
  domain: z.string().nullable(),
  service_area: z.string().nullable(),
  service_location: z.object({ lat: z.number(), lng: z.number() }).nullable(),
  default_tone: z.string().nullable(),
  created_at: Timestamp,
});

export const listClients = defineOperation({
  name: 'list_clients',
  title: 'List clients',
  description:
    "The organisation's client workspaces, newest first. Content jobs, Autopilot and outreach lists are per client.",
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
