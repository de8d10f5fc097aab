import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { caller, footprint, itemsPath, listsPath, type Any, type Caller } from './fixture.ts';

/** docs/reliability.md B.11-B.22 through the five prospect mutations (REST, and MCP for the key field). */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function setup(plan: 'agency' | 'starter' = 'agency') {
  const tenant = await t.tenant(plan);
  const c = caller(t, tenant.key);
  const list = (await c.createList(tenant.clientId, { name: 'Idem' })).body;
  return { ...tenant, c, list };
}

/** A request with headers exactly as given (repeated names included), through node:http. */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body: string,
): Promise<{ status: number; body: Any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(`/api/agent/v1${path}`, t.url), { method, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Any }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

type Mutation = { name: string; run: (c: Caller, idem: string | null) => ReturnType<Caller['call']> };

/** The five mutations against one tenant's list, each with a body that succeeds the first time. */
async function mutations(s: Awaited<ReturnType<typeof setup>>): Promise<Mutation[]> {
  const item = (await s.c.save(s.clientId, s.list.list_id, { url: 'https://target.example.com/' })).body;
  const doomed = (await s.c.createList(s.clientId, { name: 'Doomed' })).body;
  return [
    { name: 'create_prospect_list', run: (c, k) => c.createList(s.clientId, { name: 'Created' }, k) },
    {
      name: 'save_prospect',
      run: (c, k) => c.save(s.clientId, s.list.list_id, { url: 'https://new.example.com/' }, k),
    },
    {
      name: 'update_prospect',
      run: (c, k) => c.update(s.clientId, s.list.list_id, item.item_id, { status: 'won' }, k),
    },
    { name: 'delete_prospect', run: (c, k) => c.deleteItem(s.clientId, s.list.list_id, item.url, k) },
    { name: 'delete_prospect_list', run: (c, k) => c.deleteList(s.clientId, doomed.list_id, 'Doomed', k) },
  ];
}

describe('idempotency of prospect mutations (docs/reliability.md B)', () => {
  it('B.11 the same key and body twice answer the first result again (same status, Idempotent-Replayed) and do the work once', async () => {
    const s = await setup();
    for (const m of await mutations(s)) {
      const before = await footprint(t, s.orgId);
      const first = await m.run(s.c, `b11-${m.name}`);
      expect(first.status, m.name).toBeLessThan(300);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const afterFirst = await footprint(t, s.orgId);
      const second = await m.run(s.c, `b11-${m.name}`);
      expect(second.status, m.name).toBe(first.status);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.body).toEqual(first.body);
      expect(await footprint(t, s.orgId), m.name).toEqual(afterFirst);
      expect(afterFirst.keys - before.keys).toBe(1);
    }
  });

  it('B.11 a replay answers the stored result and never re-applies it (a later change survives)', async () => {
    const s = await setup();
    const item = (await s.c.save(s.clientId, s.list.list_id, { url: 'https://example.com/' })).body;
    const won = await s.c.update(
      s.clientId,
      s.list.list_id,
      item.item_id,
      { status: 'won', notes: 'signed' },
      'b11-won',
    );
    await s.c.update(s.clientId, s.list.list_id, item.item_id, { status: 'passed', notes: 'fell through' });
    const replay = await s.c.update(
      s.clientId,
      s.list.list_id,
      item.item_id,
      { status: 'won', notes: 'signed' },
      'b11-won',
    );
    expect(replay.body).toEqual(won.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const now = (await s.c.items(s.clientId, s.list.list_id)).body.data[0]!;
    expect(now).toMatchObject({ status: 'passed', notes: 'fell through' });
    expect((await s.c.lists(s.clientId)).body.data[0]!.status_breakdown).toMatchObject({ passed: 1, won: 0 });
  });

  it('B.11 over MCP: the same idempotency_key returns the same list and item', async () => {
    const s = await setup();
    const mcp = await connectHttpClient(t.url, s.key);
    const call = async (name: string, args: Record<string, unknown>) =>
      structured<Any>(await mcp.client.callTool({ name, arguments: args }));
    const a = await call('create_prospect_list', { client_id: s.clientId, name: 'M', idempotency_key: 'b11-mcp-list' });
    const b = await call('create_prospect_list', { client_id: s.clientId, name: 'M', idempotency_key: 'b11-mcp-list' });
    expect(b).toEqual(a);
    const i1 = await call('save_prospect', {
      client_id: s.clientId,
      list_id: a.list_id,
      url: 'https://m.example.com/',
      idempotency_key: 'b11-mcp-item',
    });
    const i2 = await call('save_prospect', {
      client_id: s.clientId,
      list_id: a.list_id,
      url: 'https://m.example.com/',
      idempotency_key: 'b11-mcp-item',
    });
    expect(i2).toEqual(i1);
    expect(await footprint(t, s.orgId)).toMatchObject({ lists: 2, items: 1 });
    await mcp.close();
  });

  it('B.12 keys in another order and other whitespace are the same request: replay', async () => {
    const s = await setup();
    const path = itemsPath(s.clientId, s.list.list_id);
    const headers = { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', 'idempotency-key': 'b12' };
    const a = await rawRequest(
      'POST',
      path,
      headers,
      '{"url":"https://example.com/","status":"contacted","notes":"hi"}',
    );
    const b = await rawRequest(
      'POST',
      path,
      headers,
      '{\n  "notes" : "hi",\n\t"status":"contacted",   "url" : "https://example.com/"\n}\n',
    );
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
    expect(await footprint(t, s.orgId)).toMatchObject({ items: 1, keys: 2 });
  });

  it('B.13 the same key with another body: 422 idempotency_key_reused, nothing new', async () => {
    const s = await setup();
    await s.c.save(s.clientId, s.list.list_id, { url: 'https://a.example.com/' }, 'b13');
    const before = await footprint(t, s.orgId);
    const r = await s.c.save(s.clientId, s.list.list_id, { url: 'https://b.example.com/' }, 'b13');
    expect([r.status, r.body.error.code]).toEqual([422, 'idempotency_key_reused']);
    const renamed = await s.c.createList(s.clientId, { name: 'Idem 2' }, 'b13-list');
    expect(renamed.status).toBe(201);
    const r2 = await s.c.createList(s.clientId, { name: 'Idem 3' }, 'b13-list');
    expect(r2.status).toBe(422);
    expect(await footprint(t, s.orgId)).toEqual({ ...before, lists: before.lists + 1, keys: before.keys + 1 });
  });

  it('B.14 the same key on another operation, or on the same operation for another list: 422', async () => {
    const s = await setup();
    const other = (await s.c.createList(s.clientId, { name: 'Other' }, 'b14')).body;
    const cross = await s.c.save(s.clientId, s.list.list_id, { url: 'https://a.example.com/' }, 'b14');
    expect([cross.status, cross.body.error.code]).toEqual([422, 'idempotency_key_reused']);
    await s.c.save(s.clientId, s.list.list_id, { url: 'https://a.example.com/' }, 'b14-save');
    const otherList = await s.c.save(s.clientId, other.list_id, { url: 'https://a.example.com/' }, 'b14-save');
    expect([otherList.status, otherList.body.error.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await footprint(t, s.orgId)).toMatchObject({ lists: 2, items: 1 });
  });

  it('B.15 20 concurrent identical requests with one key: one execution, the others replay', async () => {
    const s = await setup();
    const saves = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.c.save(s.clientId, s.list.list_id, { url: 'https://burst.example.com/' }, 'b15-save'),
      ),
    );
    expect(saves.every((r) => r.status === 201)).toBe(true);
    expect(saves.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(saves.map((r) => r.body.item_id)).size).toBe(1);
    const lists = await Promise.all(
      Array.from({ length: 20 }, () => s.c.createList(s.clientId, { name: 'Burst' }, 'b15-list')),
    );
    expect(lists.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(lists.map((r) => r.body.list_id)).size).toBe(1);
    expect(await footprint(t, s.orgId)).toEqual({ lists: 2, items: 1, keys: 3 });
  });

  it('B.16 every mutation without Idempotency-Key: 400 idempotency_key_required, nothing created', async () => {
    const s = await setup();
    const ms = await mutations(s);
    const before = await footprint(t, s.orgId);
    for (const m of ms) {
      const r = await m.run(s.c, null);
      expect([r.status, r.body.error.code], m.name).toEqual([400, 'idempotency_key_required']);
    }
    expect(await footprint(t, s.orgId)).toEqual(before);
    expect((await s.c.lists(s.clientId)).body.data.map((l) => l.name).sort()).toEqual(['Doomed', 'Idem']);
  });

  it('B.17 (optional keys do not apply: every prospect mutation requires one) two keyless calls are both refused, nothing twice', async () => {
    const s = await setup();
    const before = await footprint(t, s.orgId);
    const a = await s.c.createList(s.clientId, { name: 'Twice' }, null);
    const b = await s.c.createList(s.clientId, { name: 'Twice' }, null);
    expect([a.status, b.status]).toEqual([400, 400]);
    expect(await footprint(t, s.orgId)).toEqual(before);
  });

  it('B.18 empty, 256-character, space-containing and repeated keys: 400 invalid_input, nothing created', async () => {
    const s = await setup();
    const before = await footprint(t, s.orgId);
    for (const bad of ['', 'x'.repeat(256), 'a b', 'k\u00e9y']) {
      const r = await s.c.save(s.clientId, s.list.list_id, { url: 'https://a.example.com/' }, bad);
      expect([r.status, r.body.error.code], JSON.stringify(bad)).toEqual([400, 'invalid_input']);
      expect(r.body.error.details?.fields).toEqual([expect.objectContaining({ path: 'Idempotency-Key' })]);
    }
    for (const pair of [
      ['k1', 'k2'],
      ['k1', 'k1'],
    ]) {
      const r = await rawRequest(
        'POST',
        listsPath(s.clientId),
        { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', 'idempotency-key': pair },
        '{"name":"x"}',
      );
      expect([r.status, r.body.error.code], pair.join()).toEqual([400, 'invalid_input']);
    }
    expect(await footprint(t, s.orgId)).toEqual(before);
    expect(
      (await s.c.save(s.clientId, s.list.list_id, { url: 'https://a.example.com/' }, 'y'.repeat(255))).status,
    ).toBe(201);
  });

  it('B.19 the structured-field string "abc-123" and the bare abc-123 are the same key', async () => {
    const s = await setup();
    const a = await s.c.save(s.clientId, s.list.list_id, { url: 'https://a.example.com/' }, '"abc-123"');
    const b = await s.c.save(s.clientId, s.list.list_id, { url: 'https://a.example.com/' }, 'abc-123');
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.item_id).toBe(a.body.item_id);
  });

  it("B.20 the same key in another organisation is processed independently; B never sees A's stored body", async () => {
    const a = await setup();
    const b = await setup();
    const ra = await a.c.createList(a.clientId, { name: 'secret-of-a' }, 'shared');
    const probe = await b.c.createList(a.clientId, { name: 'secret-of-a' }, 'shared');
    expect([probe.status, probe.body.error.code]).toEqual([404, 'not_found']);
    expect(probe.text).not.toContain(ra.body.list_id);
    const rb = await b.c.createList(b.clientId, { name: 'b-own' }, 'shared');
    expect(rb.status).toBe(201);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(rb.body).toMatchObject({ name: 'b-own', client_id: b.clientId });
    expect(rb.body.list_id).not.toBe(ra.body.list_id);
    expect((await a.c.createList(a.clientId, { name: 'secret-of-a' }, 'shared')).body.list_id).toBe(ra.body.list_id);
  });

  it('B.21 a first attempt refused (400 validation, 404 list) is not stored; the corrected request with the same key is processed', async () => {
    const s = await setup();
    const bad = await s.c.save(s.clientId, s.list.list_id, { url: 'http://192.168.1.1/' }, 'b21');
    expect(bad.status).toBe(400);
    const wrongList = await s.c.save(
      s.clientId,
      '00000000-0000-4000-8000-000000000000',
      { url: 'https://ok.example.com/' },
      'b21',
    );
    expect(wrongList.status).toBe(404);
    const conflict = await s.c.deleteList(s.clientId, s.list.list_id, 'wrong name', 'b21-del');
    expect(conflict.status).toBe(409);
    expect(await footprint(t, s.orgId)).toMatchObject({ items: 0, keys: 1 });
    const ok = await s.c.save(s.clientId, s.list.list_id, { url: 'https://ok.example.com/' }, 'b21');
    expect([ok.status, ok.headers.get('idempotent-replayed')]).toEqual([201, null]);
    const del = await s.c.deleteList(s.clientId, s.list.list_id, 'Idem', 'b21-del');
    expect(del.status).toBe(200);
  });

  it('B.22 a first attempt refused by the rate limit or as unauthorised is not stored; the later call is processed', async () => {
    const s = await setup('starter');
    const expired = await t.key(s.orgId, SCOPES, t.clock.now() - 1);
    const denied = await t.request<Any>('POST', itemsPath(s.clientId, s.list.list_id), {
      key: expired.apiKey,
      body: { url: 'https://a.example.com/' },
      headers: { 'idempotency-key': 'b22-auth' },
    });
    expect(denied.status).toBe(401);
    // Use up the starter key's 30 requests per minute without moving the clock.
    let limited = await t.request<Any>('GET', listsPath(s.clientId), { key: s.key });
    while (limited.status !== 429) limited = await t.request<Any>('GET', listsPath(s.clientId), { key: s.key });
    const refused = await t.request<Any>('POST', itemsPath(s.clientId, s.list.list_id), {
      key: s.key,
      body: { url: 'https://a.example.com/' },
      headers: { 'idempotency-key': 'b22-rate' },
    });
    expect([refused.status, refused.body.error.code]).toEqual([429, 'rate_limit_exceeded']);
    expect(await footprint(t, s.orgId)).toMatchObject({ items: 0, keys: 1 });
    t.clock.advance(60_000);
    for (const k of ['b22-rate', 'b22-auth']) {
      const r = await s.c.save(s.clientId, s.list.list_id, { url: `https://${k}.example.com/` }, k);
      expect([r.status, r.headers.get('idempotent-replayed')], k).toEqual([201, null]);
    }
  });
});
