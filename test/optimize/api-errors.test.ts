import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structured } from '../helpers/mcp.ts';
import { iso } from '../../src/clock.ts';
import {
  call,
  drain,
  footprint,
  getOptimization,
  idem,
  ISO_MS,
  listOptimizations,
  mcpClient,
  OPT_ID,
  pause,
  postOptimize,
  resume,
  started,
  startWorld,
  type ErrorBody,
  type Optimization,
  type World,
  expectSameError,
  tool,
} from './helpers/harness.ts';
import { KEYWORD } from './helpers/web.ts';

/**
 * Every status and error code of start_optimization, get_optimization and list_optimizations (docs/api.md §1,
 * §2 and §3.3), over REST and over MCP; a failure answers the same body on both (MCP: isError + structuredContent).
 */

let w: World;
const DAY = 24 * 3_600_000;

beforeAll(async () => {
  w = await startWorld({ competitors: ['/c/1'] });
});
afterAll(async () => {
  await w?.close();
});

const body = (extra: Record<string, unknown> = {}) => ({
  url: w.web.url('/target/thorough'),
  keyword: KEYWORD,
  ...extra,
});

describe('start_optimization: POST /optimize', () => {
  it('answers 202 with the queued record (REST) and the same record shape over MCP', async () => {
    const { orgId, clientId, key } = await w.t.tenant('agency');
    const r = await postOptimize(w.t, key, body({ client_id: clientId }), idem());
    expect(r.status).toBe(202);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.headers.get('x-ratelimit-limit')).toBe('120');
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    const o = r.body;
    expect(o.optimization_id).toMatch(OPT_ID);
    expect(o).toMatchObject({
      status: 'queued',
      client_id: clientId,
      url: w.web.url('/target/thorough'),
      keyword: KEYWORD,
      language: 'en-US',
      started_at: null,
      completed_at: null,
      error: null,
      billing_status: 'reserved',
    });
    expect(o.created_at).toMatch(ISO_MS);
    expect(o.created_at).toBe(iso(w.t.clock.now()));
    expect('result' in o).toBe(false);
    const f = await footprint(w.t, orgId);
    expect(f).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    expect(f.ledger[0]).toMatchObject({
      resource_kind: 'optimization',
      resource_id: o.optimization_id,
      units: 4,
      state: 'reserved',
      operation: 'optimize_page',
    });

    const m = await tool(w.t, key, 'start_optimization', { ...body({ language: 'en-GB' }), idempotency_key: idem() });
    expect(m.isError).toBeFalsy();
    const mo = structured<Optimization>(m);
    expect(mo.optimization_id).toMatch(OPT_ID);
    expect(mo).toMatchObject({
      status: 'queued',
      language: 'en-GB',
      client_id: null,
      started_at: null,
      completed_at: null,
      error: null,
      billing_status: 'reserved',
    });
    await drain(w.t);
  });

  it('B.16 answers 400 idempotency_key_required without the key, the same over MCP, and creates nothing', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const r = await postOptimize(w.t, key, body());
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('idempotency_key_required');
    expectSameError(await tool(w.t, key, 'start_optimization', body()), r);
    expect(await footprint(w.t, orgId)).toMatchObject({ optimizations: 0, reservations: 0, runs: 0, keys: 0 });
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a missing url', { keyword: KEYWORD }, 'url'],
    ['a missing keyword', { url: 'https://example.com/' }, 'keyword'],
    ['a blank keyword', { url: 'https://example.com/', keyword: '   ' }, 'keyword'],
    ['a url that is not a URL', { url: 'not a url', keyword: KEYWORD }, 'url'],
    ['a relative url', { url: '/emergency-plumbing/', keyword: KEYWORD }, 'url'],
    ['a url of another scheme', { url: 'ftp://example.com/page', keyword: KEYWORD }, 'url'],
    ['a url that is not a string', { url: 42, keyword: KEYWORD }, 'url'],
    [
      'a language over 10 characters',
      { url: 'https://example.com/', keyword: KEYWORD, language: 'en-US-posix' },
      'language',
    ],
    [
      'a client_id that is not a UUID',
      { url: 'https://example.com/', keyword: KEYWORD, client_id: 'client-1' },
      'client_id',
    ],
  ];
  for (const [what, input, field] of invalid) {
    it(`answers 400 validation_error naming ${field} for ${what}, over REST and MCP, before anything exists`, async () => {
      const { orgId, key } = await w.t.tenant('agency');
      const r = await postOptimize(w.t, key, input, idem());
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      const fields = r.body.error.details!.fields as { path: string; message: string }[];
      expect(fields.map((f) => f.path)).toContain(field);
      expect(r.body.error.message).toContain(field);
      expectSameError(await tool(w.t, key, 'start_optimization', { ...input, idempotency_key: idem() }), r);
      expect(await footprint(w.t, orgId)).toMatchObject({ optimizations: 0, reservations: 0, runs: 0, keys: 0 });
    });
  }

  it('answers 400 validation_error naming unknown body fields (REST); MCP answers unknown arguments with JSON-RPC -32602', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const r = await postOptimize(w.t, key, body({ priority: 'high' }), idem());
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details!.fields).toEqual([{ path: 'priority', message: 'Unknown field.' }]);
    const c = await mcpClient(w.t, key);
    try {
      await expect(
        c.client.callTool({
          name: 'start_optimization',
          arguments: { ...body({ priority: 'high' }), idempotency_key: idem() },
        }),
      ).rejects.toMatchObject({ code: -32602 });
    } finally {
      await c.close();
    }
    expect(await footprint(w.t, orgId)).toMatchObject({ optimizations: 0, reservations: 0, runs: 0, keys: 0 });
  });

  it('answers 400 validation_error for a body that is not a JSON object', async () => {
    const { key } = await w.t.tenant('agency');
    for (const rawBody of ['{"url": ', '[1,2]', '"text"']) {
      const r = await call<ErrorBody>(w.t, 'POST', '/optimize', {
        key,
        rawBody,
        headers: { 'content-type': 'application/json', 'idempotency-key': idem() },
      });
      expect(r.status, rawBody).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
    const form = await call<ErrorBody>(w.t, 'POST', '/optimize', {
      key,
      rawBody: 'url=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': idem() },
    });
    expect(form.status).toBe(400);
    expect(form.body.error.code).toBe('validation_error');
  });

  it('answers 401 unauthorized without a valid key (REST), and MCP refuses the session', async () => {
    const none = await postOptimize(w.t, null, body(), idem());
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const bad = await postOptimize(w.t, 'aapi_notARealKeyAtAll0000000000000000', body(), idem());
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('unauthorized');
    for (const path of ['/optimizations', '/optimizations/opt_01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
      const g = await call<ErrorBody>(w.t, 'GET', path);
      expect(g.status).toBe(401);
      expect(g.body.error.code).toBe('unauthorized');
    }
    await expect(mcpClient(w.t, null)).rejects.toThrow(/401|nauthori/);
    expect(await w.t.db.selectFrom('optimizations').select('id').where('url', '=', 'none').execute()).toHaveLength(0);
  });

  it('A.5 answers 403 forbidden naming the scope: optimize:run to start, optimize:read to read (granted by optimize:run)', async () => {
    const { orgId, key: all } = await w.t.tenant('agency');
    const existing = await started(w.t, all, body());
    const reporter = (await w.t.key(orgId, ['reporter:read'])).apiKey;
    const reader = (await w.t.key(orgId, ['optimize:read'])).apiKey;
    const runner = (await w.t.key(orgId, ['optimize:run'])).apiKey;
    const before = await footprint(w.t, orgId);

    const denied = await postOptimize(w.t, reporter, body(), idem());
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'optimize:run' } });
    expectSameError(await tool(w.t, reporter, 'start_optimization', { ...body(), idempotency_key: idem() }), denied);
    const readerStart = await postOptimize(w.t, reader, body(), idem());
    expect(readerStart.status).toBe(403);
    expect(readerStart.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'optimize:run' } });

    const list = await listOptimizations(w.t, reporter);
    expect(list.status).toBe(403);
    expect(list.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'optimize:read' } });
    expectSameError(await tool(w.t, reporter, 'list_optimizations', {}), list);
    const one = await getOptimization(w.t, reporter, existing.optimization_id);
    expect(one.status).toBe(403);
    expect(one.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'optimize:read' } });
    expectSameError(await tool(w.t, reporter, 'get_optimization', { optimization_id: existing.optimization_id }), one);

    for (const k of [reader, runner]) {
      expect((await getOptimization(w.t, k, existing.optimization_id, { view: 'status' })).status).toBe(200);
      expect((await listOptimizations(w.t, k)).status).toBe(200);
    }
    expect((await postOptimize(w.t, runner, body(), idem())).status).toBe(202);
    const after = await footprint(w.t, orgId);
    expect(after.optimizations).toBe(before.optimizations + 1);
    await drain(w.t);
  });

  it('answers 403 plan_required without an active subscription, while reads keep working', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const existing = await started(w.t, key, body());
    await drain(w.t);
    await w.t.db
      .updateTable('organisations')
      .set({ subscription_status: 'inactive' })
      .where('id', '=', orgId)
      .execute();
    const before = await footprint(w.t, orgId);
    const r = await postOptimize(w.t, key, body(), idem());
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('plan_required');
    expectSameError(await tool(w.t, key, 'start_optimization', { ...body(), idempotency_key: idem() }), r);
    const got = await getOptimization(w.t, key, existing.optimization_id, { view: 'summary' });
    expect(got.status).toBe(200);
    expect(got.body.status).toBe('complete');
    const list = await listOptimizations(w.t, key);
    expect(list.status).toBe(200);
    expect(list.body.data.map((o) => o.optimization_id)).toEqual([existing.optimization_id]);
    const viaMcp = await tool(w.t, key, 'get_optimization', { optimization_id: existing.optimization_id });
    expect(viaMcp.isError).toBeFalsy();
    expect(await footprint(w.t, orgId)).toMatchObject({
      optimizations: before.optimizations,
      reservations: before.reservations,
      runs: before.runs,
      keys: before.keys,
    });
  });

  it('A.7 answers 404 for a client_id of another organisation: nothing reserved, created or stored under the key', async () => {
    const a = await w.t.tenant('agency');
    const b = await w.t.tenant('agency');
    const key = idem('foreign-client');
    const r = await postOptimize(w.t, a.key, body({ client_id: b.clientId }), key);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    const missing = await postOptimize(w.t, a.key, body({ client_id: '6f1c2a8e-3b1d-4c55-9a7e-2f0d9c1b5e44' }), idem());
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(r.body);
    expectSameError(
      await tool(w.t, a.key, 'start_optimization', { ...body({ client_id: b.clientId }), idempotency_key: idem() }),
      r,
    );
    expect(await footprint(w.t, a.orgId)).toMatchObject({ optimizations: 0, reservations: 0, runs: 0, keys: 0 });
    expect(await footprint(w.t, b.orgId)).toMatchObject({ optimizations: 0, reservations: 0, runs: 0, keys: 0 });
    // The refused attempt stored nothing: the same key with the caller's own client is a fresh request.
    const ok = await postOptimize(w.t, a.key, body({ client_id: a.clientId }), key);
    expect(ok.status).toBe(202);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    const listed = await listOptimizations(w.t, a.key, { client_id: b.clientId });
    expect(listed.status).toBe(404);
    expect(listed.body.error.code).toBe('not_found');
    await drain(w.t);
  });

  it('A.6 answers 404 for an optimization of another organisation, with the body of a truly missing id', async () => {
    const a = await w.t.tenant('agency');
    const b = await w.t.tenant('agency');
    const theirs = await started(w.t, b.key, body());
    const foreign = await getOptimization(w.t, a.key, theirs.optimization_id);
    const missing = await getOptimization(w.t, a.key, 'opt_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    const garbage = await getOptimization(w.t, a.key, 'nope');
    for (const r of [foreign, missing, garbage]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect(foreign.body).toEqual(missing.body);
    expect(garbage.body).toEqual(missing.body);
    expect(foreign.headers.get('x-request-id')).not.toBe(missing.headers.get('x-request-id'));
    expectSameError(await tool(w.t, a.key, 'get_optimization', { optimization_id: theirs.optimization_id }), foreign);
    expect((await getOptimization(w.t, b.key, theirs.optimization_id)).status).toBe(200);
    await drain(w.t);
  });

  it('B.13 answers 422 idempotency_key_reused for the same key with another request, REST and MCP', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('reused');
    const first = await started(w.t, key, body(), k);
    const before = await footprint(w.t, orgId);
    const r = await postOptimize(w.t, key, body({ keyword: 'emergency plumber cost' }), k);
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('idempotency_key_reused');
    expectSameError(await tool(w.t, key, 'start_optimization', { ...body({ language: 'de' }), idempotency_key: k }), r);
    const after = await footprint(w.t, orgId);
    expect(after).toMatchObject({
      optimizations: before.optimizations,
      reservations: before.reservations,
      runs: before.runs,
      keys: before.keys,
    });
    expect(after.rows.map((o) => o.id)).toEqual([first.optimization_id]);
    await drain(w.t);
  });

  it('answers 429 usage_limit_reached when the starter pool is full, naming the window and its recovery, until it recovers (B.22: nothing stored)', async () => {
    const { orgId, key } = await w.t.tenant('starter');
    await pause(w.t);
    try {
      const missing = { url: w.web.url('/target/missing'), keyword: KEYWORD };
      const first = w.t.clock.now();
      // starter: 100 units per 24 h; an optimization reserves 4.
      for (let i = 0; i < 25; i++) {
        expect((await postOptimize(w.t, key, missing, idem('fill'))).status).toBe(202);
        w.t.clock.advance(1_000);
      }
      const before = await footprint(w.t, orgId);
      expect(before.reservations).toBe(25);
      const k = idem('over');
      const r = await postOptimize(w.t, key, missing, k);
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe('usage_limit_reached');
      const recovers = first + DAY;
      expect(r.body.error.details).toMatchObject({ window: '24h', recovers_at: iso(recovers) });
      expect(Number(r.headers.get('retry-after'))).toBe(Math.ceil((recovers - w.t.clock.now()) / 1000));
      expectSameError(await tool(w.t, key, 'start_optimization', { ...missing, idempotency_key: idem() }), r);
      expect(await footprint(w.t, orgId)).toMatchObject({ optimizations: 25, reservations: 25, runs: 25, keys: 25 });

      w.t.clock.set(recovers - 1);
      const still = await postOptimize(w.t, key, missing, k);
      expect(still.status).toBe(429);
      w.t.clock.set(recovers);
      // B.22: the refused attempts stored nothing under the key, so it now proceeds.
      const ok = await postOptimize(w.t, key, missing, k);
      expect(ok.status).toBe(202);
      expect(ok.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      await resume(w.t);
    }
    await drain(w.t);
  });
});

describe('reads: limits and query validation', () => {
  it('answers 400 validation_error for a page size over 100, unknown views, statuses and wait_seconds out of 0-30 (REST and MCP)', async () => {
    const { key } = await w.t.tenant('agency');
    const o = await started(w.t, key, body());
    const bad: Array<[() => ReturnType<typeof call<ErrorBody>>, string, Record<string, unknown>, string]> = [
      [() => listOptimizations(w.t, key, { limit: 101 }), 'list_optimizations', { limit: 101 }, 'limit'],
      [() => listOptimizations(w.t, key, { limit: 0 }), 'list_optimizations', { limit: 0 }, 'limit'],
      [() => listOptimizations(w.t, key, { offset: -1 }), 'list_optimizations', { offset: -1 }, 'offset'],
      [() => listOptimizations(w.t, key, { status: 'done' }), 'list_optimizations', { status: 'done' }, 'status'],
      [() => listOptimizations(w.t, key, { client_id: 'x' }), 'list_optimizations', { client_id: 'x' }, 'client_id'],
      [
        () => getOptimization(w.t, key, o.optimization_id, { view: 'everything' }),
        'get_optimization',
        { optimization_id: o.optimization_id, view: 'everything' },
        'view',
      ],
      [
        () => getOptimization(w.t, key, o.optimization_id, { wait_seconds: 31 }),
        'get_optimization',
        { optimization_id: o.optimization_id, wait_seconds: 31 },
        'wait_seconds',
      ],
      [
        () => getOptimization(w.t, key, o.optimization_id, { wait_seconds: -1 }),
        'get_optimization',
        { optimization_id: o.optimization_id, wait_seconds: -1 },
        'wait_seconds',
      ],
      [
        () => getOptimization(w.t, key, o.optimization_id, { wait_seconds: 'soon' }),
        'get_optimization',
        { optimization_id: o.optimization_id, wait_seconds: 'soon' },
        'wait_seconds',
      ],
    ];
    for (const [rest, name, args, field] of bad) {
      const r = await rest();
      expect(r.status, `${name} ${field}`).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect((r.body.error.details!.fields as { path: string }[]).map((f) => f.path)).toContain(field);
      expectSameError(await tool(w.t, key, name, args), r);
    }
    const unknownQuery = await listOptimizations(w.t, key, { sort: 'oldest' });
    expect(unknownQuery.status).toBe(400);
    expect(unknownQuery.body.error.code).toBe('validation_error');
    const c = await mcpClient(w.t, key);
    try {
      await expect(
        c.client.callTool({ name: 'list_optimizations', arguments: { sort: 'oldest' } }),
      ).rejects.toMatchObject({ code: -32602 });
    } finally {
      await c.close();
    }
    expect((await listOptimizations(w.t, key, { limit: 100 })).status).toBe(200);
    expect((await getOptimization(w.t, key, o.optimization_id, { wait_seconds: 0 })).status).toBe(200);
    await drain(w.t);
  });
});
