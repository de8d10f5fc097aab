import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { authenticate } from '../../src/engine/accounts/auth.ts';
import { isWellFormedApiKey } from '../../src/engine/accounts/api-keys.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { systemClock } from '../../src/clock.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import type { OpenedDatabase } from '../../src/store/db.ts';
import { cli, failed, newDb as newDbIn, oneJson, UUID_RE, withDb } from './helpers.ts';

const KEY_IN_TEXT = /aapi_[0-9A-Za-z]{36}/;

const temps: Array<() => void> = [];
afterAll(() => temps.forEach((c) => c()));
const newDb = () => newDbIn(temps);

function count(s: OpenedDatabase, table: string): number {
  return (s.raw.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}

// Each case has its own database file; they run side by side because each spawn mostly waits on process start-up.
describe.concurrent('agent-api command line (docs/api.md §6)', { timeout: 120_000 }, () => {
  it('init --json creates an org, a client and an all-scope key; a second init creates nothing unless --force-new-key', async () => {
    const db = newDb();
    const first = oneJson<{ org_id: string; client_id: string; api_key: string }>(await cli(db, ['init', '--json']));
    expect(Object.keys(first).sort()).toEqual(['api_key', 'client_id', 'org_id']);
    expect(first.org_id).toMatch(UUID_RE);
    expect(first.client_id).toMatch(UUID_RE);
    expect(isWellFormedApiKey(first.api_key)).toBe(true);
    expect(existsSync(db)).toBe(true); // AGENT_API_DB is honoured

    const again = await cli(db, ['init']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already initiali[sz]ed/i);
    expect(again.stdout).toContain(first.org_id);
    expect(again.stdout + again.stderr).not.toMatch(KEY_IN_TEXT);
    await withDb(db, async (s) => {
      expect([count(s, 'organisations'), count(s, 'clients'), count(s, 'api_keys')]).toEqual([1, 1, 1]);
      const p = await authenticate(s.db, systemClock, first.api_key);
      expect(p.orgId).toBe(first.org_id);
      // Every scope, the workspace ones (clients:write, reporter:write) included.
      expect([...p.scopes].sort()).toEqual([...SCOPES].sort());
      expect(p.scopes.size).toBe(10);
    });

    const forced = oneJson<{ org_id: string; api_key: string }>(await cli(db, ['init', '--force-new-key', '--json']));
    expect(forced.org_id).toBe(first.org_id);
    expect(isWellFormedApiKey(forced.api_key)).toBe(true);
    expect(forced.api_key).not.toBe(first.api_key);
    await withDb(db, async (s) => {
      expect([count(s, 'organisations'), count(s, 'clients'), count(s, 'api_keys')]).toEqual([1, 1, 2]);
      expect((await authenticate(s.db, systemClock, forced.api_key)).orgId).toBe(first.org_id);
      expect((await authenticate(s.db, systemClock, first.api_key)).orgId).toBe(first.org_id);
    });
  });

  it('orgs create/update, clients create and keys create/revoke/list print the documented JSON and change the store', async () => {
    const db = newDb();
    const org = oneJson(
      await cli(db, ['orgs', 'create', '--name', 'Acme Ltd', '--plan', 'pro', '--subscription', 'inactive', '--json']),
    );
    expect(org).toEqual({
      org_id: expect.stringMatching(UUID_RE),
      name: 'Acme Ltd',
      plan: 'pro',
      subscription: 'inactive',
    });
    const orgId = org.org_id as string;
    const expiresAt = '2099-01-02T03:04:05.000Z';

    const [updated, client, key] = await Promise.all([
      cli(db, ['orgs', 'update', orgId, '--plan', 'agency', '--subscription', 'active', '--json']),
      cli(db, [
        'clients',
        'create',
        '--org',
        orgId,
        '--name',
        'Plumbing Co',
        '--domain',
        'plumbing.example',
        '--service-area',
        'Austin, TX',
        '--tone',
        'friendly_simple',
        '--json',
      ]),
      cli(db, [
        'keys',
        'create',
        '--org',
        orgId,
        '--scopes',
        'optimize:run,reporter:read',
        '--name',
        'ci key',
        '--expires-at',
        expiresAt,
        '--json',
      ]),
    ]);
    expect(oneJson(updated)).toEqual({ org_id: orgId, name: 'Acme Ltd', plan: 'agency', subscription: 'active' });
    const c = oneJson(client);
    expect(c).toEqual({ client_id: expect.stringMatching(UUID_RE), org_id: orgId, name: 'Plumbing Co' });
    const k = oneJson<{ key_id: string; api_key: string; scopes: string[] }>(key);
    expect(Object.keys(k).sort()).toEqual(['api_key', 'key_id', 'scopes']);
    expect(k.scopes).toEqual(['optimize:run', 'reporter:read']);
    expect(isWellFormedApiKey(k.api_key)).toBe(true);

    const second = await withDb(db, async (s) => {
      const row = s.raw.prepare('SELECT plan, subscription_status FROM organisations WHERE id = ?').get(orgId);
      expect(row).toEqual({ plan: 'agency', subscription_status: 'active' });
      const cl = s.raw
        .prepare('SELECT org_id, domain, service_area, default_tone FROM clients WHERE id = ?')
        .get(c.client_id);
      expect(cl).toEqual({
        org_id: orgId,
        domain: 'plumbing.example',
        service_area: 'Austin, TX',
        default_tone: 'friendly_simple',
      });
      const p = await authenticate(s.db, systemClock, k.api_key);
      expect(p).toMatchObject({ orgId, keyId: k.key_id, plan: 'agency', subscriptionActive: true, ratePerMinute: 120 });
      expect([...p.scopes].sort()).toEqual(['optimize:read', 'optimize:run', 'reporter:read']);
      const stored = s.raw.prepare('SELECT expires_at FROM api_keys WHERE id = ?').get(k.key_id);
      expect(stored).toEqual({ expires_at: Date.parse(expiresAt) });
      return issueApiKey(s.db, { orgId, scopes: ['copywriter:read'], name: 'second' }, Date.now());
    });

    const revoked = await cli(db, ['keys', 'revoke', k.key_id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(k.key_id);
    await withDb(db, async (s) => {
      await expect(authenticate(s.db, systemClock, k.api_key)).rejects.toMatchObject({ code: 'unauthorized' });
      expect((await authenticate(s.db, systemClock, second.apiKey)).keyId).toBe(second.keyId);
    });

    const listJson = await cli(db, ['keys', 'list', '--org', orgId, '--json']);
    const listed = oneJson<{ keys: Array<Record<string, unknown>> }>(listJson);
    expect(listed.keys).toHaveLength(2);
    expect(listed.keys.find((x) => x.key_id === k.key_id)).toMatchObject({
      name: 'ci key',
      scopes: ['optimize:run', 'reporter:read'],
      expires_at: expiresAt,
      revoked_at: expect.any(String),
    });
    expect(listed.keys.find((x) => x.key_id === second.keyId)).toMatchObject({ revoked_at: null, expires_at: null });
    // Listings show a recognisable prefix, never the key.
    expect(listJson.stdout).not.toMatch(KEY_IN_TEXT);
    expect(listed.keys.find((x) => x.key_id === k.key_id)!.prefix).toBe(k.api_key.slice(0, 9));
  });

  it('bad plans, bad scope names and unknown organisations exit non-zero with a clear stderr message and create nothing', async () => {
    const db = newDb();
    const orgId = await withDb(
      db,
      async (s) =>
        (await createOrganisation(s.db, { name: 'o', plan: 'starter', subscription: 'active' }, Date.now())).id,
    );
    const missing = '00000000-0000-4000-8000-000000000000';
    const [badPlan, badScope, unknownOrg] = await Promise.all([
      cli(db, ['orgs', 'create', '--name', 'X', '--plan', 'gold', '--json']),
      cli(db, ['keys', 'create', '--org', orgId, '--scopes', 'copywriter:run,admin:all', '--json']),
      cli(db, ['keys', 'create', '--org', missing, '--scopes', 'copywriter:run', '--json']),
    ]);
    failed(badPlan, /gold/);
    failed(badPlan, /starter, pro, agency/);
    failed(badScope, /admin:all/);
    failed(badScope, /copywriter:read/); // names the scopes that do exist
    failed(unknownOrg, new RegExp(`no organisation ${missing}`));
    await withDb(db, async (s) => {
      expect([count(s, 'organisations'), count(s, 'clients'), count(s, 'api_keys')]).toEqual([1, 0, 0]);
    });
  });

  it('agent-api mcp without AGENT_API_KEY exits 2 with a message on stderr and nothing on stdout', async () => {
    const r = await cli(newDb(), ['mcp']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/AGENT_API_KEY/);
  });
});
