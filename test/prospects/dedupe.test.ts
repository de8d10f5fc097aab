import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { sqlRows } from '../helpers/rows.ts';
import { spawnServer } from '../helpers/spawn.ts';
import { caller, countersDrift, footprint, type Any, type Caller } from './fixture.ts';

/** docs/reliability.md F.63-F.72 through save_prospect (REST, and MCP where the transport could matter). */

let t: TestApp;
beforeAll(async () => {
  // F.71 races this app against a server process on the real clock; on PostgreSQL the two share one request
  // limiter, so this app's clock starts at today's time too.
  t = await startTestApp({ clock: createFakeClock(Date.now()) });
});
afterAll(async () => {
  await t.close();
});

async function setup() {
  const tenant = await t.tenant('agency');
  const c = caller(t, tenant.key);
  const list = (await c.createList(tenant.clientId, { name: 'Dedupe' })).body;
  const save = (url: string, extra: Record<string, unknown> = {}) =>
    c.save(tenant.clientId, list.list_id, { url, ...extra });
  return { ...tenant, c, list, save };
}

/** Saves each URL in turn; answers the statuses and the distinct item ids. */
async function saveAll(save: (url: string) => ReturnType<Caller['save']>, urls: string[]) {
  const answers = [];
  for (const url of urls) answers.push(await save(url));
  return { statuses: answers.map((a) => a.status), ids: new Set(answers.map((a) => a.body.item_id)), answers };
}

describe('canonical de-duplication through save_prospect (docs/reliability.md F)', () => {
  it('F.63 the saved url is the canonical form', async () => {
    const { save } = await setup();
    const r = await save('HTTPS://Example.COM:443/a/./b/../c?b=2&a=1#frag');
    expect(r.status).toBe(201);
    expect(r.body.url).toBe('https://example.com/a/c?a=1&b=2');
    const again = await save('https://example.com/a/c?a=1&b=2');
    expect([again.status, again.body.item_id]).toEqual([200, r.body.item_id]);
  });

  it('F.64 http://, https://…/, www. and #fragment variants are one prospect', async () => {
    const { orgId, save } = await setup();
    const { statuses, ids, answers } = await saveAll(save, [
      'http://example.com',
      'https://example.com/',
      'https://www.example.com',
      'https://example.com/#top',
    ]);
    expect(statuses).toEqual([201, 200, 200, 200]);
    expect(ids.size).toBe(1);
    expect(answers.map((a) => a.body.already_saved)).toEqual([false, true, true, true]);
    expect(answers.every((a) => a.body.url === 'http://example.com/')).toBe(true);
    expect((await footprint(t, orgId)).items).toBe(1);
  });

  it('F.65 /path/ and /path are one prospect; /About and /about are two', async () => {
    const { orgId, save } = await setup();
    expect((await saveAll(save, ['https://example.com/path/', 'https://example.com/path'])).statuses).toEqual([
      201, 200,
    ]);
    const cased = await saveAll(save, ['https://example.com/About', 'https://example.com/about']);
    expect(cased.statuses).toEqual([201, 201]);
    expect(cased.ids.size).toBe(2);
    expect((await footprint(t, orgId)).items).toBe(3);
  });

  it('F.66 utm_*, gclid and fbclid are dropped; id=7 is kept', async () => {
    const { save } = await setup();
    const r = await save('https://example.com/post?utm_source=x&utm_medium=y&gclid=1&fbclid=2&id=7');
    expect(r.body.url).toBe('https://example.com/post?id=7');
    expect((await save('https://example.com/post?id=7')).status).toBe(200);
    expect((await save('https://example.com/post?id=8')).status).toBe(201);
  });

  it('F.67 an IDN and its punycode form are one prospect', async () => {
    const { save } = await setup();
    const { statuses, ids, answers } = await saveAll(save, [
      'https://bücher.example/',
      'https://xn--bcher-kva.example/',
    ]);
    expect(statuses).toEqual([201, 200]);
    expect(ids.size).toBe(1);
    expect(answers[0]!.body).toMatchObject({ url: 'https://xn--bcher-kva.example/', domain: 'xn--bcher-kva.example' });
  });

  it('F.68 /%7Euser and /~user are one prospect; /a%2Fb and /a/b are two', async () => {
    const { save } = await setup();
    expect((await saveAll(save, ['https://example.com/%7Euser', 'https://example.com/~user'])).statuses).toEqual([
      201, 200,
    ]);
    const reserved = await saveAll(save, ['https://example.com/a%2Fb', 'https://example.com/a/b']);
    expect(reserved.statuses).toEqual([201, 201]);
    expect(reserved.answers[0]!.body.url).toBe('https://example.com/a%2Fb');
  });

  it('F.69 a URL with credentials is refused (400 invalid_input) over REST and MCP, and stored or logged nowhere', async () => {
    const { orgId, clientId, key, list, save } = await setup();
    for (const url of ['https://user:s3cr3t-pw@example.com/', 'https://s3cr3t-user@example.com/']) {
      const r = await save(url);
      expect([r.status, r.body.error.code]).toEqual([400, 'invalid_input']);
      expect(r.body.error.details?.fields).toEqual([{ path: 'url', message: expect.stringMatching(/credentials/) }]);
      expect(r.text).not.toContain('s3cr3t');
    }
    const mcp = await connectHttpClient(t.url, key);
    const res = await mcp.client.callTool({
      name: 'save_prospect',
      arguments: {
        client_id: clientId,
        list_id: list.list_id,
        url: 'https://user:s3cr3t-pw@example.com/',
        idempotency_key: 'f69',
      },
    });
    expect(res.isError).toBe(true);
    expect(structured<Any>(res).error.code).toBe('invalid_input');
    await mcp.close();
    expect(await footprint(t, orgId)).toMatchObject({ items: 0, keys: 1 });
    // lower(): SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
    expect(await sqlRows(t.db, sql`SELECT count(*) AS n FROM prospect_items WHERE lower(url) LIKE '%s3cr3t%'`)).toEqual(
      [{ n: 0 }],
    );
    expect(
      await sqlRows(t.db, sql`SELECT count(*) AS n FROM idempotency_keys WHERE lower(response) LIKE '%s3cr3t%'`),
    ).toEqual([{ n: 0 }]);
    expect(t.logs!.text()).not.toContain('s3cr3t');
  });

  it('F.70 surrounding whitespace is trimmed; an embedded newline, tab or control character is a 400 (REST and MCP)', async () => {
    const { orgId, clientId, key, list, save } = await setup();
    const trimmed = await save('  \n https://example.com/page \t ');
    expect([trimmed.status, trimmed.body.url]).toEqual([201, 'https://example.com/page']);
    const bad = [
      'https://exa\nmple.com/',
      'https://example.com/a\tb',
      'https://example.com/a\r\nb',
      'https://example.com/\u0000x',
      'https://example.com/\u001bx',
    ];
    for (const url of bad) {
      const r = await save(url);
      expect([r.status, r.body.error.code], JSON.stringify(url)).toEqual([400, 'invalid_input']);
      expect(r.body.error.details?.fields).toEqual([
        { path: 'url', message: expect.stringMatching(/control characters/) },
      ]);
    }
    const mcp = await connectHttpClient(t.url, key);
    for (const url of bad) {
      const res = await mcp.client.callTool({
        name: 'save_prospect',
        arguments: { client_id: clientId, list_id: list.list_id, url, idempotency_key: randomUUID() },
      });
      t.clock.advance(1_000);
      expect(res.isError, JSON.stringify(url)).toBe(true);
      expect(structured<Any>(res).error.code).toBe('invalid_input');
    }
    await mcp.close();
    expect((await footprint(t, orgId)).items).toBe(1);
  });

  it('F.71 concurrent saves of http://www.x.com/ and https://x.com leave exactly one row; the second answers it with 200', async () => {
    // This test's server and a second server process on the same database file race, as two workers of one
    // deployment would: the UNIQUE(list_id, dedupe_key) constraint decides, never a read-then-write.
    const other = await spawnServer(t.storeEnv);
    try {
      const { orgId, clientId, key, c } = await setup();
      const save = async (server: { url: string }, listId: string, url: string) => {
        const res = await fetch(`${server.url}/api/agent/v1/clients/${clientId}/prospect-lists/${listId}/items`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({ url }),
        });
        return { status: res.status, body: (await res.json()) as Any };
      };
      const [s1, s2] = [{ url: t.url }, other];
      for (let round = 0; round < 6; round++) {
        const list = (await c.createList(clientId, { name: `race ${round}` })).body;
        const [a, b] = await Promise.all([
          save(s1, list.list_id, 'http://www.x.com/'),
          save(s2, list.list_id, 'https://x.com'),
        ]);
        expect([a.status, b.status].sort(), `round ${round}`).toEqual([200, 201]);
        expect(a.body.item_id).toBe(b.body.item_id);
        const [winner, loser] = a.status === 201 ? [a, b] : [b, a];
        expect(loser.body).toEqual({ ...winner.body, already_saved: true });
        expect(
          await t.db.selectFrom('prospect_items').select('id').where('list_id', '=', list.list_id).execute(),
        ).toHaveLength(1);
      }
      // Many variants at once through both processes: still one row, one 201, the counters exact.
      const list = (await c.createList(clientId, { name: 'burst' })).body;
      const variants = [
        'http://www.x.com/',
        'https://x.com',
        'https://X.com/#a',
        'http://x.com:80',
        'https://www.x.com/?utm_source=z',
      ];
      const answers = await Promise.all(
        variants.flatMap((url) => [save(s1, list.list_id, url), save(s2, list.list_id, url)]),
      );
      expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
      expect(answers.map((r) => r.status).every((s) => s === 201 || s === 200)).toBe(true);
      expect(new Set(answers.map((r) => r.body.item_id)).size).toBe(1);
      expect((await footprint(t, orgId)).items).toBe(7);
      expect((await c.lists(clientId)).body.data.find((l) => l.list_id === list.list_id)?.item_count).toBe(1);
      expect(await countersDrift(t)).toEqual([]);
    } finally {
      await other.terminate();
    }
  });

  it('F.72 the same URL in two organisations (and in two lists of one client) makes separate records', async () => {
    const a = await setup();
    const b = await setup();
    const ra = await a.save('https://shared.example.com/');
    const rb = await b.save('https://shared.example.com/');
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(ra.body.item_id).not.toBe(rb.body.item_id);
    const otherList = (await a.c.createList(a.clientId, { name: 'Second' })).body;
    const rc = await a.c.save(a.clientId, otherList.list_id, { url: 'https://www.shared.example.com' });
    expect(rc.status).toBe(201);
    expect((await footprint(t, a.orgId)).items).toBe(2);
    expect((await footprint(t, b.orgId)).items).toBe(1);
  });
});
