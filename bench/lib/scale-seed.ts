/**
 * The foundation bench's data set for `npm run bench -- scale`, on whichever store `env` names (AGENT_API_DB or
 * AGENT_API_DATABASE_URL): one agency organisation, `keys` all-scope keys, and a week of settled ledger work (2,000
 * reservations, two in three charged), as bench/foundation.ts seeds its SQLite file.
 */
import { randomUUID } from 'node:crypto';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { immediate } from '../../src/store/db.ts';
import { insertReservation, settleReservation } from '../../src/store/repos/usage-ledger.ts';

export async function seedUsage(
  env: Record<string, string>,
  keys: number,
): Promise<{ orgId: string; apiKeys: string[] }> {
  const config = loadConfig({ ...env, AGENT_API_LOG_LEVEL: 'silent' });
  const app = await createApp({ config, logger: createLogger('silent') });
  try {
    const db = app.database.db;
    const now = Date.now();
    const org = await createOrganisation(db, { name: 'bench', plan: 'agency', subscription: 'active' }, now);
    const apiKeys: string[] = [];
    await immediate(db, async (trx) => {
      for (let i = 0; i < keys; i++)
        apiKeys.push((await issueApiKey(trx, { orgId: org.id, scopes: SCOPES }, now)).apiKey);
      // A realistic ledger: a week of settled work for this organisation.
      for (let i = 0; i < 2_000; i++) {
        const id = randomUUID();
        await insertReservation(
          trx,
          { orgId: org.id, operation: 'optimize_page', resourceKind: 'bench', resourceId: id, units: 1 },
          now - i * 300_000,
        );
        await settleReservation(trx, 'bench', id, i % 3 ? 'charged' : 'released', now);
      }
    });
    return { orgId: org.id, apiKeys };
  } finally {
    await app.close();
  }
}
