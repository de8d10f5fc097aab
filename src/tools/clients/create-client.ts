import { z } from 'zod';
import { createOrgClient } from '../../engine/accounts/admin.ts';
import { clientRecord } from '../../engine/accounts/clients.ts';
import { defineOperation } from '../define.ts';
import { clientChanges, clientFields, ClientView } from './schemas.ts';

export const createClient = defineOperation({
  name: 'create_client',
  title: 'Create a client',
  description: 'Create a client workspace (201) with writing and location settings; other tools take its client_id.',
  family: 'clients',
  http: { method: 'POST', path: '/clients', status: 201 },
  scope: 'clients:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject(clientFields),
  output: ClientView,
  errors: ['invalid_input', 'idempotency_key_required', 'idempotency_key_reused', 'idempotency_key_in_use'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const row = await createOrgClient(
      ctx.db,
      ctx.principal.orgId,
      { ...clientChanges(input), name: input.name, excludedTopics: input.excluded_topics ?? [] },
      ctx.engine.clock.now(),
    );
    return { status: 201, body: clientRecord(row), resourceId: row.id };
  },
});
