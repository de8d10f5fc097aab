import { z } from 'zod';
import { updateOrgClient } from '../../engine/accounts/admin.ts';
import { clientRecord } from '../../engine/accounts/clients.ts';
import { defineOperation } from '../define.ts';
import { somethingToChange } from '../common/schemas.ts';
import { ClientIdParam, clientChanges, clientFields, ClientView } from './schemas.ts';

const SETTINGS = Object.keys(clientFields);

export const updateClient = defineOperation({
  name: 'update_client',
  title: 'Update a client',
  description:
    "Change a client's settings: only fields sent (at least one); null clears. Accepted work keeps its settings.",
  family: 'clients',
  http: { method: 'PATCH', path: '/clients/:client_id', status: 200 },
  scope: 'clients:write',
  subscription: null,
  idempotency: 'optional',
  input: z.strictObject({ client_id: ClientIdParam, ...clientFields, name: clientFields.name.optional() }),
  output: ClientView,
  errors: ['invalid_input', 'idempotency_key_reused', 'idempotency_key_in_use'],
  // Overwriting or clearing a setting (a knowledge base, say) loses the previous text.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  validate: somethingToChange(SETTINGS),
  handler: async (ctx, input) => {
    const row = await updateOrgClient(
      ctx.db,
      ctx.principal.orgId,
      input.client_id,
      clientChanges(input),
      ctx.engine.clock.now(),
    );
    return { status: 200, body: clientRecord(row), resourceId: row.id };
  },
});
