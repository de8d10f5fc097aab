import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import {
  call,
  countSearches,
  footprint,
  getJob,
  idem,
  mcpClient,
  postAutopilot,
  postJob,
  rawPost,
  run,
  socketPost,
  startContentApp,
  tenant,
  tool,
  type ErrorBody,
  type TestResponse,
  type ToolResult,
} from './helpers/harness.ts';

/**
 * docs/reliability.md B.11-B.22 through both create operations, POST /copywriter/jobs (201, 200 on replay) and POST
 * /copywriter/autopilot (202 both times), over REST and MCP. Each case researches its own topic, one no archived
 * page matches (the run fails at once, cheaply), so the searches counted for that topic are the provider calls the
 * case caused. (B.16, a required key, does not apply: both keys are optional.)
 */

let t: TestApp;
let searches: (query: string) => number;

beforeAll(async () => {
  t = await startContentApp();
  searches = countSearches(t);
});
afterAll(async () => {
  await t?.close();
});

interface Op {
  name: 'create_content_job' | 'create_content_autopilot';
  path: string;
  created: number;
  replayed: number;
  post: typeof postJob;
  body(clientId: string, topic: string, extra?: Record<string, unknown>): Record<string, unknown>;
}

const OPS: Op[] = [
  {
    name: 'create_content_job',
    path: '/copywriter/jobs',
    created: 201,
    replayed: 200,
    post: postJob,
    body: (clientId, topic, extra = {}) => ({ topic, client_id: clientId, page_contract: 'article', ...extra }),
  },
  {
    name: 'create_content_autopilot',
    path: '/copywriter/autopilot',
    created: 202,
    replayed: 202,
    post: postAutopilot as unknown as typeof postJob,
    body: (clientId, topic, extra = {}) => ({ topic, client_id: clientId, page_contract: 'article', ...extra }),
  },
];

let topics = 0;
/** A topic of its own that no archived page matches. */
const topic = (label: string) => `zzqx ${label.toLowerCase().replace(/[^a-z0-9]+/g, '')} qv${++topics}`;

/** What an organisation's requests left behind, after the runner ran whatever they started. */
async function settled(orgId: string) {
  await run(t);
  return footprint(t, orgId);
}

describe.each(OPS)('B. idempotency of $name', (op) => {
  it('B.11 same key and body twice: the first answer again with Idempotent-Replayed (content job 201 then 200, Autopilot 202 both), one job, reservation, run and search', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const q = topic('b11');
    const k = idem('b11');
    const first = await op.post(t, key, op.body(clientId, q), k);
    const second = await op.post(t, key, op.body(clientId, q), k);
    expect(first.status, first.text).toBe(op.created);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(op.replayed);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, runs: 1, keys: 1 });
    expect(searches(q)).toBe(1);
    // Replayed after the run ended: the same job, as it is now; still one of everything.
    const later = await op.post(t, key, op.body(clientId, q), k);
    expect(later.status).toBe(op.replayed);
    expect(later.body).toMatchObject({ job_id: first.body.job_id, status: 'failed' });
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, runs: 1 });
    expect(searches(q)).toBe(1);
  });

  it('B.11 over MCP: the same idempotency_key and arguments answer the same job as REST, marked as a replay', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const q = topic('b11 mcp');
    const k = idem('b11-mcp');
    const rest = await op.post(t, key, op.body(clientId, q), k);
    const c = await mcpClient(t, key);
    try {
      const again = (await c.client.callTool({
        name: op.name,
        arguments: { ...op.body(clientId, q), idempotency_key: k },
      })) as ToolResult;
      expect(again.isError).toBeFalsy();
      expect(structured(again)).toEqual(rest.body);
      expect(again._meta).toMatchObject({ idempotent_replayed: true });
      // A key first used over MCP replays over REST.
      const k2 = idem('b11-mcp2');
      const viaMcp = (await c.client.callTool({
        name: op.name,
        arguments: { ...op.body(clientId, `${q} two`), idempotency_key: k2 },
      })) as ToolResult;
      expect(viaMcp._meta?.idempotent_replayed).toBeUndefined();
      const viaRest = await op.post(t, key, op.body(clientId, `${q} two`), k2);
      expect(viaRest.status).toBe(op.replayed);
      expect(viaRest.body).toEqual(structured(viaMcp));
    } finally {
      await c.close();
    }
    expect(await settled(orgId)).toMatchObject({ jobs: 2, reservations: 2, runs: 2, keys: 2 });
  });

  it('B.12 the same request with keys in another order, other whitespace or an omitted default is a replay', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const q = topic('b12');
    const k = idem('b12');
    const first = await op.post(t, key, { ...op.body(clientId, q), intent: 'educate', language: 'en' }, k);
    expect(first.status).toBe(op.created);
    const reordered = `{\n  "page_contract" : "article",\n\t"client_id": "${clientId}",   "topic": "${q}"  }`;
    const again = await call<ErrorBody & { job_id: string }>(t, 'POST', op.path, {
      key,
      rawBody: reordered,
      headers: { 'content-type': 'application/json', 'idempotency-key': k },
    });
    expect(again.status).toBe(op.replayed);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.job_id).toBe(first.body.job_id);
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, runs: 1 });
    expect(searches(q)).toBe(1);
  });

  it('B.13 same key, different body: 422 idempotency_key_reused (REST and MCP); no new job, reservation or search', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const q = topic('b13');
    const k = idem('b13');
    expect((await op.post(t, key, op.body(clientId, q), k)).status).toBe(op.created);
    const changed = await op.post(t, key, op.body(clientId, `${q} changed`), k);
    expect(changed.status).toBe(422);
    expect(changed.body.error.code).toBe('idempotency_key_reused');
    const mcp = await tool(t, key, op.name, { ...op.body(clientId, `${q} changed`), idempotency_key: k });
    expect(mcp.isError).toBe(true);
    expect(structured(mcp)).toEqual(changed.body);
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, runs: 1, keys: 1 });
    expect(searches(`${q} changed`)).toBe(0);
  });

  it('B.14 the same key sent to the other create operation: 422, nothing new', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const q = topic('b14');
    const k = idem('b14');
    expect((await op.post(t, key, op.body(clientId, q), k)).status).toBe(op.created);
    const other = OPS.find((o) => o !== op)!;
    const crossed = await other.post(t, key, other.body(clientId, q), k);
    expect(crossed.status).toBe(422);
    expect(crossed.body.error.code).toBe('idempotency_key_reused');
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, runs: 1, keys: 1 });
    expect(searches(q)).toBe(1);
  });

  it('B.15 20 concurrent identical requests: one job; the others replay it (or 409 with Retry-After), never two', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const q = topic('b15');
    const k = idem('b15');
    const answers = await Promise.all(Array.from({ length: 20 }, () => op.post(t, key, op.body(clientId, q), k)));
    const ids = new Set<string>();
    for (const a of answers) {
      expect([op.created, op.replayed, 409]).toContain(a.status);
      if (a.status === 409) {
        expect(a.body.error.code).toBe('idempotency_key_in_use');
        expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
      } else ids.add(a.body.job_id);
    }
    expect(answers.filter((a) => a.status !== 409 && a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(ids.size).toBe(1);
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, runs: 1, keys: 1 });
    expect(searches(q)).toBe(1);
  });

  it('B.17 without a key, the same request twice makes two jobs (the key is optional; documented)', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const q = topic('b17');
    const a = await op.post(t, key, op.body(clientId, q));
    const b = await op.post(t, key, op.body(clientId, q));
    expect([a.status, b.status]).toEqual([op.created, op.created]);
    expect(a.body.job_id).not.toBe(b.body.job_id);
    expect(await settled(orgId)).toMatchObject({ jobs: 2, reservations: 2, runs: 2, keys: 0 });
    expect(searches(q)).toBe(2);
  });

  it('B.18 empty, 256-character, space or control-character keys and two Idempotency-Key headers: 400 invalid_input, nothing created', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const text = JSON.stringify(op.body(clientId, topic('b18')));
    for (const bad of ['', 'x'.repeat(256), 'a b']) {
      const r = await rawPost(t, op.path, key, { 'idempotency-key': bad }, text);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe('invalid_input');
    }
    const two = await rawPost(t, op.path, key, { 'idempotency-key': ['first-key', 'second-key'] }, text);
    expect(two.status).toBe(400);
    expect(two.body.error).toMatchObject({ code: 'invalid_input', details: { fields: [{ path: 'Idempotency-Key' }] } });
    for (const line of ['Idempotency-Key: a\x01b', 'Idempotency-Key: tab\there', 'Idempotency-Key: del\x7f']) {
      expect(await socketPost(t, op.path, key, [line], text), JSON.stringify(line)).toBe(400);
    }
    const c = await mcpClient(t, key);
    try {
      for (const bad of ['', 'x'.repeat(256), 'a b', 'ctl\x01']) {
        const m = (await c.client.callTool({
          name: op.name,
          arguments: { ...JSON.parse(text), idempotency_key: bad },
        })) as ToolResult;
        expect(m.isError, JSON.stringify(bad)).toBe(true);
        expect(structured<ErrorBody>(m).error.code).toBe('invalid_input');
      }
    } finally {
      await c.close();
    }
    expect(await footprint(t, orgId)).toMatchObject({ jobs: 0, reservations: 0, keys: 0 });
    // 255 printable characters is a valid key.
    expect((await rawPost(t, op.path, key, { 'idempotency-key': '~'.repeat(255) }, text)).status).toBe(op.created);
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, keys: 1 });
  });

  it('B.19 a quoted structured-field key and the bare key are the same key', async () => {
    const { orgId, clientId, key } = await tenant(t);
    const q = topic('b19');
    const bare = idem('b19');
    const a = await op.post(t, key, op.body(clientId, q), `"${bare}"`);
    const b = await op.post(t, key, op.body(clientId, q), bare);
    expect([a.status, b.status]).toEqual([op.created, op.replayed]);
    expect(b.body.job_id).toBe(a.body.job_id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, runs: 1 });
  });

  it("B.20 the same key in another organisation is processed independently; it never sees the first organisation's job", async () => {
    const a = await tenant(t);
    const b = await tenant(t);
    const k = idem('b20');
    const ra = await op.post(t, a.key, op.body(a.clientId, topic('b20 a')), k);
    const rb = await op.post(t, b.key, op.body(b.clientId, topic('b20 b')), k);
    expect([ra.status, rb.status]).toEqual([op.created, op.created]);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(rb.body.job_id).not.toBe(ra.body.job_id);
    expect((await getJob(t, b.key, rb.body.job_id)).body.client_id).toBe(b.clientId);
    // Org B sending org A's exact body (its own client aside) gets its own job too.
    const same = await op.post(t, b.key, op.body(b.clientId, topic('b20 a')), idem('b20-same'));
    expect(same.body.job_id).not.toBe(ra.body.job_id);
    expect((await settled(a.orgId)).jobs).toBe(1);
    expect((await settled(b.orgId)).jobs).toBe(2);
    expect((await getJob(t, b.key, ra.body.job_id)).status).toBe(404);
  });

  it('B.21 a first attempt refused (400 validation, 404 client, Autopilot 409 location) is not stored: the corrected request with the same key runs', async () => {
    const { orgId, clientId, key } = await tenant(t, 'agency', { serviceArea: 'Austin, TX' });
    const other = await tenant(t);
    const q = topic('b21');
    const k = idem('b21');
    const refused: TestResponse<ErrorBody>[] = [
      await op.post(t, key, op.body(clientId, q, { language: 'xx' }), k),
      await op.post(t, key, op.body(clientId, q, { page_contract: 'landing' }), k),
      await op.post(t, key, op.body(other.clientId, q), k),
    ];
    expect(refused.map((r) => r.status)).toEqual([400, 400, 404]);
    if (op.name === 'create_content_autopilot') {
      const conflict = await op.post(t, key, op.body(clientId, q, { location: 'Denver, CO' }), k);
      expect(conflict.status).toBe(409);
    }
    expect(await footprint(t, orgId)).toMatchObject({ jobs: 0, reservations: 0, keys: 0 });
    const ok = await op.post(t, key, op.body(clientId, q), k);
    expect(ok.status).toBe(op.created);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, keys: 1 });
  });

  it('B.22 a first attempt refused with 401 or 429 (rate limit, usage limit) is not stored: the later valid call runs', async () => {
    const { orgId, clientId, key } = await tenant(t, 'starter');
    const q = topic('b22');
    const k = idem('b22');
    const unauthorised = await op.post(t, `${key.slice(0, -6)}AAAAAA`, op.body(clientId, q), k);
    expect(unauthorised.status).toBe(401);
    // starter: 30 requests per minute per key.
    for (let i = 0; i < 30; i++) expect((await call(t, 'GET', '/copywriter/jobs', { key })).status).toBe(200);
    const limited = await op.post(t, key, op.body(clientId, q), k);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limit_exceeded');
    expect(await footprint(t, orgId)).toMatchObject({ jobs: 0, reservations: 0, keys: 0 });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // A minute later the key has its full allowance back.
    t.clock.advance(60_000);
    // A full usage window refuses with 429 usage_limit_reached: not stored either.
    const filler = await t.db
      .insertInto('usage_ledger')
      .values({
        id: `fill-${k}`,
        org_id: orgId,
        operation: 'content_job',
        resource_kind: 'filler',
        resource_id: `fill-${k}`,
        units: 100,
        state: 'charged',
        created_at: t.clock.now() - 1,
        settled_at: t.clock.now() - 1,
      })
      .execute();
    expect(filler).toBeDefined();
    const full = await op.post(t, key, op.body(clientId, q), k);
    expect(full.status).toBe(429);
    expect(full.body.error.code).toBe('usage_limit_reached');
    expect(await t.db.selectFrom('idempotency_keys').select('key').where('org_id', '=', orgId).execute()).toEqual([]);
    await t.db.deleteFrom('usage_ledger').where('id', '=', `fill-${k}`).execute();
    const ok = await op.post(t, key, op.body(clientId, q), k);
    expect(ok.status).toBe(op.created);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await settled(orgId)).toMatchObject({ jobs: 1, reservations: 1, keys: 1 });
  });
});
