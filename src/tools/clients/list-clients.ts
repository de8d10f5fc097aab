import { z } from 'zod';
import { iso } from '../../clock.ts';
import { listClients as listClientRows, type ClientRow } from '../../store/repos/clients.ts';
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

export function clientView(row: ClientRow): z.infer<typeof ClientView> {
  return {
    client_id: row.id,
    name: row.name,
    domain: row.domain,
    service_area: row.service_area,
    service_location:
      row.service_lat !== null && row.service_lng !== null ? { lat: row.service_lat, lng: row.service_lng } : null,
    default_tone: row.default_tone,
    created_at: iso(row.created_at),
  };
}

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
    const { rows, total } = await listClientRows(ctx.db, ctx.principal.orgId, input);
    return pageOf(rows.map(clientView), input, total);
  },
});
