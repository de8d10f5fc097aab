import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { caller, type Caller } from '../prospects/fixture.ts';
import { consoleClient } from './helpers.ts';

/**
 * The console's prospect pages: the organisation's lists by client, a list's items grouped by status (in the schema's
 * order) with a form per item that runs update_prospect (CSRF-checked, then 303 back to the list), hostile names and
 * notes escaped, and another organisation's list a 404.
 */

const STATUSES = ['identified', 'contacted', 'in_discussion', 'won', 'passed'];
const SCRIPT = '<script>alert(1)</script>';
const BREAKOUT = '"><img src=x onerror=alert(1)>';

let t: TestApp;
let tenant: Awaited<ReturnType<TestApp['tenant']>>;
let c: Caller;
let listId: string;
const items: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant('agency');
  c = caller(t, tenant.key);
  const list = await c.createList(tenant.clientId, { name: `Guest posts ${SCRIPT}`, opportunity_type: 'guest_post' });
  expect(list.status).toBe(201);
  listId = list.body.list_id;
  for (const [name, status, notes] of [
    ['alpha', 'identified', null],
    ['bravo', 'contacted', `Asked ${SCRIPT} ${BREAKOUT}`],
    ['charlie', 'won', 'Placed\nthe link'],
  ] as const) {
    const r = await c.save(tenant.clientId, listId, {
      url: `https://${name}.example.com/page`,
      target_name: `${name} ${BREAKOUT}`,
      status,
      ...(notes ? { notes } : {}),
    });
    expect(r.status).toBe(201);
    items[name] = r.body.item_id;
  }
});
afterAll(async () => {
  await t?.close();
});

const listPage = (clientId = tenant.clientId, id = listId) => `/console/prospects/${id}?client_id=${clientId}`;
const itemAction = (itemId: string, id = listId) => `/console/prospects/${id}/items/${itemId}`;

/** The section of a status: from its heading to the next section. */
function section(page: string, status: string): string {
  const start = page.indexOf(`id="status-${status}"`);
  expect(start, status).toBeGreaterThan(-1);
  const end = page.indexOf('<section', start);
  return page.slice(start, end === -1 ? undefined : end);
}

async function itemOverRest(itemId: string) {
  const r = await c.items(tenant.clientId, listId, { limit: 100 });
  return r.body.data.find((i) => i.item_id === itemId)!;
}

describe('console prospect pages', () => {
  it('without a session the pages redirect to sign-in', async () => {
    const r = await fetch(new URL('/console/prospects', t.url), { redirect: 'manual' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/console/sign-in');
  });

  it("the index shows the organisation's lists by client, with counts per status, linking to each list", async () => {
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.get('/console/prospects');
    expect(r.status).toBe(200);
    expect(r.text).toContain('<h1>Prospect lists</h1>');
    expect(r.text).toContain(`href="/console/prospects/${listId}?client_id=${tenant.clientId}"`);
    expect(r.text).toContain('Guest posts &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(r.text).not.toContain(SCRIPT);
    expect(r.text).toContain('guest_post');
  });

  it('a list shows its items grouped by status, one section per status in the schema order', async () => {
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.get(listPage());
    expect(r.status).toBe(200);
    const positions = STATUSES.map((s) => r.text.indexOf(`id="status-${s}"`));
    expect(positions.every((p) => p > -1)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(section(r.text, 'identified')).toContain('https://alpha.example.com/page');
    expect(section(r.text, 'contacted')).toContain('https://bravo.example.com/page');
    expect(section(r.text, 'won')).toContain('https://charlie.example.com/page');
    expect(section(r.text, 'won')).toContain('Placed\nthe link');
    expect(section(r.text, 'in_discussion')).not.toContain('example.com');
    // Each item has a form that posts to its action with the CSRF token, a status select and a notes textarea.
    const won = section(r.text, 'won');
    expect(won).toContain(`action="${itemAction(items.charlie!)}"`);
    expect(won).toMatch(/name="csrf" value="[0-9a-f]{64}"/);
    expect(won).toContain('<option value="won" selected>');
    expect(won).toMatch(/<textarea[^>]*name="notes"/);
  });

  it("editing an item's status and notes from the page: 303 back to the list, and the change is visible over REST", async () => {
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.post(itemAction(items.alpha!), {
      client_id: tenant.clientId,
      status: 'in_discussion',
      notes: 'Replied on Monday\r\nsend a draft',
    });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${listPage()}#item-${items.alpha}`);
    expect(await itemOverRest(items.alpha!)).toMatchObject({
      status: 'in_discussion',
      notes: 'Replied on Monday\nsend a draft',
    });
    const page = await cc.get(listPage());
    expect(section(page.text, 'in_discussion')).toContain('https://alpha.example.com/page');
    expect(section(page.text, 'identified')).not.toContain('alpha.example.com');

    // Emptying the textarea clears the notes.
    expect((await cc.post(itemAction(items.alpha!), { client_id: tenant.clientId, notes: '  ' })).status).toBe(303);
    expect(await itemOverRest(items.alpha!)).toMatchObject({ status: 'in_discussion', notes: null });
  });

  it("a double submit of one form (the form's idempotency key) does the work once", async () => {
    const cc = await consoleClient(t, tenant.key);
    const form = {
      client_id: tenant.clientId,
      status: 'passed',
      notes: 'Not a fit',
      idempotency_key: 'console-double-submit',
    };
    expect((await cc.post(itemAction(items.alpha!), form)).status).toBe(303);
    expect((await c.update(tenant.clientId, listId, items.alpha!, { status: 'contacted' })).status).toBe(200);
    expect((await cc.post(itemAction(items.alpha!), form)).status).toBe(303);
    expect(await itemOverRest(items.alpha!)).toMatchObject({ status: 'contacted', notes: 'Not a fit' });
  });

  it('a list page without its client id is 400', async () => {
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.get(`/console/prospects/${listId}`);
    expect(r.status).toBe(400);
    expect(r.text).toContain('client_id');
  });

  it('hostile notes and names render escaped, never raw, also after an edit from the page', async () => {
    const cc = await consoleClient(t, tenant.key);
    const hostile = `${SCRIPT} and ${BREAKOUT} and </textarea><b>x</b>`;
    expect(
      (await cc.post(itemAction(items.charlie!), { client_id: tenant.clientId, status: 'won', notes: hostile })).status,
    ).toBe(303);
    const page = (await cc.get(listPage())).text;
    for (const raw of [SCRIPT, BREAKOUT, '<img', '</textarea><b>']) expect(page).not.toContain(raw);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('&lt;/textarea&gt;&lt;b&gt;x&lt;/b&gt;');
    expect((await itemOverRest(items.charlie!)).notes).toBe(hostile);
  });

  it('a POST without the CSRF token (or with a wrong one) is 403 and changes nothing', async () => {
    const cc = await consoleClient(t, tenant.key);
    const before = await itemOverRest(items.bravo!);
    for (const csrf of [null, '0'.repeat(64)]) {
      const r = await cc.post(
        itemAction(items.bravo!),
        { client_id: tenant.clientId, status: 'passed', notes: 'x' },
        { csrf },
      );
      expect(r.status).toBe(403);
    }
    expect(await itemOverRest(items.bravo!)).toEqual(before);
  });

  it('an invalid status is 400 and changes nothing', async () => {
    const cc = await consoleClient(t, tenant.key);
    const before = await itemOverRest(items.bravo!);
    const r = await cc.post(itemAction(items.bravo!), { client_id: tenant.clientId, status: 'archived', notes: 'x' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('invalid_input');
    expect(await itemOverRest(items.bravo!)).toEqual(before);
  });

  it("another organisation's list is 404, read or edited, and is left unchanged", async () => {
    const other = await t.tenant('agency');
    const oc = caller(t, other.key);
    const theirs = (await oc.createList(other.clientId, { name: 'Theirs' })).body.list_id;
    const item = (await oc.save(other.clientId, theirs, { url: 'https://theirs.example.com/' })).body.item_id;
    const cc = await consoleClient(t, tenant.key);
    expect((await cc.get(listPage(other.clientId, theirs))).status).toBe(404);
    expect((await cc.get(listPage(tenant.clientId, theirs))).status).toBe(404);
    const r = await cc.post(itemAction(item, theirs), { client_id: other.clientId, status: 'won', notes: 'mine' });
    expect(r.status).toBe(404);
    expect((await oc.items(other.clientId, theirs)).body.data[0]).toMatchObject({ status: 'identified', notes: null });
    // Their index does not show our list, nor ours theirs.
    expect((await cc.get('/console/prospects')).text).not.toContain(theirs);
  });
});
