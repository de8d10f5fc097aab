import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { caller, footprint, itemPath, listsPath, type Caller } from './fixture.ts';

/** Prospect routes over REST: scopes, subscription, tenancy (docs/reliability.md A.6, A.7) and the OpenAPI entries. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function setup() {
  const tenant = await t.tenant('agency');
  const c = caller(t, tenant.key);
  return { ...tenant, c };
}

async function newList(c: Caller, clientId: string, body: Record<string, unknown> = { name: 'Guest posts' }) {
  const r = await c.createList(clientId, body);
  expect(r.status).toBe(201);
  return r.body;
}

describe('scopes and subscription', () => {
  it('prospector:read reads but cannot write (403 forbidden naming prospector:write); prospector:write does both', async () => {
    const { orgId, clientId, c } = await setup();
    const list = await newList(c, clientId, { name: 'Scoped' });
    const item = (await c.save(clientId, list.list_id, { url: 'https://example.com/' })).body;
    const reader = caller(t, (await t.key(orgId, ['prospector:read'])).apiKey);
    expect((await reader.lists(clientId)).status).toBe(200);
    expect((await reader.items(clientId, list.list_id)).status).toBe(200);
    const writes = [
      reader.createList(clientId, { name: 'x' }),
      reader.save(clientId, list.list_id, { url: 'https://new.example.com/' }),
      reader.update(clientId, list.list_id, item.item_id, { status: 'won' }),
      reader.deleteItem(clientId, list.list_id, item.url),
      reader.deleteList(clientId, list.list_id, 'Scoped'),
    ];
    for (const r of await Promise.all(writes)) {
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'prospector:write' } });
    }
    const writer = caller(t, (await t.key(orgId, ['prospector:write'])).apiKey);
    expect((await writer.lists(clientId)).status).toBe(200);
    expect((await writer.save(clientId, list.list_id, { url: 'https://w.example.com/' })).status).toBe(201);
    const other = caller(t, (await t.key(orgId, ['reporter:read', 'optimize:run'])).apiKey);
    const denied = await other.lists(clientId);
    expect([denied.status, denied.body.error.code, denied.body.error.details?.required_scope]).toEqual([
      403,
      'forbidden',
      'prospector:read',
    ]);
    expect(await footprint(t, orgId)).toMatchObject({ lists: 1, items: 2 });
  });

  it('works without an active subscription (outreach lists record state; no plan gate)', async () => {
    const { clientId, key } = await t.tenant('starter', 'inactive');
    const c = caller(t, key);
    const list = await newList(c, clientId);
    expect((await c.save(clientId, list.list_id, { url: 'https://example.com/' })).status).toBe(201);
  });

  it('answers 401 without a key', async () => {
    const { clientId } = await setup();
    const r = await t.request<{ error: { code: string } }>('GET', listsPath(clientId));
    expect([r.status, r.body.error.code]).toEqual([401, 'unauthorized']);
  });
});

describe('tenancy (docs/reliability.md A.6, A.7)', () => {
  it('A.6 a list, item or client of another organisation answers 404 with the body of a truly missing id', async () => {
    const mine = await setup();
    const theirs = await setup();
    const theirList = await newList(theirs.c, theirs.clientId, { name: 'Theirs' });
    const theirItem = (await theirs.c.save(theirs.clientId, theirList.list_id, { url: 'https://theirs.example.com/' }))
      .body;
    const myList = await newList(mine.c, mine.clientId, { name: 'Mine' });
    const myItem = (await mine.c.save(mine.clientId, myList.list_id, { url: 'https://mine.example.com/' })).body;
    const c = mine.c;
    const missing = randomUUID();
    const pairs: [string, () => ReturnType<Caller['call']>, () => ReturnType<Caller['call']>][] = [
      ['lists of foreign client', () => c.lists(theirs.clientId), () => c.lists(missing)],
      [
        'create in foreign client',
        () => c.createList(theirs.clientId, { name: 'x' }),
        () => c.createList(missing, { name: 'x' }),
      ],
      [
        'items of foreign list (own client)',
        () => c.items(mine.clientId, theirList.list_id),
        () => c.items(mine.clientId, missing),
      ],
      [
        'items of foreign list (its client)',
        () => c.items(theirs.clientId, theirList.list_id),
        () => c.items(missing, theirList.list_id),
      ],
      [
        'save into foreign list',
        () => c.save(mine.clientId, theirList.list_id, { url: 'https://x.example.com/' }),
        () => c.save(mine.clientId, missing, { url: 'https://x.example.com/' }),
      ],
      [
        'update foreign item in own list',
        () => c.update(mine.clientId, myList.list_id, theirItem.item_id, { status: 'won' }),
        () => c.update(mine.clientId, myList.list_id, missing, { status: 'won' }),
      ],
      [
        'update foreign item in its list',
        () => c.update(mine.clientId, theirList.list_id, theirItem.item_id, { status: 'won' }),
        () => c.update(mine.clientId, missing, theirItem.item_id, { status: 'won' }),
      ],
      [
        'delete foreign item',
        () => c.deleteItem(mine.clientId, theirList.list_id, theirItem.url),
        () => c.deleteItem(mine.clientId, missing, theirItem.url),
      ],
      [
        'delete foreign list',
        () => c.deleteList(mine.clientId, theirList.list_id, 'Theirs'),
        () => c.deleteList(mine.clientId, missing, 'Theirs'),
      ],
    ];
    for (const [label, foreign, absent] of pairs) {
      const a = await foreign();
      const b = await absent();
      expect([a.status, a.body.error.code], label).toEqual([404, 'not_found']);
      expect(a.body, label).toEqual(b.body);
      expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    }
    // A list of another client of the same organisation is not reachable under the wrong client either.
    const sibling = await t.client(mine.orgId);
    const cross = await c.items(sibling.id, myList.list_id);
    expect([cross.status, cross.body.error.code]).toEqual([404, 'not_found']);
    const crossItem = await c.update(sibling.id, myList.list_id, myItem.item_id, { status: 'won' });
    expect(crossItem.status).toBe(404);
    // Nothing of theirs changed, nothing of mine was created.
    expect((await theirs.c.items(theirs.clientId, theirList.list_id)).body.data).toEqual([
      expect.objectContaining({ item_id: theirItem.item_id, status: 'identified' }),
    ]);
    expect(await footprint(t, mine.orgId)).toMatchObject({ lists: 1, items: 1 });
    expect(await footprint(t, theirs.orgId)).toMatchObject({ lists: 1, items: 1 });
  });

  it('A.7 a client_id of another organisation in the path: 404 not_found, nothing created, no key stored', async () => {
    const mine = await setup();
    const theirs = await setup();
    const before = await footprint(t, mine.orgId);
    const r = await mine.c.createList(theirs.clientId, { name: 'Sneaky' }, 'a7-key');
    expect([r.status, r.body.error.code]).toEqual([404, 'not_found']);
    const theirList = await newList(theirs.c, theirs.clientId);
    const s = await mine.c.save(theirs.clientId, theirList.list_id, { url: 'https://x.example.com/' }, 'a7-save');
    expect(s.status).toBe(404);
    expect(await footprint(t, mine.orgId)).toEqual(before);
    expect(await footprint(t, theirs.orgId)).toMatchObject({ lists: 1, items: 0 });
    // The key was not stored: the same key now creates in the caller's own client.
    expect((await mine.c.createList(mine.clientId, { name: 'Sneaky' }, 'a7-key')).status).toBe(201);
  });
});

describe('routes and OpenAPI', () => {
  it('documents the seven routes with their scopes and the Idempotency-Key requirement', async () => {
    const r = await t.request<{
      paths: Record<
        string,
        Record<
          string,
          { operationId: string; 'x-required-scope'?: string; parameters: { name: string; required: boolean }[] }
        >
      >;
    }>('GET', '/openapi.json');
    const ops = Object.values(r.body.paths)
      .flatMap((p) => Object.values(p))
      .filter((o) => o['x-required-scope']?.startsWith('prospector:'));
    // The prospector's operations as src/tools/registry.ts lists them.
    const prospector = OPERATIONS.filter((op) => op.family === 'prospector').map((op) => op.name);
    expect(prospector).toHaveLength(7);
    expect(ops.map((o) => o.operationId).sort()).toEqual(prospector.sort());
    for (const o of ops) {
      const idem = o.parameters.find((p) => p.name === 'Idempotency-Key');
      if (o.operationId.startsWith('list_')) expect(idem).toBeUndefined();
      else expect(idem?.required, o.operationId).toBe(true);
    }
    expect(
      r.body.paths['/api/agent/v1/clients/{client_id}/prospect-lists/{list_id}/items/{item_id}']?.patch?.operationId,
    ).toBe('update_prospect');
    expect(itemPath('a', 'b', 'c')).toBe('/clients/a/prospect-lists/b/items/c');
  });
});
