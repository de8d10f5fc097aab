import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  expectFieldError,
  footprint,
  hints,
  HOSTILE,
  idem,
  ISO,
  LIST_CLIENT_FIELDS,
  mcpSession,
  rest,
  UUID,
  type Any,
} from './fixture.ts';

/** create_client (POST /clients) and update_client (PATCH /clients/:client_id) over REST and MCP. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function tenant() {
  const s = await t.tenant('agency');
  t.clock.advance(1_000); // the tenant's own client is older than anything a test creates
  return { ...s, call: rest(t, s.key) };
}

const FULL = {
  name: 'RapidFlow Plumbing',
  domain: 'rapidflowplumbing.com',
  service_area: 'Austin, TX',
  service_location: { lat: 30.2672, lng: -97.7431 },
  default_tone: 'friendly_simple',
  brand_voice: 'Calm, plain-spoken.\nNever alarmist.',
  knowledge_base: HOSTILE,
  excluded_topics: ['gas lines', 'Gas Lines', 'roofing'],
};

describe('create_client over REST', () => {
  it('creates a client with every setting (201): the client view with its settings, stored text exactly as sent; list_clients shows it with its usual fields only', async () => {
    const s = await tenant();
    const before = footprint(t, s.orgId);
    const r = await s.call('POST', '/clients', { body: FULL });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toEqual({
      client_id: expect.stringMatching(UUID),
      name: 'RapidFlow Plumbing',
      domain: 'rapidflowplumbing.com',
      service_area: 'Austin, TX',
      service_location: { lat: 30.2672, lng: -97.7431 },
      default_tone: 'friendly_simple',
      brand_voice: 'Calm, plain-spoken.\nNever alarmist.',
      knowledge_base: HOSTILE,
      excluded_topics: ['Gas Lines', 'roofing'],
      created_at: expect.stringMatching(ISO),
      updated_at: r.body.created_at,
    });
    expect(footprint(t, s.orgId)).toEqual({ ...before, clients: before.clients + 1, keys: before.keys + 1 });
    const row = t.app.database.raw
      .prepare('SELECT knowledge_base, org_id FROM clients WHERE id = ?')
      .get(r.body.client_id);
    expect(row).toEqual({ knowledge_base: HOSTILE, org_id: s.orgId });

    const listed = await s.call('GET', '/clients');
    expect(listed.status).toBe(200);
    const mine = listed.body.data.find((c: Any) => c.client_id === r.body.client_id);
    expect(Object.keys(mine).sort()).toEqual(LIST_CLIENT_FIELDS);
    expect(listed.body.data[0].client_id).toBe(r.body.client_id); // newest first
    expect(listed.body.pagination.total).toBe(2);
  });

  it('only a name is required: the other settings are null or empty; null is the same as leaving a setting out', async () => {
    const s = await tenant();
    const r = await s.call('POST', '/clients', { body: { name: '  Bare  ' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      name: 'Bare',
      domain: null,
      service_area: null,
      service_location: null,
      default_tone: null,
      brand_voice: null,
      knowledge_base: null,
      excluded_topics: [],
    });
    const nulls = await s.call('POST', '/clients', {
      body: {
        name: 'Nulls',
        domain: null,
        service_area: null,
        service_location: null,
        default_tone: null,
        brand_voice: null,
        knowledge_base: null,
      },
    });
    expect(nulls.status, nulls.text).toBe(201);
    expect(nulls.body).toMatchObject({ domain: null, service_location: null, knowledge_base: null });
  });

  it('replays the same key and body (201 again, Idempotent-Replayed, the same body, no second client); the same key with another body is 422', async () => {
    const s = await tenant();
    const first = await s.call('POST', '/clients', { body: FULL, idem: 'create-client-1' });
    expect(first.status).toBe(201);
    const after = footprint(t, s.orgId);
    // Field order and whitespace do not matter: the canonical validated input is the fingerprint.
    const reordered = Object.fromEntries(Object.entries(FULL).reverse());
    const replay = await s.call('POST', '/clients', { body: reordered, idem: 'create-client-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(footprint(t, s.orgId)).toEqual(after);

    const other = await s.call('POST', '/clients', { body: { ...FULL, name: 'Another' }, idem: 'create-client-1' });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    // The same key on another operation is reused too.
    const patch = await s.call('PATCH', `/clients/${first.body.client_id}`, {
      body: { name: 'X' },
      idem: 'create-client-1',
    });
    expect([patch.status, patch.body.error.code]).toEqual([422, 'idempotency_key_reused']);
    expect(footprint(t, s.orgId)).toEqual(after);
  });

  it('without an Idempotency-Key is 400 idempotency_key_required and creates nothing; a malformed key is 400 naming Idempotency-Key', async () => {
    const s = await tenant();
    const before = footprint(t, s.orgId);
    const r = await s.call('POST', '/clients', { body: { name: 'No key' }, idem: null });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('idempotency_key_required');
    const bad = await s.call('POST', '/clients', { body: { name: 'Bad key' }, idem: 'has space' });
    expectFieldError(bad, 'invalid_input', 'Idempotency-Key');
    expect(footprint(t, s.orgId)).toEqual(before);
  });

  const long = (n: number) => 'x'.repeat(n);
  const BAD: Array<[string, Record<string, unknown>, string]> = [
    ['no name', {}, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a name of 201 characters', { name: long(201) }, 'name'],
    ['a name with a line break', { name: 'a\nb' }, 'name'],
    ['a name with a bidirectional override', { name: 'inv\u202eexe' }, 'name'],
    ['a number as name', { name: 42 }, 'name'],
    ['a domain that is no host name', { name: 'c', domain: 'not a domain' }, 'domain'],
    ['a domain of 254 characters', { name: 'c', domain: `${long(250)}.com` }, 'domain'],
    ['a service area of 201 characters', { name: 'c', service_area: long(201) }, 'service_area'],
    ['a latitude over 90', { name: 'c', service_location: { lat: 91, lng: 0 } }, 'service_location.lat'],
    ['a longitude under -180', { name: 'c', service_location: { lat: 0, lng: -181 } }, 'service_location.lng'],
    ['a location without lng', { name: 'c', service_location: { lat: 1 } }, 'service_location.lng'],
    ['a location as text', { name: 'c', service_location: '30.2,-97.7' }, 'service_location'],
    ['an unknown tone', { name: 'c', default_tone: 'angry' }, 'default_tone'],
    ['a brand voice of 2,001 characters', { name: 'c', brand_voice: long(2_001) }, 'brand_voice'],
    ['a brand voice with NUL', { name: 'c', brand_voice: 'a\u0000b' }, 'brand_voice'],
    ['a knowledge base of 100,001 characters', { name: 'c', knowledge_base: long(100_001) }, 'knowledge_base'],
    ['a knowledge base with a lone surrogate', { name: 'c', knowledge_base: 'a\ud800b' }, 'knowledge_base'],
    ['an empty knowledge base', { name: 'c', knowledge_base: '' }, 'knowledge_base'],
    [
      '51 excluded topics',
      { name: 'c', excluded_topics: Array.from({ length: 51 }, (_, i) => `t${i}`) },
      'excluded_topics',
    ],
    ['an excluded topic of 201 characters', { name: 'c', excluded_topics: ['ok', long(201)] }, 'excluded_topics.1'],
    ['excluded topics as one string', { name: 'c', excluded_topics: 'a,b' }, 'excluded_topics'],
  ];

  it.each(BAD)('%s is a 400 invalid_input naming the field, and nothing is created', async (_what, body, field) => {
    const s = await tenant();
    const before = footprint(t, s.orgId);
    const r = await s.call('POST', '/clients', { body });
    expectFieldError(r, 'invalid_input', field);
    expect(footprint(t, s.orgId)).toEqual(before);
  });

  it('an unknown field is a 400 invalid_input naming it (org_id cannot place a client in another organisation)', async () => {
    const s = await tenant();
    const other = await t.tenant('agency');
    const before = footprint(t, s.orgId);
    for (const field of ['org_id', 'lat', 'tone', 'client_id', 'constructor']) {
      const r = await s.call('POST', '/clients', { body: { name: 'c', [field]: other.orgId } });
      expectFieldError(r, 'invalid_input', field);
      expect(r.body.error.details.fields).toEqual([{ path: field, message: 'Unknown field.' }]);
    }
    expect(footprint(t, s.orgId)).toEqual(before);
    expect(footprint(t, other.orgId).clients).toBe(1);
  });

  it('a key without clients:write is 403 forbidden (required_scope clients:write), even with every other scope; list_clients still answers', async () => {
    const s = await tenant();
    const others = SCOPES.filter((x) => x !== 'clients:write');
    const key = (await t.key(s.orgId, others)).apiKey;
    const call = rest(t, key);
    const before = footprint(t, s.orgId);
    const r = await call('POST', '/clients', { body: { name: 'c' } });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'clients:write' } });
    const p = await call('PATCH', `/clients/${s.clientId}`, { body: { name: 'c' } });
    expect(p.status).toBe(403);
    expect(p.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'clients:write' } });
    expect(footprint(t, s.orgId)).toEqual(before);
    expect((await call('GET', '/clients')).status).toBe(200);
    // clients:write alone is enough to create and update.
    const writer = rest(t, (await t.key(s.orgId, ['clients:write'])).apiKey);
    expect((await writer('POST', '/clients', { body: { name: 'ok' } })).status).toBe(201);
  });

  it('a created client is a workspace like any other: content jobs (with its default tone), outreach lists and tracker projects take it', async () => {
    const s = await tenant();
    const created = (await s.call('POST', '/clients', { body: FULL })).body;
    const job = await s.call('POST', '/copywriter/jobs', {
      body: { client_id: created.client_id, topic: 'emergency plumber', page_contract: 'article' },
    });
    expect(job.status, job.text).toBe(201);
    const detail = await s.call('GET', `/copywriter/jobs/${job.body.job_id}`);
    expect(detail.body).toMatchObject({ client_id: created.client_id, tone: 'friendly_simple' });
    const list = await s.call('POST', `/clients/${created.client_id}/prospect-lists`, { body: { name: 'Links' } });
    expect(list.status, list.text).toBe(201);
    const project = await s.call('POST', '/reporter/projects', {
      body: { client_id: created.client_id, name: 'Visibility', domain: 'rapidflowplumbing.com', queries: ['plumber'] },
    });
    expect(project.status, project.text).toBe(201);
    expect(project.body.client_id).toBe(created.client_id);
  });
});

describe('update_client over REST', () => {
  it('changes only the fields sent; null clears a setting, [] clears the topics; updated_at moves, created_at stays', async () => {
    const s = await tenant();
    const c = (await s.call('POST', '/clients', { body: FULL })).body;
    const renamed = await s.call('PATCH', `/clients/${c.client_id}`, { body: { name: 'RapidFlow' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toEqual({ ...c, name: 'RapidFlow', updated_at: expect.stringMatching(ISO) });
    expect(renamed.body.updated_at > c.updated_at).toBe(true);

    const cleared = await s.call('PATCH', `/clients/${c.client_id}`, {
      body: {
        domain: null,
        service_area: null,
        service_location: null,
        default_tone: null,
        brand_voice: null,
        knowledge_base: null,
        excluded_topics: [],
      },
    });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toEqual({
      client_id: c.client_id,
      name: 'RapidFlow',
      domain: null,
      service_area: null,
      service_location: null,
      default_tone: null,
      brand_voice: null,
      knowledge_base: null,
      excluded_topics: [],
      created_at: c.created_at,
      updated_at: expect.stringMatching(ISO),
    });

    const set = await s.call('PATCH', `/clients/${c.client_id}`, {
      body: {
        service_location: { lat: -33.86, lng: 151.21 },
        knowledge_base: 'New facts.',
        default_tone: 'expert_detailed',
      },
    });
    expect(set.body).toMatchObject({
      name: 'RapidFlow',
      domain: null,
      service_location: { lat: -33.86, lng: 151.21 },
      knowledge_base: 'New facts.',
      default_tone: 'expert_detailed',
    });
    // list_clients reads the same row.
    const listed = (await s.call('GET', '/clients')).body.data.find((x: Any) => x.client_id === c.client_id);
    expect(listed).toMatchObject({
      name: 'RapidFlow',
      default_tone: 'expert_detailed',
      service_location: set.body.service_location,
    });
  });

  it('an empty body is 400 naming (body); an unknown field or a null name is 400 naming it; a bad value names its field', async () => {
    const s = await tenant();
    const path = `/clients/${s.clientId}`;
    expectFieldError(await s.call('PATCH', path, { body: {} }), 'invalid_input', '(body)');
    expectFieldError(await s.call('PATCH', path, { body: { name: 'x', colour: 'red' } }), 'invalid_input', 'colour');
    expectFieldError(await s.call('PATCH', path, { body: { name: null } }), 'invalid_input', 'name');
    expectFieldError(await s.call('PATCH', path, { body: { domain: 'nope' } }), 'invalid_input', 'domain');
    expectFieldError(
      await s.call('PATCH', path, { body: { default_tone: 'shouty' } }),
      'invalid_input',
      'default_tone',
    );
    expectFieldError(
      await s.call('PATCH', path, { body: { service_location: { lat: 0, lng: 200 } } }),
      'invalid_input',
      'service_location.lng',
    );
    expectFieldError(
      await s.call('PATCH', '/clients/not-a-uuid', { body: { name: 'x' } }),
      'invalid_input',
      'client_id',
    );
    const row = (await s.call('GET', '/clients')).body.data[0];
    expect(row.name).toBe('Test client');
  });

  it("another organisation's client is 404 not_found exactly like a missing one, and stays unchanged", async () => {
    const s = await tenant();
    const other = await tenant();
    const foreign = await s.call('PATCH', `/clients/${other.clientId}`, { body: { name: 'Hijacked' } });
    const missing = await s.call('PATCH', `/clients/${randomUUID()}`, { body: { name: 'Hijacked' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await other.call('GET', '/clients')).body.data[0].name).toBe('Test client');
    expect(footprint(t, s.orgId).keys).toBe(0);
  });

  it('an optional Idempotency-Key replays the first answer and never re-applies it; without one every call applies', async () => {
    const s = await tenant();
    const path = `/clients/${s.clientId}`;
    const first = await s.call('PATCH', path, { body: { name: 'First' }, idem: 'upd-1' });
    expect(first.status).toBe(200);
    await s.call('PATCH', path, { body: { name: 'Later' }, idem: null });
    const replay = await s.call('PATCH', path, { body: { name: 'First' }, idem: 'upd-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await s.call('GET', '/clients')).body.data[0].name).toBe('Later');
    const reused = await s.call('PATCH', path, { body: { name: 'Other' }, idem: 'upd-1' });
    expect([reused.status, reused.body.error.code]).toEqual([422, 'idempotency_key_reused']);
    expect(footprint(t, s.orgId).keys).toBe(1);
  });
});

describe('create_client and update_client over MCP', () => {
  it('lists both tools with annotations and schemas: create requires idempotency_key, update takes it optionally', async () => {
    const s = await tenant();
    const mcp = await mcpSession(t, s.key);
    try {
      const { tools } = await mcp.client.listTools();
      const create = tools.find((x) => x.name === 'create_client')!;
      const update = tools.find((x) => x.name === 'update_client')!;
      expect(hints(create)).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(hints(update)).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect((create.inputSchema.required ?? []).sort()).toEqual(['idempotency_key', 'name']);
      expect((update.inputSchema.required ?? []).sort()).toEqual(['client_id']);
      expect(Object.keys(update.inputSchema.properties ?? {})).toContain('idempotency_key');
      for (const tool of [create, update])
        for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {}))
          expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy();
    } finally {
      await mcp.close();
    }
  });

  it('creates, replays, updates and clears through the tools; errors are the REST bodies', async () => {
    const s = await tenant();
    const mcp = await mcpSession(t, s.key);
    try {
      const key = idem();
      const created = await mcp.tool('create_client', { ...FULL, idempotency_key: key });
      expect(created.isError, created.text).toBe(false);
      expect(created.body).toMatchObject({
        name: FULL.name,
        knowledge_base: HOSTILE,
        excluded_topics: ['Gas Lines', 'roofing'],
      });
      expect(created.text).toContain('Create a client');
      const replay = await mcp.tool('create_client', { ...FULL, idempotency_key: key });
      expect(replay.body).toEqual(created.body);
      expect(replay.meta).toMatchObject({ idempotent_replayed: true });
      expect(footprint(t, s.orgId).clients).toBe(2);
      const reused = await mcp.tool('create_client', { name: 'Other', idempotency_key: key });
      expect([reused.isError, reused.body.error.code]).toEqual([true, 'idempotency_key_reused']);

      const missingKey = await mcp.tool('create_client', { name: 'No key' });
      expect([missingKey.isError, missingKey.body.error.code]).toEqual([true, 'idempotency_key_required']);

      const viaRest = await s.call('POST', '/clients', { body: { name: 'c', default_tone: 'angry' } });
      const viaMcp = await mcp.tool('create_client', { name: 'c', default_tone: 'angry', idempotency_key: idem() });
      expect(viaMcp.isError).toBe(true);
      expect(viaMcp.body).toEqual(viaRest.body);
      expectFieldError(viaMcp, 'invalid_input', 'default_tone');
      expect(viaMcp.text.startsWith('invalid_input:')).toBe(true);

      const cleared = await mcp.tool('update_client', {
        client_id: created.body.client_id,
        knowledge_base: null,
        service_location: null,
      });
      expect(cleared.isError, cleared.text).toBe(false);
      expect(cleared.body).toMatchObject({
        name: FULL.name,
        knowledge_base: null,
        service_location: null,
        domain: FULL.domain,
      });

      const other = await t.tenant('agency');
      const foreign = await mcp.tool('update_client', { client_id: other.clientId, name: 'x' });
      expect([foreign.isError, foreign.body.error.code]).toEqual([true, 'not_found']);
      const empty = await mcp.tool('update_client', { client_id: created.body.client_id });
      expectFieldError(empty, 'invalid_input', '(body)');
      expect(footprint(t, s.orgId).clients).toBe(2);
    } finally {
      await mcp.close();
    }
  });

  it('an unknown argument is a JSON-RPC invalid-params error naming it; a key without clients:write gets forbidden', async () => {
    const s = await tenant();
    const mcp = await mcpSession(t, s.key);
    try {
      const err = await mcp.rpcError('create_client', { name: 'c', org_id: randomUUID(), idempotency_key: idem() });
      expect(err.code).toBe(-32602);
      expect(err.data).toEqual({
        error: {
          code: 'invalid_input',
          message: 'Invalid input: org_id.',
          details: { fields: [{ path: 'org_id', message: 'Unknown field.' }] },
        },
      });
    } finally {
      await mcp.close();
    }
    const reader = await mcpSession(t, (await t.key(s.orgId, ['copywriter:run', 'reporter:write'])).apiKey);
    try {
      for (const [name, args] of [
        ['create_client', { name: 'c', idempotency_key: idem() }],
        ['update_client', { client_id: s.clientId, name: 'c' }],
      ] as const) {
        const r = await reader.tool(name, args);
        expect(r.isError, name).toBe(true);
        expect(r.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'clients:write' } });
      }
      expect((await reader.tool('list_clients', {})).isError).toBe(false);
    } finally {
      await reader.close();
    }
    expect(footprint(t, s.orgId)).toMatchObject({ clients: 1, keys: 0 });
  });
});
