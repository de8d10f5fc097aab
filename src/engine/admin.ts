import type { Db } from '../store/db.ts';
import type { Plan, SubscriptionStatus } from '../store/schema.ts';
import { createOrganisation, listOrganisations } from '../store/repos/organisations.ts';
import { createClient, type NewClient } from '../store/repos/clients.ts';
import { insertApiKey } from '../store/repos/api-keys.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './api-keys.ts';
import { SCOPES, isScope, type Scope } from './scopes.ts';
import { immediate } from '../store/db.ts';

/** Creates a key; the returned `apiKey` is the only time the key exists in clear. */
export async function issueApiKey(
  db: Db,
  input: { orgId: string; scopes: readonly string[]; name?: string; expiresAt?: number | null },
  now: number,
): Promise<{ keyId: string; apiKey: string; scopes: Scope[] }> {
  const bad = input.scopes.filter((s) => !isScope(s));
  if (bad.length) throw new Error(`unknown scope(s): ${bad.join(', ')} (known: ${SCOPES.join(', ')})`);
  if (input.scopes.length === 0) throw new Error('a key needs at least one scope');
  const apiKey = generateApiKey();
  const row = await insertApiKey(
    db,
    {
      orgId: input.orgId,
      name: input.name ?? 'api key',
      keyHash: hashApiKey(apiKey),
      displayPrefix: displayPrefix(apiKey),
      scopes: [...new Set(input.scopes)],
      expiresAt: input.expiresAt ?? null,
    },
    now,
  );
  return { keyId: row.id, apiKey, scopes: JSON.parse(row.scopes) as Scope[] };
}

export interface InitResult {
  created: boolean;
  orgId: string;
  clientId: string | null;
  apiKey: string | null;
}

/**
 * First-run set-up: a local organisation (agency plan, active), a client and an all-scope key, in one transaction.
 * When an organisation exists it creates nothing, unless `forceNewKey` asks for a fresh key on the first organisation.
 */
export async function initialise(
  db: Db,
  now: number,
  options: { forceNewKey?: boolean; orgName?: string; clientName?: string; client?: Partial<NewClient> } = {},
): Promise<InitResult> {
  return immediate(db, async (trx) => {
    const existing = await listOrganisations(trx);
    if (existing.length > 0) {
      const org = existing[0]!;
      const client = await trx
        .selectFrom('clients')
        .select('id')
        .where('org_id', '=', org.id)
        .orderBy('created_at')
        .executeTakeFirst();
      if (!options.forceNewKey) return { created: false, orgId: org.id, clientId: client?.id ?? null, apiKey: null };
      const key = await issueApiKey(trx, { orgId: org.id, scopes: SCOPES, name: 'local (init --force-new-key)' }, now);
      return { created: false, orgId: org.id, clientId: client?.id ?? null, apiKey: key.apiKey };
    }
    const org = await createOrganisation(
      trx,
      {
        name: options.orgName ?? 'Local organisation',
        plan: 'agency' satisfies Plan,
        subscription: 'active' satisfies SubscriptionStatus,
      },
      now,
    );
    const client = await createClient(
      trx,
      { name: options.clientName ?? 'Default client', ...options.client, orgId: org.id },
      now,
    );
    const key = await issueApiKey(trx, { orgId: org.id, scopes: SCOPES, name: 'local (init)' }, now);
    return { created: true, orgId: org.id, clientId: client.id, apiKey: key.apiKey };
  });
}
