import { afterAll, describe, expect, it } from 'vitest';
import {
  createOrgClient,
  initialise,
  issueApiKey,
  listOrgClients,
  prepareClientChanges,
  updateOrgClient,
} from '../../src/engine/accounts/admin.ts';
import { ApiError } from '../../src/errors.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { cli, failed, human, MISSING_ID, newDb, oneJson, UUID_RE, withDb } from './helpers.ts';

/** `orgs list`, `clients list` and `clients update` (and the engine functions behind the client commands). */

const temps: Array<() => void> = [];
afterAll(() => temps.forEach((c) => c()));
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What `init` creates (an organisation and its default client), made in-process to keep spawns for the commands. */
async function seed(db: string): Promise<{ org_id: string; client_id: string }> {
  const r = await withDb(db, (s) => initialise(s.db, Date.now()));
  return { org_id: r.orgId, client_id: r.clientId! };
}

type ClientJson = Record<string, unknown> & { client_id: string };

// Each case has its own database; set-up is in-process so only the commands under test are spawned.
describe.concurrent('agent-api orgs list, clients list and clients update', { timeout: 240_000 }, () => {
  it('orgs list prints every organisation, oldest first, as one JSON object or a table', async () => {
    const db = newDb(temps);
    // Migrated first: two processes migrating one fresh file at once can race (see migrateToLatest).
    await withDb(db, async () => undefined);
    const [empty, emptyText] = await Promise.all([cli(db, ['orgs', 'list', '--json']), cli(db, ['orgs', 'list'])]);
    expect(oneJson(empty)).toEqual({ organisations: [] });
    expect(human(emptyText)).toMatch(/no organisations/);

    const t = Date.parse('2025-01-01T00:00:00Z');
    const [a, b] = await withDb(db, async (s) => [
      await createOrganisation(s.db, { name: 'Acme Ltd', plan: 'pro', subscription: 'active' }, t + 1_000),
      await createOrganisation(s.db, { name: 'Beta', plan: 'starter', subscription: 'inactive' }, t),
    ]);
    const [json, text, bad] = await Promise.all([
      cli(db, ['orgs', 'list', '--json']),
      cli(db, ['orgs', 'list']),
      cli(db, ['orgs', 'list', '--plan', 'pro']),
    ]);
    const listed = oneJson<{ organisations: Record<string, unknown>[] }>(json);
    expect(listed.organisations).toEqual([
      {
        org_id: b!.id,
        name: 'Beta',
        plan: 'starter',
        subscription: 'inactive',
        created_at: '2025-01-01T00:00:00.000Z',
      },
      { org_id: a!.id, name: 'Acme Ltd', plan: 'pro', subscription: 'active', created_at: '2025-01-01T00:00:01.000Z' },
    ]);
    const lines = human(text).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ORG_ID\s+PLAN\s+SUBSCRIPTION\s+CREATED\s+NAME$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${b!.id}\\s+starter\\s+inactive\\s+2025-01-01T00:00:00.000Z\\s+Beta$`));
    expect(lines[2]).toMatch(new RegExp(`^${a!.id}\\s+pro\\s+active\\s+\\S+\\s+Acme Ltd$`));
    failed(bad, /unknown option '--plan'/);
  });

  it('clients list --org prints the documented fields; a missing or unknown --org is an error', async () => {
    const db = newDb(temps);
    const init = await seed(db);
    const created = oneJson(
      await cli(db, [
        'clients',
        'create',
        '--org',
        init.org_id,
        '--name',
        'Plumbing Co',
        '--domain',
        'plumbing.example',
        '--service-area',
        'Austin, TX',
        '--lat',
        '30.27',
        '--lng',
        '-97.74',
        '--tone',
        'friendly_simple',
        '--json',
      ]),
    );
    const [listed, table, missingOrg, unknownOrg] = await Promise.all([
      cli(db, ['clients', 'list', '--org', init.org_id, '--json']),
      cli(db, ['clients', 'list', '--org', init.org_id]),
      cli(db, ['clients', 'list', '--json']),
      cli(db, ['clients', 'list', '--org', MISSING_ID, '--json']),
    ]);
    const { clients } = oneJson<{ clients: ClientJson[] }>(listed);
    expect(clients).toEqual([
      {
        client_id: init.client_id,
        org_id: init.org_id,
        name: 'Default client',
        domain: null,
        service_area: null,
        lat: null,
        lng: null,
        default_tone: null,
        created_at: expect.stringMatching(ISO_RE),
      },
      {
        client_id: created.client_id,
        org_id: init.org_id,
        name: 'Plumbing Co',
        domain: 'plumbing.example',
        service_area: 'Austin, TX',
        lat: 30.27,
        lng: -97.74,
        default_tone: 'friendly_simple',
        created_at: expect.stringMatching(ISO_RE),
      },
    ]);
    const lines = human(table).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CLIENT_ID\s+DOMAIN\s+SERVICE_AREA\s+TONE\s+CREATED\s+NAME$/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^${String(created.client_id)}\\s+plumbing\\.example\\s+Austin, TX\\s+friendly_simple\\s+\\S+\\s+Plumbing Co$`,
      ),
    );
    failed(missingOrg, /required option '--org <id>' not specified/);
    failed(unknownOrg, new RegExp(`no organisation ${MISSING_ID}`));
  });

  it('clients update changes only the options given and prints the client; --json or one human line', async () => {
    const db = newDb(temps);
    const init = await seed(db);
    const id = init.client_id;
    const updated = oneJson<ClientJson>(
      await cli(db, [
        'clients',
        'update',
        id,
        '--name',
        'RapidFlow Plumbing',
        '--domain',
        'www.rapidflowplumbing.com',
        '--service-area',
        'Austin, TX',
        '--lat',
        '30.2672',
        '--lng',
        '-97.7431',
        '--tone',
        'expert_detailed',
        '--brand-voice',
        'Warm and direct.',
        '--knowledge-base',
        'Family-owned since 2006.',
        '--excluded-topics',
        'competitor prices, , DIY gas work',
        '--json',
      ]),
    );
    expect(updated).toEqual({
      client_id: id,
      org_id: init.org_id,
      name: 'RapidFlow Plumbing',
      domain: 'www.rapidflowplumbing.com',
      service_area: 'Austin, TX',
      lat: 30.2672,
      lng: -97.7431,
      default_tone: 'expert_detailed',
      brand_voice: 'Warm and direct.',
      knowledge_base: 'Family-owned since 2006.',
      excluded_topics: ['competitor prices', 'DIY gas work'],
      created_at: expect.stringMatching(ISO_RE),
      updated_at: expect.stringMatching(ISO_RE),
    });

    // One option: the rest stays; an empty value clears a text setting.
    const one = await cli(db, ['clients', 'update', id, '--service-area', '']);
    expect(human(one)).toBe(`client ${id} updated (--service-area)\n`);
    await withDb(db, async (s) => {
      const row = s.raw
        .prepare(
          'SELECT name, domain, service_area, service_lat, default_tone, excluded_topics FROM clients WHERE id = ?',
        )
        .get(id);
      expect(row).toEqual({
        name: 'RapidFlow Plumbing',
        domain: 'www.rapidflowplumbing.com',
        service_area: null,
        service_lat: 30.2672,
        default_tone: 'expert_detailed',
        excluded_topics: '["competitor prices","DIY gas work"]',
      });
    });
  });

  it('clients update refuses no options, bad values and unknown ids, naming the option, and changes nothing', async () => {
    const db = newDb(temps);
    const init = await seed(db);
    const id = init.client_id;
    const runs = await Promise.all([
      cli(db, ['clients', 'update', id]),
      cli(db, ['clients', 'update', id, '--lat', '30', '--json']),
      cli(db, ['clients', 'update', id, '--lat', 'north', '--lng', '1']),
      cli(db, ['clients', 'update', id, '--lat', '91', '--lng', '0', '--json']),
      cli(db, ['clients', 'update', id, '--tone', 'shouty']),
      cli(db, ['clients', 'update', id, '--domain', 'not a domain', '--name', ' ']),
      cli(db, ['clients', 'update', id, '--excluded-topics', 'x'.repeat(201)]),
      cli(db, ['clients', 'update', MISSING_ID, '--name', 'X', '--json']),
      cli(db, ['clients', 'update', '--name', 'X']),
      cli(db, ['clients', 'update', id, '--colour', 'red']),
    ]);
    const [none, latOnly, latWord, latRange, tone, domainName, topics, unknown, noId, unknownOption] = runs;
    failed(none!, /give at least one setting to change: --name, --domain/);
    failed(latOnly!, /give --lat and --lng together/);
    failed(latWord!, /option '--lat <number>' argument 'north' is invalid\. expected a number/);
    failed(latRange!, /lat: A number from -90 to 90\. \(option --lat\)/);
    failed(tone!, /option '--tone <tone>' argument 'shouty' is invalid\. expected one of clear_practical/);
    failed(domainName!, /Invalid input: name, domain\./);
    failed(domainName!, /name: 1 to 200 characters\. \(option --name\)/);
    failed(domainName!, /domain: A host name such as example\.com\. \(option --domain\)/);
    failed(topics!, /excluded_topics: .*\(option --excluded-topics\)/);
    failed(unknown!, new RegExp(`^agent-api: no client ${MISSING_ID}\\n$`));
    failed(noId!, /missing required argument 'id'/);
    failed(unknownOption!, /unknown option '--colour'/);
    await withDb(db, async (s) => {
      expect(s.raw.prepare('SELECT name, domain, service_lat FROM clients WHERE id = ?').get(id)).toEqual({
        name: 'Default client',
        domain: null,
        service_lat: null,
      });
    });
  });

  it('clients create shares the validation: --lat needs --lng, and a bad domain is refused', async () => {
    const db = newDb(temps);
    const init = await seed(db);
    const [lat, domain] = await Promise.all([
      cli(db, ['clients', 'create', '--org', init.org_id, '--name', 'X', '--lat', '30', '--json']),
      cli(db, ['clients', 'create', '--org', init.org_id, '--name', 'X', '--domain', 'nope', '--json']),
    ]);
    failed(lat, /give --lat and --lng together/);
    failed(domain, /domain: A host name such as example\.com\. \(option --domain\)/);
    await withDb(db, async (s) => {
      expect(s.raw.prepare('SELECT count(*) AS n FROM clients').get()).toEqual({ n: 1 });
    });
  });

  it('keys revoke --json prints one object', async () => {
    const db = newDb(temps);
    const init = await seed(db);
    const key = await withDb(db, (s) =>
      issueApiKey(s.db, { orgId: init.org_id, scopes: ['reporter:read'] }, Date.now()),
    );
    expect(oneJson(await cli(db, ['keys', 'revoke', key.keyId, '--json']))).toEqual({
      key_id: key.keyId,
      revoked: true,
    });
    failed(await cli(db, ['keys', 'revoke', key.keyId, '--json']), new RegExp(`no active key ${key.keyId}`));
  });
});

describe('client engine functions (reusable by API operations)', () => {
  it('create, update and list within an organisation; another organisation gets 404; bad input names every field', async () => {
    const tmp = newDb(temps);
    await withDb(tmp, async (s) => {
      const now = Date.parse('2025-01-01T00:00:00Z');
      const org = await createOrganisation(s.db, { name: 'A', plan: 'pro', subscription: 'active' }, now);
      const other = await createOrganisation(s.db, { name: 'B', plan: 'pro', subscription: 'active' }, now);
      const c = await createOrgClient(s.db, org.id, { name: ' Plumbing ', excludedTopics: ['a', 'A', ' '] }, now);
      expect(c).toMatchObject({ org_id: org.id, name: 'Plumbing', excluded_topics: '["A"]', service_lat: null });
      expect(c.id).toMatch(UUID_RE);

      const later = now + 1_000;
      const u = await updateOrgClient(s.db, org.id, c.id, { lat: 1.5, lng: 2.5, domain: null }, later);
      expect(u).toMatchObject({
        name: 'Plumbing',
        service_lat: 1.5,
        service_lng: 2.5,
        domain: null,
        updated_at: later,
      });
      expect((await listOrgClients(s.db, org.id)).map((r) => r.id)).toEqual([c.id]);
      expect(await listOrgClients(s.db, other.id)).toEqual([]);

      await expect(updateOrgClient(s.db, other.id, c.id, { name: 'X' }, later)).rejects.toMatchObject({
        code: 'not_found',
        details: { field: 'client_id' },
      });
      await expect(createOrgClient(s.db, MISSING_ID, { name: 'X' }, later)).rejects.toMatchObject({
        code: 'not_found',
        details: { field: 'org_id' },
      });
      await expect(listOrgClients(s.db, MISSING_ID)).rejects.toMatchObject({ code: 'not_found' });
      await expect(updateOrgClient(s.db, org.id, c.id, {}, later)).rejects.toMatchObject({ code: 'invalid_input' });

      let error: unknown;
      try {
        prepareClientChanges({
          name: '',
          domain: 'x',
          lat: 100,
          defaultTone: 'loud',
          knowledgeBase: 'k'.repeat(100_001),
        });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ApiError);
      const fields = ((error as ApiError).details!.fields as { path: string }[]).map((f) => f.path);
      expect(fields).toEqual(['name', 'domain', 'lat', 'lng', 'default_tone', 'knowledge_base']);
      expect(prepareClientChanges({ lat: null, lng: null })).toEqual({ service_lat: null, service_lng: null });
      expect(() => prepareClientChanges({ lat: null, lng: 3 })).toThrow(ApiError);
    });
  });
});
