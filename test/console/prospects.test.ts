import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { caller, type Caller } from '../prospects/fixture.ts';
import { consoleClient } from './helpers.ts';

/**
 * The console's prospect pages: the organisation's lists by client, a list's items grouped by status (in the schema's
 * order) with a form per item that runs update_prospect (CSRF-checked, then 303 back to the list), hostile names and
 * notes escaped, and another organisation's list a 404. The actions: "New list" per client on the index
 * (create_prospect_list), "Add a prospect" on a list (save_prospect) and "Delete" per item (delete_prospect), each
 * CSRF-checked, 303 back to its page, and acting once on a double submit.
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
// Console pages run several operations each against the key's per-minute limit: each test starts with it refilled.
beforeEach(() => {
  t.clock.advance(61_000);
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

/** The POST form of a page whose action is `action`, from `<form` to `</form>` (the `nth` such form, from 0). */
function formOf(page: string, action: string, nth = 0): string {
  let start = -1;
  for (let i = 0; i <= nth; i++) start = page.indexOf(`<form method="post" action="${action}"`, start + 1);
  expect(start, action).toBeGreaterThan(-1);
  return page.slice(start, page.indexOf('</form>', start) + '</form>'.length);
}

/** The hidden idempotency key a form was rendered with. */
const idempotencyKeyOf = (form: string) => /name="idempotency_key" value="([0-9a-f-]{36})"/.exec(form)![1]!;

/** What every action form must be: CSRF token, idempotency key, a label for every field, no inline style or script. */
function expectWellFormed(page: string, form: string) {
  expect(form).toMatch(/name="csrf" value="[0-9a-f]{64}"/);
  expect(form).toMatch(/name="idempotency_key" value="[0-9a-f-]{36}"/);
  const fields = [...form.matchAll(/<(input|select|textarea)\b([^>]*)>/g)].filter((m) => !/type="hidden"/.test(m[2]!));
  for (const [tag, , attrs] of fields) {
    const id = /\bid="([^"]+)"/.exec(attrs!)?.[1];
    expect(id, tag).toBeDefined();
    expect(form).toContain(`<label for="${id}"`);
  }
  expect(page).not.toMatch(/\sstyle=/);
  expect(page).not.toContain('<script');
}

async function listsOverRest(clientId = tenant.clientId) {
  const r = await c.lists(clientId, { limit: 100 });
  expect(r.status).toBe(200);
  return r.body as unknown as {
    data: { list_id: string; name: string; opportunity_type: string | null }[];
    pagination: { total: number };
  };
}

async function itemsOverRest(id: string) {
  const r = await c.items(tenant.clientId, id, { limit: 100 });
  expect(r.status).toBe(200);
  return r.body.data as unknown as { item_id: string; url: string; status: string; notes: string | null }[];
}

/** A fresh list over REST, so each action test starts from what it made. */
async function freshList(name: string, opportunity_type: string | null = null) {
  const r = await c.createList(tenant.clientId, { name, opportunity_type });
  expect(r.status).toBe(201);
  return r.body.list_id;
}

const addAction = (id: string) => `/console/prospects/${id}/items`;
const deleteAction = (id: string) => `/console/prospects/${id}/items/delete`;

describe('console prospect actions: New list', () => {
  it('the index has a "New list" form per client, with the client as a hidden field', async () => {
    const cc = await consoleClient(t, tenant.key);
    const page = (await cc.get('/console/prospects')).text;
    const f = formOf(page, '/console/prospects');
    expectWellFormed(page, f);
    expect(f).toContain(`name="client_id" value="${tenant.clientId}"`);
    expect(f).toMatch(/<input id="[^"]+" name="name" type="text"/);
    expect(f).toContain('<option value="" selected>none</option>');
    expect(f).toContain('<option value="resource_page"');
  });

  it('creates the list: 303 to its page, visible over REST, the type only when chosen', async () => {
    const cc = await consoleClient(t, tenant.key);
    const page = (await cc.get('/console/prospects')).text;
    const r = await cc.post('/console/prospects', {
      client_id: tenant.clientId,
      name: 'Resource pages',
      opportunity_type: 'resource_page',
      idempotency_key: idempotencyKeyOf(formOf(page, '/console/prospects')),
    });
    expect(r.status, r.text).toBe(303);
    const id = new RegExp(`^/console/prospects/([0-9a-f-]{36})\\?client_id=${tenant.clientId}$`).exec(
      r.headers.get('location') ?? '',
    )?.[1];
    expect(id).toBeDefined();
    expect((await listsOverRest()).data.find((l) => l.list_id === id)).toMatchObject({
      name: 'Resource pages',
      opportunity_type: 'resource_page',
    });
    expect((await cc.get(r.headers.get('location')!)).text).toContain('<h1>Resource pages</h1>');

    const plain = await cc.post('/console/prospects', {
      client_id: tenant.clientId,
      name: 'Plain',
      opportunity_type: '',
    });
    expect(plain.status).toBe(303);
    const plainId = /prospects\/([0-9a-f-]{36})/.exec(plain.headers.get('location')!)![1];
    expect((await listsOverRest()).data.find((l) => l.list_id === plainId)).toMatchObject({
      name: 'Plain',
      opportunity_type: null,
    });
  });

  it('a double submit of one form creates one list', async () => {
    const cc = await consoleClient(t, tenant.key);
    const before = (await listsOverRest()).pagination.total;
    const f = {
      client_id: tenant.clientId,
      name: 'Once',
      opportunity_type: '',
      idempotency_key: 'console-double-list',
    };
    const first = await cc.post('/console/prospects', f);
    const second = await cc.post('/console/prospects', f);
    expect(first.status).toBe(303);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    const after = await listsOverRest();
    expect(after.pagination.total).toBe(before + 1);
    expect(after.data.filter((l) => l.name === 'Once')).toHaveLength(1);
  });

  it('without the CSRF token it is 403; an empty name or an unknown type shows the error; neither creates a list', async () => {
    const cc = await consoleClient(t, tenant.key);
    const before = (await listsOverRest()).pagination.total;
    for (const csrf of [null, '0'.repeat(64)]) {
      const r = await cc.post('/console/prospects', { client_id: tenant.clientId, name: 'Forged' }, { csrf });
      expect(r.status).toBe(403);
    }
    for (const [form, field] of [
      [{ name: '  ' }, 'name'],
      [{ name: 'Typed', opportunity_type: 'spam' }, 'opportunity_type'],
    ] as const) {
      const r = await cc.post('/console/prospects', { client_id: tenant.clientId, ...form });
      expect(r.status).toBe(400);
      expect(r.text).toContain('invalid_input');
      expect(r.text).toContain(`<strong>${field}</strong>`);
    }
    expect((await listsOverRest()).pagination.total).toBe(before);
  });

  it("another organisation's client is 404 and gets no list", async () => {
    const other = await t.tenant('agency');
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.post('/console/prospects', { client_id: other.clientId, name: 'Not mine' });
    expect(r.status).toBe(404);
    expect((await caller(t, other.key).lists(other.clientId)).body.pagination.total).toBe(0);
  });
});

describe('console prospect actions: Add a prospect', () => {
  it('the list page has an "Add a prospect" form with url, target name, status, notes and contact path', async () => {
    const cc = await consoleClient(t, tenant.key);
    const page = (await cc.get(listPage())).text;
    const f = formOf(page, addAction(listId));
    expectWellFormed(page, f);
    expect(f).toContain(`name="client_id" value="${tenant.clientId}"`);
    for (const name of ['url', 'target_name', 'contact_path'])
      expect(f).toMatch(new RegExp(`<input[^>]*name="${name}"`));
    expect(f).toMatch(/<select id="add-status" name="status"/);
    expect(f).toContain('<option value="identified" selected>');
    expect(f).toMatch(/<textarea id="add-notes" name="notes"/);
  });

  it('saves the prospect: 303 back to the list at the item, and over REST it has what was typed (else the defaults)', async () => {
    const id = await freshList('Add here', 'guest_post');
    const cc = await consoleClient(t, tenant.key);
    const page = (await cc.get(listPage(tenant.clientId, id))).text;
    const r = await cc.post(addAction(id), {
      client_id: tenant.clientId,
      url: 'https://delta.example.com/write-for-us',
      target_name: ' Delta Magazine ',
      status: 'contacted',
      notes: 'Emailed the editor\r\nfollow up Friday',
      contact_path: 'https://delta.example.com/contact',
      idempotency_key: idempotencyKeyOf(formOf(page, addAction(id))),
    });
    expect(r.status, r.text).toBe(303);
    const [saved] = await itemsOverRest(id);
    expect(r.headers.get('location')).toBe(`${listPage(tenant.clientId, id)}#item-${saved!.item_id}`);
    expect(saved).toMatchObject({
      url: 'https://delta.example.com/write-for-us',
      target_name: 'Delta Magazine',
      status: 'contacted',
      notes: 'Emailed the editor\nfollow up Friday',
      contact_path: 'https://delta.example.com/contact',
      opportunity_type: 'guest_post',
    });
    expect(section((await cc.get(listPage(tenant.clientId, id))).text, 'contacted')).toContain('Delta Magazine');

    // Empty optional fields are not sent: the operation's defaults apply.
    const bare = await cc.post(addAction(id), {
      client_id: tenant.clientId,
      url: 'https://echo.example.com/',
      target_name: '',
      status: 'identified',
      notes: ' \r\n ',
      contact_path: '',
    });
    expect(bare.status, bare.text).toBe(303);
    expect((await itemsOverRest(id)).find((i) => i.url === 'https://echo.example.com/')).toMatchObject({
      target_name: null,
      status: 'identified',
      notes: null,
      contact_path: null,
      opportunity_type: 'guest_post',
    });
  });

  it('a double submit of one form saves once (a replay, even after the item was deleted over REST)', async () => {
    const id = await freshList('Add once');
    const cc = await consoleClient(t, tenant.key);
    const form = {
      client_id: tenant.clientId,
      url: 'https://foxtrot.example.com/',
      status: 'identified',
      idempotency_key: 'console-double-add',
    };
    const first = await cc.post(addAction(id), form);
    expect(first.status).toBe(303);
    expect(await itemsOverRest(id)).toHaveLength(1);
    expect((await c.deleteItem(tenant.clientId, id, 'https://foxtrot.example.com/')).status).toBe(200);
    const second = await cc.post(addAction(id), form);
    expect(second.status).toBe(303);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(await itemsOverRest(id)).toHaveLength(0);
  });

  it('without the CSRF token it is 403 and saves nothing', async () => {
    const id = await freshList('No forged adds');
    const cc = await consoleClient(t, tenant.key);
    for (const csrf of [null, '0'.repeat(64)]) {
      const r = await cc.post(
        addAction(id),
        { client_id: tenant.clientId, url: 'https://golf.example.com/' },
        { csrf },
      );
      expect(r.status).toBe(403);
    }
    expect(await itemsOverRest(id)).toHaveLength(0);
  });

  it('a private or malformed URL and an unknown status show the error by field and save nothing', async () => {
    const id = await freshList('No private adds');
    const cc = await consoleClient(t, tenant.key);
    for (const [form, field] of [
      [{ url: 'http://192.168.1.1/admin' }, 'url'],
      [{ url: 'http://localhost/' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: '' }, 'url'],
      [{ url: 'https://hotel.example.com/', status: 'archived' }, 'status'],
    ] as const) {
      const r = await cc.post(addAction(id), { client_id: tenant.clientId, ...form });
      expect(r.status, JSON.stringify(form)).toBe(400);
      expect(r.text).toContain('invalid_input');
      expect(r.text).toContain(`<strong>${field}</strong>`);
    }
    expect(await itemsOverRest(id)).toHaveLength(0);
  });
});

describe('console prospect actions: Delete', () => {
  const saveItem = async (id: string, url: string) => {
    const r = await c.save(tenant.clientId, id, { url, target_name: `Target ${BREAKOUT}` });
    expect(r.status).toBe(201);
    return r.body.item_id;
  };

  it('each item has a Delete form carrying its exact saved URL; it deletes the item: 303 back, gone over REST', async () => {
    const id = await freshList('Delete here');
    const keep = await saveItem(id, 'https://india.example.com/keep');
    const gone = await saveItem(id, 'https://juliet.example.com/a?b=1&c=2');
    const cc = await consoleClient(t, tenant.key);
    const page = (await cc.get(listPage(tenant.clientId, id))).text;
    const article = page.slice(
      page.indexOf(`id="item-${gone}"`),
      page.indexOf('</article>', page.indexOf(`id="item-${gone}"`)),
    );
    const f = formOf(article, deleteAction(id));
    expectWellFormed(page, f);
    expect(f).toContain('name="url" value="https://juliet.example.com/a?b=1&amp;c=2"');
    expect(f).toContain('>Delete</button>');
    expect(page).not.toContain(BREAKOUT);

    const r = await cc.post(deleteAction(id), {
      client_id: tenant.clientId,
      url: 'https://juliet.example.com/a?b=1&c=2',
      idempotency_key: idempotencyKeyOf(f),
    });
    expect(r.status, r.text).toBe(303);
    expect(r.headers.get('location')).toBe(listPage(tenant.clientId, id));
    expect((await itemsOverRest(id)).map((i) => i.item_id)).toEqual([keep]);
    expect((await cc.get(listPage(tenant.clientId, id))).text).not.toContain('juliet.example.com');
  });

  it('a double submit of one Delete form deletes once (the URL saved again in between stays)', async () => {
    const id = await freshList('Delete once');
    await saveItem(id, 'https://kilo.example.com/');
    const cc = await consoleClient(t, tenant.key);
    const form = {
      client_id: tenant.clientId,
      url: 'https://kilo.example.com/',
      idempotency_key: 'console-double-delete',
    };
    expect((await cc.post(deleteAction(id), form)).status).toBe(303);
    expect(await itemsOverRest(id)).toHaveLength(0);
    const again = await saveItem(id, 'https://kilo.example.com/');
    expect((await cc.post(deleteAction(id), form)).status).toBe(303);
    expect((await itemsOverRest(id)).map((i) => i.item_id)).toEqual([again]);
  });

  it('without the CSRF token it is 403; a URL that is not the exact saved one is refused; neither deletes', async () => {
    const id = await freshList('Keep these');
    const item = await saveItem(id, 'https://lima.example.com/page');
    const cc = await consoleClient(t, tenant.key);
    for (const csrf of [null, '0'.repeat(64)]) {
      const r = await cc.post(
        deleteAction(id),
        { client_id: tenant.clientId, url: 'https://lima.example.com/page' },
        { csrf },
      );
      expect(r.status).toBe(403);
    }
    const variant = await cc.post(deleteAction(id), {
      client_id: tenant.clientId,
      url: 'https://LIMA.example.com/page',
    });
    expect(variant.status).toBe(400);
    expect(variant.text).toContain('confirmation_mismatch');
    const missing = await cc.post(deleteAction(id), { client_id: tenant.clientId, url: 'https://mike.example.com/' });
    expect(missing.status).toBe(404);
    expect((await itemsOverRest(id)).map((i) => i.item_id)).toEqual([item]);
  });

  it("another organisation's item is 404 and stays", async () => {
    const other = await t.tenant('agency');
    const oc = caller(t, other.key);
    const theirs = (await oc.createList(other.clientId, { name: 'Theirs' })).body.list_id;
    expect((await oc.save(other.clientId, theirs, { url: 'https://november.example.com/' })).status).toBe(201);
    const cc = await consoleClient(t, tenant.key);
    for (const clientId of [other.clientId, tenant.clientId]) {
      const r = await cc.post(deleteAction(theirs), { client_id: clientId, url: 'https://november.example.com/' });
      expect(r.status).toBe(404);
    }
    expect((await oc.items(other.clientId, theirs)).body.data).toHaveLength(1);
  });
});
