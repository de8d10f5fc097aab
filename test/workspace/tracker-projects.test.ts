import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  expectFieldError,
  footprint,
  hints,
  idem,
  ISO,
  mcpSession,
  projectRows,
  rest,
  UUID,
  type Any,
  type Rest,
} from './fixture.ts';

/**
 * create_tracker_project (POST /reporter/projects), update_tracker_project (PATCH /reporter/projects/:project_id) and
 * delete_tracker_project (DELETE /reporter/projects/:project_id) over REST and MCP, with the CLI's rules and limits.
 */

const DOMAIN = 'rapidflowplumbing.com';
const KEYWORDS = ['emergency plumber', 'water heater repair'];

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function tenant() {
  const s = await t.tenant('agency');
  return { ...s, call: rest(t, s.key) };
}

const BODY = (clientId: string, extra: Record<string, unknown> = {}) => ({
  client_id: clientId,
  name: 'RapidFlow visibility',
  domain: DOMAIN,
  queries: KEYWORDS,
  ...extra,
});

async function createProject(call: Rest, clientId: string, extra: Record<string, unknown> = {}): Promise<Any> {
  const r = await call('POST', '/reporter/projects', { body: BODY(clientId, extra) });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

describe('create_tracker_project over REST', () => {
  it('creates a project (201) with the defaults the CLI applies; get_tracker_project and list_tracker_projects read it back', async () => {
    const s = await tenant();
    const r = await s.call('POST', '/reporter/projects', { body: BODY(s.clientId) });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toEqual({
      project_id: expect.stringMatching(UUID),
      client_id: s.clientId,
      name: 'RapidFlow visibility',
      domain: DOMAIN,
      brand_names: [DOMAIN],
      query_kind: 'keywords',
      queries: KEYWORDS,
      query_count: 2,
      platforms: ['organic'],
      location: null,
      language: 'en',
      created_at: expect.stringMatching(ISO),
      updated_at: r.body.created_at,
    });
    const got = await s.call('GET', `/reporter/projects/${r.body.project_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ ...r.body, latest_run: null });
    const listed = await s.call('GET', '/reporter/projects', { query: { client_id: s.clientId } });
    expect(listed.body.data.map((p: Any) => p.project_id)).toEqual([r.body.project_id]);
  });

  it('normalises as the CLI does: the domain to its host, repeated queries and names once, platforms in scan order', async () => {
    const s = await tenant();
    const p = await createProject(s.call, s.clientId, {
      domain: 'https://www.RapidFlowPlumbing.com/contact',
      queries: ['  emergency   plumber ', 'Emergency Plumber', 'leak detection'],
      query_kind: 'prompts',
      brand_names: ['RapidFlow', 'rapidflow', 'RapidFlow Plumbing'],
      platforms: ['claude', 'organic', 'chatgpt', 'organic'],
      location: 'Austin, Texas, United States',
      language: 'en-US',
    });
    expect(p).toMatchObject({
      domain: DOMAIN,
      queries: ['Emergency Plumber', 'leak detection'],
      query_count: 2,
      query_kind: 'prompts',
      brand_names: ['rapidflow', 'RapidFlow Plumbing'],
      platforms: ['organic', 'chatgpt', 'claude'],
      location: 'Austin, Texas, United States',
      language: 'en-US',
    });
  });

  it('replays the same key and body (201, Idempotent-Replayed, same body, nothing new); another body with the key is 422', async () => {
    const s = await tenant();
    const first = await s.call('POST', '/reporter/projects', { body: BODY(s.clientId), idem: 'proj-1' });
    expect(first.status).toBe(201);
    const after = footprint(t, s.orgId);
    const replay = await s.call('POST', '/reporter/projects', { body: BODY(s.clientId), idem: 'proj-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    // An omitted default and the default written out are the same request.
    const explicit = await s.call('POST', '/reporter/projects', {
      body: BODY(s.clientId, { platforms: ['organic'], language: 'en', query_kind: 'keywords', location: null }),
      idem: 'proj-1',
    });
    expect(explicit.body).toEqual(first.body);
    const other = await s.call('POST', '/reporter/projects', {
      body: BODY(s.clientId, { name: 'Other' }),
      idem: 'proj-1',
    });
    expect([other.status, other.body.error.code]).toEqual([422, 'idempotency_key_reused']);
    expect(footprint(t, s.orgId)).toEqual(after);
    expect(after.projects).toBe(1);
  });

  it('without an Idempotency-Key is 400 idempotency_key_required; nothing is created', async () => {
    const s = await tenant();
    const r = await s.call('POST', '/reporter/projects', { body: BODY(s.clientId), idem: null });
    expect([r.status, r.body.error.code]).toEqual([400, 'idempotency_key_required']);
    expect(footprint(t, s.orgId)).toMatchObject({ projects: 0, keys: 0 });
  });

  const many = (n: number, prefix = 'q') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const BAD: Array<[string, Record<string, unknown>, string]> = [
    ['a client_id that is no UUID', { client_id: 'client-1' }, 'client_id'],
    ['no name', { name: undefined }, 'name'],
    ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name'],
    ['a name with a tab', { name: 'a\tb' }, 'name'],
    ['no domain', { domain: undefined }, 'domain'],
    ['a domain that is no host name', { domain: 'localhost' }, 'domain'],
    ['an IP address as domain', { domain: '10.0.0.1' }, 'domain'],
    ['a domain of 254 characters', { domain: `${'d'.repeat(250)}.com` }, 'domain'],
    ['no queries', { queries: undefined }, 'queries'],
    ['an empty query list', { queries: [] }, 'queries'],
    ['501 queries', { queries: many(501) }, 'queries'],
    ['a query of 201 characters', { queries: ['ok', 'q'.repeat(201)] }, 'queries.1'],
    ['a blank query', { queries: ['ok', '  '] }, 'queries.1'],
    ['a query with a control character', { queries: ['a\u0085b'] }, 'queries.0'],
    ['an unknown query kind', { query_kind: 'questions' }, 'query_kind'],
    ['21 brand names', { brand_names: many(21, 'brand') }, 'brand_names'],
    ['a brand name of 201 characters', { brand_names: ['b'.repeat(201)] }, 'brand_names.0'],
    ['an unknown platform', { platforms: ['organic', 'bing'] }, 'platforms.1'],
    ['no platform', { platforms: [] }, 'platforms'],
    ['a location of 201 characters', { location: 'l'.repeat(201) }, 'location'],
    ['a language that is no code', { language: 'english' }, 'language'],
    ['a language with a control character', { language: 'e\u0000n' }, 'language'],
  ];

  it.each(BAD)('%s is a 400 invalid_input naming the field; nothing is created', async (_what, extra, field) => {
    const s = await tenant();
    const r = await s.call('POST', '/reporter/projects', { body: BODY(s.clientId, extra) });
    expectFieldError(r, 'invalid_input', field);
    expect(footprint(t, s.orgId)).toMatchObject({ projects: 0, keys: 0 });
  });

  it('500 distinct queries and 20 brand names are accepted (the limits themselves)', async () => {
    const s = await tenant();
    const p = await createProject(s.call, s.clientId, { queries: many(500), brand_names: many(20, 'brand') });
    expect([p.query_count, p.brand_names.length]).toEqual([500, 20]);
  });

  it('an unknown field is a 400 naming it', async () => {
    const s = await tenant();
    for (const field of ['keywords', 'org_id', 'project_id', 'spi']) {
      const r = await s.call('POST', '/reporter/projects', { body: BODY(s.clientId, { [field]: ['x'] }) });
      expectFieldError(r, 'invalid_input', field);
      expect(r.body.error.details.fields).toEqual([{ path: field, message: 'Unknown field.' }]);
    }
    expect(footprint(t, s.orgId).projects).toBe(0);
  });

  it("another organisation's client (or a missing one) is 404 not_found naming client_id; nothing is created or stored under the key", async () => {
    const s = await tenant();
    const other = await tenant();
    const foreign = await s.call('POST', '/reporter/projects', { body: BODY(other.clientId), idem: 'foreign-1' });
    const missing = await s.call('POST', '/reporter/projects', { body: BODY(randomUUID()) });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(foreign.body.error).toMatchObject({ code: 'not_found', details: { field: 'client_id' } });
    expect(footprint(t, s.orgId)).toMatchObject({ projects: 0, keys: 0 });
    expect(footprint(t, other.orgId).projects).toBe(0);
    // The key was not spent: a corrected request with it is new.
    const fixed = await s.call('POST', '/reporter/projects', { body: BODY(s.clientId), idem: 'foreign-1' });
    expect(fixed.status).toBe(201);
  });
});

describe('scopes', () => {
  it('create, update and delete need reporter:write (403 forbidden otherwise, even with reporter:run); reporter:write reads but does not scan', async () => {
    const s = await tenant();
    const p = await createProject(s.call, s.clientId);
    const without = rest(
      t,
      (
        await t.key(
          s.orgId,
          SCOPES.filter((x) => x !== 'reporter:write'),
        )
      ).apiKey,
    );
    const path = `/reporter/projects/${p.project_id}`;
    for (const [method, where, body] of [
      ['POST', '/reporter/projects', BODY(s.clientId)],
      ['PATCH', path, { name: 'x' }],
      ['DELETE', path, { name: p.name }],
    ] as const) {
      const r = await without(method, where, { body });
      expect(r.status, `${method} ${where}`).toBe(403);
      expect(r.body.error).toEqual({
        code: 'forbidden',
        message: 'This API key lacks the scope reporter:write.',
        details: { required_scope: 'reporter:write' },
      });
    }
    expect(footprint(t, s.orgId).projects).toBe(1);

    const writer = rest(t, (await t.key(s.orgId, ['reporter:write'])).apiKey);
    expect((await writer('GET', path)).status).toBe(200);
    expect((await writer('GET', '/reporter/projects')).status).toBe(200);
    const scan = await writer('POST', `${path}/scans`);
    expect(scan.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'reporter:run' } });
    expect((await writer('PATCH', path, { body: { name: 'Renamed' } })).status).toBe(200);
  });
});

describe('update_tracker_project over REST', () => {
  it('changes only the fields sent; location null clears it; default brand names follow a new domain; the result is validated whole', async () => {
    const s = await tenant();
    const p = await createProject(s.call, s.clientId, { location: 'Austin, TX', platforms: ['organic', 'chatgpt'] });
    const path = `/reporter/projects/${p.project_id}`;
    const renamed = await s.call('PATCH', path, { body: { name: 'Renamed' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toEqual({ ...p, name: 'Renamed', updated_at: expect.stringMatching(ISO) });
    expect(renamed.body.updated_at > p.updated_at).toBe(true);

    const moved = await s.call('PATCH', path, {
      body: { domain: 'www.flowfast.example.com', location: null, queries: ['drain cleaning'], query_kind: 'prompts' },
    });
    expect(moved.body).toMatchObject({
      name: 'Renamed',
      domain: 'flowfast.example.com',
      brand_names: ['flowfast.example.com'],
      location: null,
      queries: ['drain cleaning'],
      query_count: 1,
      query_kind: 'prompts',
      platforms: ['organic', 'chatgpt'],
      created_at: p.created_at,
    });
    const named = await s.call('PATCH', path, { body: { brand_names: ['FlowFast'], language: 'de' } });
    expect(named.body).toMatchObject({ brand_names: ['FlowFast'], language: 'de', domain: 'flowfast.example.com' });
    const got = await s.call('GET', path);
    expect(got.body).toMatchObject({
      name: 'Renamed',
      brand_names: ['FlowFast'],
      location: null,
      queries: ['drain cleaning'],
    });
  });

  it('an empty body, an unknown field, a null for a setting that cannot be cleared or a bad value is 400 naming the field; nothing changes', async () => {
    const s = await tenant();
    const p = await createProject(s.call, s.clientId);
    const path = `/reporter/projects/${p.project_id}`;
    expectFieldError(await s.call('PATCH', path, { body: {} }), 'invalid_input', '(body)');
    expectFieldError(
      await s.call('PATCH', path, { body: { name: 'x', client_id: s.clientId } }),
      'invalid_input',
      'client_id',
    );
    expectFieldError(await s.call('PATCH', path, { body: { name: null } }), 'invalid_input', 'name');
    expectFieldError(await s.call('PATCH', path, { body: { queries: null } }), 'invalid_input', 'queries');
    expectFieldError(await s.call('PATCH', path, { body: { queries: [] } }), 'invalid_input', 'queries');
    expectFieldError(await s.call('PATCH', path, { body: { platforms: ['bing'] } }), 'invalid_input', 'platforms.0');
    expectFieldError(await s.call('PATCH', path, { body: { domain: 'localhost' } }), 'invalid_input', 'domain');
    expectFieldError(
      await s.call('PATCH', '/reporter/projects/p-1', { body: { name: 'x' } }),
      'invalid_input',
      'project_id',
    );
    expect((await s.call('GET', path)).body).toMatchObject({ name: p.name, updated_at: p.updated_at });
  });

  it("another organisation's project is 404 exactly like a missing one (update, delete and get alike); it stays as it was", async () => {
    const s = await tenant();
    const other = await tenant();
    const theirs = await createProject(other.call, other.clientId);
    const path = `/reporter/projects/${theirs.project_id}`;
    const gone = `/reporter/projects/${randomUUID()}`;
    for (const [method, body] of [
      ['PATCH', { name: 'Hijacked' }],
      ['DELETE', { name: theirs.name }],
      ['GET', undefined],
    ] as const) {
      const foreign = await s.call(method, path, { body });
      const missing = await s.call(method, gone, { body });
      expect(foreign.status, method).toBe(404);
      expect(foreign.body, method).toEqual(missing.body);
      expect(foreign.body.error.code).toBe('not_found');
    }
    expect((await other.call('GET', path)).body).toMatchObject({ name: theirs.name, updated_at: theirs.updated_at });
    expect(footprint(t, s.orgId).keys).toBe(0);
  });

  it('an optional Idempotency-Key replays the first answer without re-applying it', async () => {
    const s = await tenant();
    const p = await createProject(s.call, s.clientId);
    const path = `/reporter/projects/${p.project_id}`;
    const first = await s.call('PATCH', path, { body: { name: 'First' }, idem: 'pu-1' });
    await s.call('PATCH', path, { body: { name: 'Later' }, idem: null });
    const replay = await s.call('PATCH', path, { body: { name: 'First' }, idem: 'pu-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await s.call('GET', path)).body.name).toBe('Later');
  });
});

describe('delete_tracker_project over REST, and a created project in use', () => {
  it('a created project scans like any other; delete needs its exact name, is refused while a scan is in flight, then removes the project with everything measured for it', async () => {
    const s = await tenant();
    const p = await createProject(s.call, s.clientId, { brand_names: ['RapidFlow Plumbing'] });
    const path = `/reporter/projects/${p.project_id}`;

    const queued = await s.call('POST', `${path}/scans`);
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body).toMatchObject({ project_id: p.project_id, status: 'queued', platforms: ['organic'], units: 2 });
    const busy = await s.call('DELETE', path, { body: { name: p.name } });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({
      code: 'invalid_state',
      // Queued, or running when the runner woke for it already.
      details: { active_scans: [{ run_id: queued.body.run_id, status: expect.stringMatching(/^(queued|running)$/) }] },
    });

    await t.engine.runner.runUntilIdle();
    const read = await s.call('GET', path);
    expect(read.body.latest_run).toMatchObject({ run_id: queued.body.run_id, status: 'complete' });
    expect(read.body.spi.platforms.map((x: Any) => x.platform)).toEqual(['organic']);
    const before = projectRows(t, p.project_id, [queued.body.run_id]);
    expect(before).toEqual({
      tracker_projects: 1,
      tracker_scans: 1,
      tracker_latest: 1,
      tracker_results: 2,
      tracker_platform_summaries: 1,
    });

    for (const name of ['rapidflow visibility', 'RapidFlow visibility ', '']) {
      const wrong = await s.call('DELETE', path, { body: { name } });
      if (name === '') expectFieldError(wrong, 'invalid_input', 'name');
      else {
        expect(wrong.status, name).toBe(409);
        expect(wrong.body.error).toMatchObject({ code: 'confirmation_mismatch', details: { field: 'name' } });
      }
    }
    expect(projectRows(t, p.project_id, [queued.body.run_id])).toEqual(before);
    const noKey = await s.call('DELETE', path, { body: { name: p.name }, idem: null });
    expect([noKey.status, noKey.body.error.code]).toEqual([400, 'idempotency_key_required']);
    expectFieldError(await s.call('DELETE', path, { body: {} }), 'invalid_input', 'name');

    const deleted = await s.call('DELETE', path, { body: { name: p.name }, idem: 'del-1' });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({
      deleted: true,
      project_id: p.project_id,
      name: p.name,
      scans_deleted: 1,
      results_deleted: 2,
      summaries_deleted: 1,
    });
    expect(projectRows(t, p.project_id, [queued.body.run_id])).toEqual({
      tracker_projects: 0,
      tracker_scans: 0,
      tracker_latest: 0,
      tracker_results: 0,
      tracker_platform_summaries: 0,
    });
    // What stays is the usage history: the charged units still count in the windows.
    const ledger = t.app.database.raw
      .prepare("SELECT state, units FROM usage_ledger WHERE resource_kind = 'tracker_scan' AND resource_id = ?")
      .all(queued.body.run_id);
    expect(ledger).toEqual([{ state: 'charged', units: 2 }]);

    const replay = await s.call('DELETE', path, { body: { name: p.name }, idem: 'del-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(deleted.body);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'x' }],
      ['DELETE', { name: p.name }],
      ['POST', undefined],
    ] as const) {
      const after = await s.call(method, method === 'POST' ? `${path}/scans` : path, { body });
      expect([after.status, after.body.error.code], method).toEqual([404, 'not_found']);
    }
    expect((await s.call('GET', '/reporter/projects')).body.data).toEqual([]);
  });
});

describe('tracker project tools over MCP', () => {
  it('lists the three tools with annotations and described inputs; create and delete require idempotency_key', async () => {
    const s = await tenant();
    const mcp = await mcpSession(t, s.key);
    try {
      const { tools } = await mcp.client.listTools();
      const byName = new Map(tools.map((x) => [x.name, x]));
      const required = (name: string) => ((byName.get(name)!.inputSchema.required ?? []) as string[]).sort();
      expect(required('create_tracker_project')).toEqual(['client_id', 'domain', 'idempotency_key', 'name', 'queries']);
      expect(required('update_tracker_project')).toEqual(['project_id']);
      expect(required('delete_tracker_project')).toEqual(['idempotency_key', 'name', 'project_id']);
      const annotations = (name: string) => hints(byName.get(name)!);
      const write = { readOnlyHint: false, idempotentHint: true, openWorldHint: false };
      expect(annotations('create_tracker_project')).toEqual({ ...write, destructiveHint: false });
      expect(annotations('update_tracker_project')).toEqual({ ...write, destructiveHint: true });
      expect(annotations('delete_tracker_project')).toEqual({ ...write, destructiveHint: true });
      for (const name of ['create_tracker_project', 'update_tracker_project', 'delete_tracker_project'])
        for (const [field, schema] of Object.entries(byName.get(name)!.inputSchema.properties ?? {}))
          expect((schema as { description?: string }).description, `${name}.${field}`).toBeTruthy();
    } finally {
      await mcp.close();
    }
  });

  it('creates, replays, reads, updates, scans and deletes through the tools; failures are the REST error bodies', async () => {
    const s = await tenant();
    const mcp = await mcpSession(t, s.key);
    try {
      const key = idem();
      const args = { ...BODY(s.clientId), idempotency_key: key };
      const created = await mcp.tool('create_tracker_project', args);
      expect(created.isError, created.text).toBe(false);
      expect(created.body).toMatchObject({ client_id: s.clientId, queries: KEYWORDS, platforms: ['organic'] });
      const replay = await mcp.tool('create_tracker_project', args);
      expect(replay.body).toEqual(created.body);
      expect(replay.meta).toMatchObject({ idempotent_replayed: true });
      expect(footprint(t, s.orgId).projects).toBe(1);
      const reused = await mcp.tool('create_tracker_project', { ...args, name: 'Other' });
      expect([reused.isError, reused.body.error.code]).toEqual([true, 'idempotency_key_reused']);
      const noKey = await mcp.tool('create_tracker_project', BODY(s.clientId));
      expect([noKey.isError, noKey.body.error.code]).toEqual([true, 'idempotency_key_required']);

      const id = created.body.project_id;
      const got = await mcp.tool('get_tracker_project', { project_id: id });
      expect(got.body).toMatchObject({ project_id: id, latest_run: null });
      const updated = await mcp.tool('update_tracker_project', { project_id: id, location: 'Austin, TX' });
      expect(updated.body).toMatchObject({ location: 'Austin, TX', name: created.body.name });
      const cleared = await mcp.tool('update_tracker_project', { project_id: id, location: null });
      expect(cleared.body.location).toBeNull();

      const scan = await mcp.tool('start_tracker_scan', { project_id: id });
      expect(scan.isError, scan.text).toBe(false);
      await t.engine.runner.runUntilIdle();
      expect((await mcp.tool('get_tracker_project', { project_id: id })).body.latest_run.status).toBe('complete');

      const viaRest = await s.call('POST', '/reporter/projects', { body: BODY(s.clientId, { platforms: ['bing'] }) });
      const viaMcp = await mcp.tool('create_tracker_project', {
        ...BODY(s.clientId, { platforms: ['bing'] }),
        idempotency_key: idem(),
      });
      expect(viaMcp.body).toEqual(viaRest.body);
      expectFieldError(viaMcp, 'invalid_input', 'platforms.0');

      const mismatch = await mcp.tool('delete_tracker_project', {
        project_id: id,
        name: 'nope',
        idempotency_key: idem(),
      });
      expect([mismatch.isError, mismatch.body.error.code]).toEqual([true, 'confirmation_mismatch']);
      const deleted = await mcp.tool('delete_tracker_project', {
        project_id: id,
        name: created.body.name,
        idempotency_key: idem(),
      });
      expect(deleted.body).toEqual({
        deleted: true,
        project_id: id,
        name: created.body.name,
        scans_deleted: 1,
        results_deleted: 2,
        summaries_deleted: 1,
      });
      const after = await mcp.tool('get_tracker_project', { project_id: id });
      expect([after.isError, after.body.error.code]).toEqual([true, 'not_found']);
      const foreign = await t.tenant('agency');
      const theirs = await mcp.tool('update_tracker_project', { project_id: id, name: 'x' });
      expect(theirs.body.error.code).toBe('not_found');
      const elsewhere = await mcp.tool('create_tracker_project', {
        ...BODY(foreign.clientId),
        idempotency_key: idem(),
      });
      expect(elsewhere.body.error).toMatchObject({ code: 'not_found', details: { field: 'client_id' } });
    } finally {
      await mcp.close();
    }
  });

  it('an unknown argument is a JSON-RPC invalid-params error naming it; a key without reporter:write gets forbidden', async () => {
    const s = await tenant();
    const mcp = await mcpSession(t, s.key);
    try {
      const err = await mcp.rpcError('create_tracker_project', {
        ...BODY(s.clientId),
        keywords: ['x'],
        idempotency_key: idem(),
      });
      expect(err.code).toBe(-32602);
      expect(err.data).toEqual({
        error: {
          code: 'invalid_input',
          message: 'Invalid input: keywords.',
          details: { fields: [{ path: 'keywords', message: 'Unknown field.' }] },
        },
      });
    } finally {
      await mcp.close();
    }
    const p = await createProject(s.call, s.clientId);
    const reader = await mcpSession(t, (await t.key(s.orgId, ['reporter:run', 'clients:write'])).apiKey);
    try {
      for (const [name, args] of [
        ['create_tracker_project', { ...BODY(s.clientId), idempotency_key: idem() }],
        ['update_tracker_project', { project_id: p.project_id, name: 'x' }],
        ['delete_tracker_project', { project_id: p.project_id, name: p.name, idempotency_key: idem() }],
      ] as const) {
        const r = await reader.tool(name, args);
        expect(r.isError, name).toBe(true);
        expect(r.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'reporter:write' } });
      }
      expect((await reader.tool('get_tracker_project', { project_id: p.project_id })).isError).toBe(false);
    } finally {
      await reader.close();
    }
    expect(footprint(t, s.orgId).projects).toBe(1);
  });
});
