import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { caller, countersDrift, footprint, itemsPath, listPath, listsPath, type Caller } from './fixture.ts';

/** Every prospect route over REST: success shapes, ordering, counters, validation, and confirmations (scopes and tenancy: tenancy.test.ts). */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ZEROS = { identified: 0, contacted: 0, in_discussion: 0, won: 0, passed: 0 };

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

describe('create_prospect_list (POST /clients/:client_id/prospect-lists)', () => {
  it('creates a list: 201, snake_case fields, zero counts for every status, ISO timestamps', async () => {
    const { orgId, clientId, c } = await setup();
    const r = await c.createList(clientId, { name: '  Resource pages  ', opportunity_type: 'resource_page' });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.body).toEqual({
      list_id: expect.stringMatching(UUID),
      client_id: clientId,
      name: 'Resource pages',
      opportunity_type: 'resource_page',
      item_count: 0,
      status_breakdown: ZEROS,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect((await c.createList(clientId, { name: 'No type' })).body.opportunity_type).toBeNull();
    expect(await footprint(t, orgId)).toMatchObject({ lists: 2, keys: 2 });
  });

  it('the same Idempotency-Key returns the same list instead of creating another', async () => {
    const { orgId, clientId, c } = await setup();
    const a = await c.createList(clientId, { name: 'Once' }, 'create-once');
    const b = await c.createList(clientId, { name: 'Once' }, 'create-once');
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    expect((await footprint(t, orgId)).lists).toBe(1);
    // Names need not be unique: another key makes another list.
    const other = await c.createList(clientId, { name: 'Once' });
    expect(other.body.list_id).not.toBe(a.body.list_id);
  });

  it('refuses bad input with 400 invalid_input naming the field, and creates nothing', async () => {
    const { orgId, clientId, c } = await setup();
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'a\u0000b' }, 'name'],
      [{ name: 'ok', opportunity_type: 'cold_email' }, 'opportunity_type'],
      [{ name: 7 }, 'name'],
      [{ name: 'ok', extra: 1 }, 'extra'],
    ];
    for (const [body, path] of cases) {
      const r = await c.call('POST', listsPath(clientId), { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('invalid_input');
      expect(r.body.error.details?.fields).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    const notUuid = await c.call('POST', listsPath('not-a-uuid'), { body: { name: 'x' } });
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.error.details?.fields).toEqual([expect.objectContaining({ path: 'client_id' })]);
    expect(await footprint(t, orgId)).toEqual({ lists: 0, items: 0, keys: 0 });
  });

  it('refuses a body that is not JSON, or not an object, with 400 invalid_input', async () => {
    const { clientId, key } = await setup();
    const headers = { 'idempotency-key': 'bad-json' };
    const broken = await t.request<{ error: { code: string } }>('POST', listsPath(clientId), {
      key,
      rawBody: '{"name":',
      headers: { ...headers, 'content-type': 'application/json' },
    });
    expect([broken.status, broken.body.error.code]).toEqual([400, 'invalid_input']);
    const text = await t.request<{ error: { code: string } }>('POST', listsPath(clientId), {
      key,
      rawBody: 'name=x',
      headers: { ...headers, 'content-type': 'text/plain' },
    });
    expect([text.status, text.body.error.code]).toEqual([400, 'invalid_input']);
    const array = await t.request<{ error: { code: string } }>('POST', listsPath(clientId), {
      key,
      body: [{ name: 'x' }],
      headers,
    });
    expect([array.status, array.body.error.code]).toEqual([400, 'invalid_input']);
  });
});

describe('list_prospect_lists (GET /clients/:client_id/prospect-lists)', () => {
  it('lists newest-updated first, with item_count and status_breakdown; an item change moves its list to the top', async () => {
    const { clientId, c } = await setup();
    const a = await newList(c, clientId, { name: 'A' });
    const b = await newList(c, clientId, { name: 'B' });
    const d = await newList(c, clientId, { name: 'C' });
    let r = await c.lists(clientId);
    expect(r.status).toBe(200);
    expect(r.body.data.map((l) => l.name)).toEqual(['C', 'B', 'A']);
    await c.save(clientId, a.list_id, { url: 'https://example.com/a', status: 'won' });
    await c.save(clientId, a.list_id, { url: 'https://example.com/b' });
    r = await c.lists(clientId);
    expect(r.body.data.map((l) => l.name)).toEqual(['A', 'C', 'B']);
    expect(r.body.data[0]).toMatchObject({ item_count: 2, status_breakdown: { ...ZEROS, won: 1, identified: 1 } });
    expect(r.body.data[1]).toMatchObject({ list_id: d.list_id, item_count: 0, status_breakdown: ZEROS });
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, total: 3, has_more: false });
    expect(b.list_id).toBe(r.body.data[2]!.list_id);
  });

  it("pages with limit and offset (at most 100; 101 is a 400); another client's lists are not listed", async () => {
    const { orgId, clientId, c } = await setup();
    const other = await t.client(orgId);
    for (let i = 0; i < 5; i++) await newList(c, clientId, { name: `L${i}` });
    await newList(c, other.id, { name: 'elsewhere' });
    const page = await c.lists(clientId, { limit: 2, offset: 2 });
    expect(page.body.data.map((l) => l.name)).toEqual(['L2', 'L1']);
    expect(page.body.pagination).toEqual({ limit: 2, offset: 2, total: 5, has_more: true });
    const last = await c.lists(clientId, { limit: 2, offset: 4 });
    expect(last.body.pagination).toEqual({ limit: 2, offset: 4, total: 5, has_more: false });
    expect((await c.lists(clientId, { limit: 100 })).status).toBe(200);
    const badQueries: Record<string, string | number>[] = [
      { limit: 101 },
      { limit: 0 },
      { offset: -1 },
      { limit: 'x' },
      { sort: 'name' },
    ];
    for (const query of badQueries) {
      const bad = await c.lists(clientId, query);
      expect(bad.status, JSON.stringify(query)).toBe(400);
      expect(bad.body.error.code).toBe('invalid_input');
    }
  });
});

describe('save_prospect (POST …/prospect-lists/:list_id/items)', () => {
  it("saves a new item: 201 with the canonical url, defaults and the list's opportunity type; the list moves", async () => {
    const { clientId, c } = await setup();
    const list = await newList(c, clientId, { name: 'Guest', opportunity_type: 'guest_post' });
    const r = await c.save(clientId, list.list_id, {
      url: ' HTTPS://WWW.Example.COM:443/Write-For-Us/?utm_source=x#form ',
      target_name: 'Example Blog',
      contact_path: 'editor via /contact',
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      item_id: expect.stringMatching(UUID),
      list_id: list.list_id,
      client_id: clientId,
      url: 'https://www.example.com/Write-For-Us/',
      domain: 'example.com',
      target_name: 'Example Blog',
      opportunity_type: 'guest_post',
      status: 'identified',
      notes: null,
      contact_path: 'editor via /contact',
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      already_saved: false,
    });
    const explicit = await c.save(clientId, list.list_id, {
      url: 'https://other.example.org/',
      opportunity_type: null,
      status: 'contacted',
      notes: 'line one\nline two',
    });
    expect(explicit.body).toMatchObject({
      opportunity_type: null,
      status: 'contacted',
      notes: 'line one\nline two',
      target_name: null,
      contact_path: null,
    });
    const lists = await c.lists(clientId);
    expect(lists.body.data[0]).toMatchObject({
      item_count: 2,
      status_breakdown: { ...ZEROS, identified: 1, contacted: 1 },
      updated_at: explicit.body.created_at,
    });
  });

  it('a canonical variant already in the list: 200 with the existing item, unchanged, and the list does not move', async () => {
    const { orgId, clientId, c } = await setup();
    const list = await newList(c, clientId);
    const first = await c.save(clientId, list.list_id, {
      url: 'https://example.com/page',
      notes: 'original',
      status: 'won',
    });
    const before = (await c.lists(clientId)).body.data[0]!;
    const again = await c.save(clientId, list.list_id, {
      url: 'http://www.example.com/page/#x',
      notes: 'overwrite?',
      status: 'passed',
      target_name: 'New name',
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const { already_saved: _a, ...firstItem } = first.body;
    const { already_saved, ...againItem } = again.body;
    expect(already_saved).toBe(true);
    expect(againItem).toEqual(firstItem);
    const after = (await c.lists(clientId)).body.data[0]!;
    expect(after).toEqual(before);
    expect((await footprint(t, orgId)).items).toBe(1);
  });

  it('refuses bad input with 400 invalid_input naming the field, and saves nothing', async () => {
    const { orgId, clientId, c } = await setup();
    const list = await newList(c, clientId);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'url'],
      [{ url: '' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'example.com/no-scheme' }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2048)}` }, 'url'],
      [{ url: 'https://example.com/', status: 'ghosted' }, 'status'],
      [{ url: 'https://example.com/', opportunity_type: 'spam' }, 'opportunity_type'],
      [{ url: 'https://example.com/', target_name: 'x'.repeat(201) }, 'target_name'],
      [{ url: 'https://example.com/', notes: 'x'.repeat(10_001) }, 'notes'],
      [{ url: 'https://example.com/', notes: 'bell\u0007' }, 'notes'],
      [{ url: 'https://example.com/', contact_path: 'a\nb' }, 'contact_path'],
      [{ url: 'https://example.com/', item_id: randomUUID() }, 'item_id'],
    ];
    for (const [body, path] of cases) {
      const r = await c.save(clientId, list.list_id, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error.code).toBe('invalid_input');
      expect(r.body.error.details?.fields).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    expect(await footprint(t, orgId)).toMatchObject({ items: 0, keys: 1 });
  });
});

describe('list_prospects (GET …/prospect-lists/:list_id/items)', () => {
  it('lists items newest first, filters by status, and pages with totals from the list counters', async () => {
    const { clientId, c } = await setup();
    const list = await newList(c, clientId);
    const statuses = ['identified', 'won', 'identified', 'passed', 'identified'];
    for (const [i, status] of statuses.entries())
      await c.save(clientId, list.list_id, { url: `https://site${i}.example.com/`, status });
    const all = await c.items(clientId, list.list_id);
    expect(all.status).toBe(200);
    expect(all.body.data.map((i) => i.url)).toEqual([4, 3, 2, 1, 0].map((i) => `https://site${i}.example.com/`));
    expect(all.body.pagination).toEqual({ limit: 20, offset: 0, total: 5, has_more: false });
    const identified = await c.items(clientId, list.list_id, { status: 'identified', limit: 2 });
    expect(identified.body.data.map((i) => i.url)).toEqual([
      'https://site4.example.com/',
      'https://site2.example.com/',
    ]);
    expect(identified.body.pagination).toEqual({ limit: 2, offset: 0, total: 3, has_more: true });
    const contacted = await c.items(clientId, list.list_id, { status: 'contacted' });
    expect(contacted.body).toEqual({ data: [], pagination: { limit: 20, offset: 0, total: 0, has_more: false } });
    const badQueries: Record<string, string | number>[] = [{ status: 'ghosted' }, { limit: 101 }, { page: 2 }];
    for (const query of badQueries) {
      const bad = await c.items(clientId, list.list_id, query);
      expect([bad.status, bad.body.error.code], JSON.stringify(query)).toEqual([400, 'invalid_input']);
    }
  });
});

describe('update_prospect (PATCH …/items/:item_id)', () => {
  it("moves status between any two values, keeping the counters exact, and moves the list's updated_at", async () => {
    const { clientId, c } = await setup();
    const list = await newList(c, clientId);
    const item = (await c.save(clientId, list.list_id, { url: 'https://example.com/' })).body;
    const statuses = ['identified', 'contacted', 'in_discussion', 'won', 'passed'];
    let current = 'identified';
    // Every ordered pair of distinct statuses, visited as one walk: identified→contacted, …, passed→won, …
    const walk: string[] = [];
    for (const from of statuses) for (const to of statuses) if (from !== to) walk.push(from, to);
    for (const to of walk) {
      if (to === current) continue;
      const before = (await c.lists(clientId)).body.data[0]!.updated_at;
      const r = await c.update(clientId, list.list_id, item.item_id, { status: to });
      expect(r.status, `${current}→${to}`).toBe(200);
      expect(r.body.status).toBe(to);
      const row = (await c.lists(clientId)).body.data[0]!;
      expect(row.status_breakdown).toEqual({ ...ZEROS, [to]: 1 });
      expect(row.updated_at > before).toBe(true);
      expect(row.updated_at).toBe(r.body.updated_at);
      current = to;
    }
    expect(await countersDrift(t)).toEqual([]);
  });

  it('sets notes, clears them with notes: null, and leaves status alone when only notes are sent', async () => {
    const { clientId, c } = await setup();
    const list = await newList(c, clientId);
    const item = (
      await c.save(clientId, list.list_id, { url: 'https://example.com/', status: 'contacted', notes: 'first' })
    ).body;
    const set = await c.update(clientId, list.list_id, item.item_id, { notes: 'Replied; wants a draft by Friday.' });
    expect(set.body).toMatchObject({ status: 'contacted', notes: 'Replied; wants a draft by Friday.' });
    expect(set.body.updated_at > item.updated_at).toBe(true);
    const both = await c.update(clientId, list.list_id, item.item_id, { status: 'won', notes: 'Published.' });
    expect(both.body).toMatchObject({ status: 'won', notes: 'Published.' });
    const cleared = await c.update(clientId, list.list_id, item.item_id, { notes: null });
    expect(cleared.body).toMatchObject({ status: 'won', notes: null });
    const listed = await c.items(clientId, list.list_id);
    expect(listed.body.data[0]).toMatchObject({ notes: null, status: 'won' });
  });

  it('a call that changes nothing answers the item as it is and moves no timestamp', async () => {
    const { clientId, c } = await setup();
    const list = await newList(c, clientId);
    const item = (await c.save(clientId, list.list_id, { url: 'https://example.com/', notes: 'n' })).body;
    const listBefore = (await c.lists(clientId)).body.data[0]!;
    const same = await c.update(clientId, list.list_id, item.item_id, { status: 'identified', notes: 'n' });
    expect(same.status).toBe(200);
    const { already_saved: _s, ...stored } = item;
    expect(same.body).toEqual(stored);
    expect((await c.lists(clientId)).body.data[0]).toEqual(listBefore);
  });

  it('needs at least one of status or notes; refuses bad values; unknown item 404', async () => {
    const { orgId, clientId, c } = await setup();
    const list = await newList(c, clientId);
    const item = (await c.save(clientId, list.list_id, { url: 'https://example.com/' })).body;
    const keysBefore = (await footprint(t, orgId)).keys;
    const empty = await c.update(clientId, list.list_id, item.item_id, {});
    expect([empty.status, empty.body.error.code]).toEqual([400, 'invalid_input']);
    expect(empty.body.error.details?.fields).toEqual([
      { path: '(body)', message: 'Send at least one of status or notes.' },
    ]);
    for (const body of [{ status: 'ghosted' }, { notes: 5 }, { status: null }, { url: 'https://x.example/' }]) {
      const r = await c.update(clientId, list.list_id, item.item_id, body);
      expect([r.status, r.body.error.code], JSON.stringify(body)).toEqual([400, 'invalid_input']);
    }
    const missing = await c.update(clientId, list.list_id, randomUUID(), { status: 'won' });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
    expect((await footprint(t, orgId)).keys).toBe(keysBefore);
  });
});

describe('delete_prospect (DELETE …/items with {url})', () => {
  it('deletes by the exact saved url; a canonical variant is 409 confirmation_mismatch; no match is 404', async () => {
    const { orgId, clientId, c } = await setup();
    const list = await newList(c, clientId);
    const item = (await c.save(clientId, list.list_id, { url: 'https://www.example.com/path/?b=2&a=1', status: 'won' }))
      .body;
    const keep = (await c.save(clientId, list.list_id, { url: 'https://keep.example.com/' })).body;
    expect(item.url).toBe('https://www.example.com/path/?a=1&b=2');
    for (const variant of [
      'https://example.com/path?a=1&b=2',
      'https://www.example.com/path/?b=2&a=1',
      ' https://www.example.com/path/?a=1&b=2',
      'HTTPS://www.example.com/path/?a=1&b=2',
    ]) {
      const r = await c.deleteItem(clientId, list.list_id, variant);
      expect([r.status, r.body.error.code], variant).toEqual([409, 'confirmation_mismatch']);
      expect(r.body.error.details).toEqual({ field: 'url' });
    }
    const none = await c.deleteItem(clientId, list.list_id, 'https://nothing.example.com/');
    expect([none.status, none.body.error.code]).toEqual([404, 'not_found']);
    const bad = await c.deleteItem(clientId, list.list_id, 'not a url');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_input']);
    const missingBody = await c.call('DELETE', itemsPath(clientId, list.list_id), { body: {} });
    expect([missingBody.status, missingBody.body.error.code]).toEqual([400, 'invalid_input']);
    expect((await footprint(t, orgId)).items).toBe(2);

    const before = (await c.lists(clientId)).body.data[0]!;
    const ok = await c.deleteItem(clientId, list.list_id, item.url);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ deleted: true, item_id: item.item_id, list_id: list.list_id, url: item.url });
    const after = (await c.lists(clientId)).body.data[0]!;
    expect(after).toMatchObject({ item_count: 1, status_breakdown: { ...ZEROS, identified: 1 } });
    expect(after.updated_at > before.updated_at).toBe(true);
    const again = await c.deleteItem(clientId, list.list_id, item.url);
    expect([again.status, again.body.error.code]).toEqual([404, 'not_found']);
    expect((await c.items(clientId, list.list_id)).body.data.map((i) => i.item_id)).toEqual([keep.item_id]);
    // The URL can be saved again afterwards, as a new item.
    expect((await c.save(clientId, list.list_id, { url: 'https://example.com/path?a=1&b=2' })).status).toBe(201);
  });
});

describe('delete_prospect_list (DELETE …/prospect-lists/:list_id with {name})', () => {
  it('needs the exact current name (409 otherwise); removes the list and its items only', async () => {
    const { orgId, clientId, c } = await setup();
    const list = await newList(c, clientId, { name: 'Q3 outreach' });
    const other = await newList(c, clientId, { name: 'Other' });
    for (const u of ['https://a.example.com/', 'https://b.example.com/'])
      await c.save(clientId, list.list_id, { url: u });
    await c.save(clientId, other.list_id, { url: 'https://a.example.com/' });
    for (const wrong of ['q3 outreach', 'Q3 outreach ', ' Q3 outreach', 'Q3', 'Other']) {
      const r = await c.deleteList(clientId, list.list_id, wrong);
      expect([r.status, r.body.error.code], wrong).toEqual([409, 'confirmation_mismatch']);
      expect(r.body.error.details).toEqual({ field: 'name' });
    }
    const noName = await c.call('DELETE', listPath(clientId, list.list_id), { body: {} });
    expect([noName.status, noName.body.error.code]).toEqual([400, 'invalid_input']);
    expect(await footprint(t, orgId)).toMatchObject({ lists: 2, items: 3 });

    const ok = await c.deleteList(clientId, list.list_id, 'Q3 outreach');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ deleted: true, list_id: list.list_id, name: 'Q3 outreach', items_deleted: 2 });
    expect(await footprint(t, orgId)).toMatchObject({ lists: 1, items: 1 });
    const gone = await c.items(clientId, list.list_id);
    expect([gone.status, gone.body.error.code]).toEqual([404, 'not_found']);
    const again = await c.deleteList(clientId, list.list_id, 'Q3 outreach');
    expect([again.status, again.body.error.code]).toEqual([404, 'not_found']);
    // The other list, its item and the client are untouched.
    expect((await c.items(clientId, other.list_id)).body.data).toHaveLength(1);
    expect((await c.lists(clientId)).body.data.map((l) => l.list_id)).toEqual([other.list_id]);
    expect(await t.db.selectFrom('clients').select('id').where('id', '=', clientId).executeTakeFirst()).toEqual({
      id: clientId,
    });
  });
});
