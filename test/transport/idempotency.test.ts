import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startBillableProvider, type BillableProvider } from '../helpers/billable-provider.ts';
import { widgetOperations, widgetPipeline } from '../helpers/widget.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';

/**
 * docs/reliability.md B (idempotency) over REST and MCP, through the test widget operations: `create_widget` (optional key,
 * 201 then 200 on replay) and `start_widget` (required key, 202 both times, optimize family). Every case counts the
 * rows, reservations and provider executions it could have created.
 */

const DAY = 24 * 3_600_000;
type Widget = { widget_id: string; status: string; label?: string; billing: string };
type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

let t: TestApp;
let provider: BillableProvider;

beforeAll(async () => {
  provider = await startBillableProvider();
  t = await startTestApp({
    operations: [...OPERATIONS, ...widgetOperations()],
    pipelines: (e) => [widgetPipeline(e, () => provider.url)],
  });
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

/** What one organisation's requests left behind: widget runs, ledger entries, key records and provider calls. */
async function footprint(app: TestApp, orgId: string) {
  await app.engine.runner.runUntilIdle();
  const runs = await app.db
    .selectFrom('runs')
    .select(['id', 'resource_id'])
    .where('org_id', '=', orgId)
    .where('kind', '=', 'widget')
    .execute();
  const ledger = await app.db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId).execute();
  const keys = await app.db.selectFrom('idempotency_keys').selectAll().where('org_id', '=', orgId).execute();
  const providerCalls = runs.reduce((n, r) => n + provider.callsFor(`${r.id}:call`), 0);
  return {
    runs: runs.length,
    reservations: ledger.length,
    keys: keys.length,
    providerCalls,
    runIds: runs.map((r) => r.id),
    ledger,
  };
}

const widget = (clientId: string, label = 'w', extra: Record<string, unknown> = {}) => ({
  client_id: clientId,
  label,
  ...extra,
});
const create = (key: string, body: unknown, idem?: string, app: TestApp = t) =>
  app.request<Widget & ErrorBody>('POST', '/widgets', {
    key,
    body,
    headers: idem === undefined ? {} : { 'idempotency-key': idem },
  });
const start = (key: string, body: unknown, idem?: string) =>
  t.request<Widget & ErrorBody>('POST', '/widgets/strict', {
    key,
    body,
    headers: idem === undefined ? {} : { 'idempotency-key': idem },
  });

/** A request with headers exactly as given (repeated names included), through node:http. */
function rawPost(
  path: string,
  headers: Record<string, string | string[]>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(`/api/agent/v1${path}`, t.url), { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A request written byte for byte on a socket: header values node:http refuses to send (control characters). */
function socketPost(path: string, headerLines: string[], body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(t.url);
    const sock = connect(Number(port), hostname);
    let text = '';
    sock.on('data', (d) => (text += d.toString('latin1')));
    sock.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    sock.on('error', reject);
    const lines = [
      `POST /api/agent/v1${path} HTTP/1.1`,
      `Host: ${hostname}:${port}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      ...headerLines,
    ];
    // Written, not ended: a half-close before the answer makes node:http abort a request still in flight (a store
    // that answers over the network, such as PostgreSQL, is still working when the FIN arrives). `Connection: close`
    // ends the exchange once the answer is sent.
    sock.write(Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'latin1'));
  });
}

describe('B. idempotency over REST', () => {
  it('B.11 same key and body twice: 201 then 200 replay, one widget, one reservation, one provider execution', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const runsBefore = provider.runs();
    const first = await create(key, widget(clientId), 'b11-key');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await create(key, widget(clientId), 'b11-key');
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.widget_id).toBe(first.body.widget_id);
    const fp = await footprint(t, orgId);
    expect(fp).toMatchObject({ runs: 1, reservations: 1, keys: 1, providerCalls: 1 });
    expect(provider.runs() - runsBefore).toBe(1);
    // A replay after the work finished still answers the same record (now complete), and starts nothing.
    const third = await create(key, widget(clientId), 'b11-key');
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ widget_id: first.body.widget_id, status: 'complete', billing: 'charged' });
    expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1, providerCalls: 1 });
    expect(fp.ledger[0]).toMatchObject({ resource_id: first.body.widget_id, units: 1 });
  });

  it('B.11 required-key operation (optimize family): 202 both times with the same record', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const first = await start(key, widget(clientId), 'b11-strict');
    const second = await start(key, widget(clientId), 'b11-strict');
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.widget_id).toBe(first.body.widget_id);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1, providerCalls: 1 });
  });

  it('B.12 keys in another order and other whitespace are the same request: replay', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const a = await t.request<Widget>('POST', '/widgets', {
      key,
      rawBody: `{"client_id":"${clientId}","label":"x","units":2}`,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'b12' },
    });
    const b = await t.request<Widget>('POST', '/widgets', {
      key,
      rawBody: `{\n  "units" : 2 ,\n\t"label":"x",   "client_id" : "${clientId}"\n}\n`,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'b12' },
    });
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body.widget_id).toBe(a.body.widget_id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1, providerCalls: 1 });
  });

  it('B.12 the fingerprint is of the validated input: an omitted default equals the default sent explicitly', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const a = await create(key, widget(clientId), 'b12-defaults');
    const b = await create(key, widget(clientId, 'w', { units: 1 }), 'b12-defaults');
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body.widget_id).toBe(a.body.widget_id);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1 });
  });

  it('B.13 same key with a different body: 422 idempotency_key_reused, nothing new', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const first = await create(key, widget(clientId, 'one'), 'b13');
    expect(first.status).toBe(201);
    const before = await footprint(t, orgId);
    for (const body of [widget(clientId, 'two'), widget(clientId, 'one', { units: 2 })]) {
      const r = await create(key, body, 'b13');
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('idempotency_key_reused');
      expect(r.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await footprint(t, orgId)).toMatchObject({
      runs: 1,
      reservations: 1,
      keys: 1,
      providerCalls: before.providerCalls,
    });
  });

  it('B.14 same key sent to a different operation: 422, nothing new', async () => {
    const { orgId, clientId, key } = await t.tenant();
    expect((await create(key, widget(clientId), 'b14')).status).toBe(201);
    const other = await start(key, widget(clientId), 'b14');
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    // And the other way round.
    expect((await start(key, widget(clientId), 'b14-strict')).status).toBe(202);
    const back = await create(key, widget(clientId), 'b14-strict');
    expect(back.status).toBe(422);
    expect(back.body.error.code).toBe('idempotency_key_reused');
    expect(await footprint(t, orgId)).toMatchObject({ runs: 2, reservations: 2, keys: 2, providerCalls: 2 });
  });

  it('B.15 20 concurrent identical requests: exactly one execution, the others replay (or 409), never two records', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(key, widget(clientId), 'b15')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => s === 201 || s === 200 || s === 409)).toBe(true);
    for (const a of answers) {
      if (a.status === 200) expect(a.headers.get('idempotent-replayed')).toBe('true');
      if (a.status === 409) {
        expect(a.body.error.code).toBe('idempotency_key_in_use');
        expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
      }
    }
    const ids = new Set(answers.filter((a) => a.status < 300).map((a) => a.body.widget_id));
    expect(ids.size).toBe(1);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1, keys: 1, providerCalls: 1 });
  });

  it('B.16 required-key operation without the header: 400 idempotency_key_required, nothing created', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const r = await start(key, widget(clientId));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('idempotency_key_required');
    expect(await footprint(t, orgId)).toMatchObject({ runs: 0, reservations: 0, keys: 0, providerCalls: 0 });
  });

  it('B.17 optional-key operation without the header, twice: two distinct records (documented)', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const a = await create(key, widget(clientId));
    const b = await create(key, widget(clientId));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(a.body.widget_id).not.toBe(b.body.widget_id);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 2, reservations: 2, keys: 0, providerCalls: 2 });
  });

  it('B.18 empty, 256-character and space-containing keys: 400 on both operations, nothing created', async () => {
    const { orgId, clientId, key } = await t.tenant();
    for (const bad of ['', 'x'.repeat(256), 'a b', 'a\tb']) {
      const c = await create(key, widget(clientId), bad);
      expect(c.status, JSON.stringify(bad)).toBe(400);
      expect(c.body.error.code).toBe('invalid_input');
      expect(c.body.error.details?.fields).toEqual([expect.objectContaining({ path: 'Idempotency-Key' })]);
      const s = await start(key, widget(clientId), bad);
      expect(s.status, JSON.stringify(bad)).toBe(400);
      expect(s.body.error.code).toBe('validation_error');
    }
    // 255 characters is the longest key accepted.
    expect((await create(key, widget(clientId), 'y'.repeat(255))).status).toBe(201);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1, keys: 1 });
  });

  it('B.18 control and non-ASCII characters in the key: 400, nothing created', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const body = JSON.stringify(widget(clientId));
    // Control characters are refused by Node's HTTP parser itself (a bare 400 before the app runs).
    for (const bad of ['a\u0001b', 'a\u007fb', 'a\u001bb']) {
      const r = await socketPost('/widgets', [`Authorization: Bearer ${key}`, `Idempotency-Key: ${bad}`], body);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    // Bytes above 0x7e reach the app, which refuses them with the API's error body.
    const latin = await socketPost('/widgets', [`Authorization: Bearer ${key}`, 'Idempotency-Key: k\u00e9y'], body);
    expect(latin.status).toBe(400);
    expect(latin.text).toContain('"code":"invalid_input"');
    expect(latin.text).toContain('"path":"Idempotency-Key"');
    expect(await footprint(t, orgId)).toMatchObject({ runs: 0, reservations: 0, keys: 0 });
  });

  it('B.18 two Idempotency-Key headers (different or identical): 400, nothing created', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const body = JSON.stringify(widget(clientId));
    for (const pair of [
      ['k1', 'k2'],
      ['k1', 'k1'],
    ]) {
      const r = await rawPost(
        '/widgets',
        { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': pair },
        body,
      );
      expect(r.status, pair.join()).toBe(400);
      expect((JSON.parse(r.body) as ErrorBody).error.code).toBe('invalid_input');
      const s = await rawPost(
        '/widgets/strict',
        { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': pair },
        body,
      );
      expect(s.status).toBe(400);
      expect((JSON.parse(s.body) as ErrorBody).error.code).toBe('validation_error');
    }
    // The same over a raw socket with the two header lines spelled differently.
    const sock = await socketPost(
      '/widgets',
      [`Authorization: Bearer ${key}`, 'Idempotency-Key: k1', 'idempotency-key: k1'],
      body,
    );
    expect(sock.status).toBe(400);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 0, reservations: 0, keys: 0 });
  });

  it('B.19 the structured-field string "abc-123" and the bare abc-123 are the same key', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const a = await create(key, widget(clientId), '"abc-123"');
    const b = await create(key, widget(clientId), 'abc-123');
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body.widget_id).toBe(a.body.widget_id);
    const keys = await t.db.selectFrom('idempotency_keys').select('key').where('org_id', '=', orgId).execute();
    expect(keys).toEqual([{ key: 'abc-123' }]);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1 });
  });

  it("B.20 the same key in another organisation is independent; org B never sees org A's stored body", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const first = await create(a.key, widget(a.clientId, 'secret-of-a'), 'shared-key');
    expect(first.status).toBe(201);
    // Org B replays org A's exact request (A's client id): processed as B's own request, so B's lookup of A's client fails.
    const probe = await create(b.key, widget(a.clientId, 'secret-of-a'), 'shared-key');
    expect(probe.status).toBe(404);
    expect(probe.text).not.toContain(first.body.widget_id);
    const own = await create(b.key, widget(b.clientId, 'b-own'), 'shared-key');
    expect(own.status).toBe(201);
    expect(own.body.widget_id).not.toBe(first.body.widget_id);
    expect(own.body.label).toBe('b-own');
    const replayB = await create(b.key, widget(b.clientId, 'b-own'), 'shared-key');
    expect(replayB.status).toBe(200);
    expect(replayB.body.widget_id).toBe(own.body.widget_id);
    const replayA = await create(a.key, widget(a.clientId, 'secret-of-a'), 'shared-key');
    expect(replayA.body.widget_id).toBe(first.body.widget_id);
    expect(await footprint(t, a.orgId)).toMatchObject({ runs: 1, reservations: 1, keys: 1 });
    expect(await footprint(t, b.orgId)).toMatchObject({ runs: 1, reservations: 1, keys: 1 });
  });

  it('B.21 a first attempt that fails validation (or is not found) is not stored; the corrected body is processed', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const bad = await create(key, { client_id: clientId }, 'b21');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_input');
    const missing = await create(key, widget('00000000-0000-4000-8000-000000000000'), 'b21');
    expect(missing.status).toBe(404);
    const good = await create(key, widget(clientId), 'b21');
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
    const strictBad = await start(key, { client_id: clientId, label: '' }, 'b21-strict');
    expect(strictBad.status).toBe(400);
    expect(strictBad.body.error.code).toBe('validation_error');
    expect((await start(key, widget(clientId), 'b21-strict')).status).toBe(202);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 2, reservations: 2, keys: 2 });
  });

  it('B.22 a first attempt refused by the rate limit is not stored; the later valid call is processed', async () => {
    const { orgId, clientId, key } = await t.tenant('starter');
    for (let i = 0; i < 30; i++) expect((await t.request('GET', '/usage', { key })).status).toBe(200);
    const limited = await create(key, widget(clientId), 'b22-rate');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limit_exceeded');
    expect(await footprint(t, orgId)).toMatchObject({ runs: 0, reservations: 0, keys: 0 });
    t.clock.advance(60_000);
    const later = await create(key, widget(clientId), 'b22-rate');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  it('B.22 a first attempt refused as unauthorised (expired key) is not stored; the later valid call is processed', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const expired = await t.key(orgId, SCOPES, t.clock.now() - 1);
    const denied = await create(expired.apiKey, widget(clientId), 'b22-auth');
    expect(denied.status).toBe(401);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 0, keys: 0 });
    const ok = await create(key, widget(clientId), 'b22-auth');
    expect(ok.status).toBe(201);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it('B.22 a first attempt refused by the usage limit is not stored; the same call later is processed', async () => {
    const { orgId, clientId, key } = await t.tenant('starter');
    expect((await create(key, widget(clientId, 'fill', { units: 100 }), 'b22-fill')).status).toBe(201);
    const refused = await create(key, widget(clientId), 'b22-usage');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'usage_limit_reached', details: { window: '24h' } });
    expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1, keys: 1 });
    t.clock.advance(DAY + 1_000);
    const later = await create(key, widget(clientId), 'b22-usage');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await footprint(t, orgId)).toMatchObject({ runs: 2, reservations: 2 });
  });

  it('B.25 a key older than the retention (24 h + 1 s, reaped) is processed as new', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const first = await create(key, widget(clientId), 'b25');
    // The first run finishes before the clock jumps a day: a step still in flight across the jump would lose its lease
    // and be run again by the next claim (a takeover, as after a crash), which is not what this test is about.
    await t.engine.runner.runUntilIdle();
    t.clock.advance(DAY - 1_000);
    expect((await create(key, widget(clientId), 'b25')).status).toBe(200);
    t.clock.advance(2_000);
    expect(await t.engine.idempotency.reap(t.db)).toBeGreaterThanOrEqual(1);
    expect(await footprint(t, orgId)).toMatchObject({ keys: 0 });
    const again = await create(key, widget(clientId), 'b25');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.widget_id).not.toBe(first.body.widget_id);
    expect(await footprint(t, orgId)).toMatchObject({ runs: 2, reservations: 2, keys: 1, providerCalls: 2 });
  });

  it('B.26 the stored replay survives a restart (records are in the database)', async () => {
    const first = await startTestApp({
      operations: [...OPERATIONS, ...widgetOperations()],
      pipelines: (e) => [widgetPipeline(e, () => provider.url)],
    });
    const { orgId, clientId, key } = await first.tenant();
    const created = await create(key, widget(clientId), 'b26', first);
    expect(created.status).toBe(201);
    await first.engine.runner.runUntilIdle();
    await first.stop();
    const second = await startTestApp({
      dbPath: first.dbPath,
      operations: [...OPERATIONS, ...widgetOperations()],
      pipelines: (e) => [widgetPipeline(e, () => provider.url)],
    });
    try {
      const replay = await create(key, widget(clientId), 'b26', second);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.widget_id).toBe(created.body.widget_id);
      expect(await footprint(second, orgId)).toMatchObject({ runs: 1, reservations: 1, keys: 1, providerCalls: 1 });
    } finally {
      await second.close();
      first.cleanup();
    }
  });
});

describe('B. idempotency over MCP', () => {
  type ToolResult = Awaited<ReturnType<Awaited<ReturnType<typeof connectHttpClient>>['client']['callTool']>>;
  const body = (r: ToolResult) => structured<Widget & ErrorBody>(r);

  it('B.11 same idempotency_key and arguments twice over MCP: the same widget, one reservation, one provider call', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const c = await connectHttpClient(t.url, key);
    try {
      const a = await c.client.callTool({
        name: 'create_widget',
        arguments: { ...widget(clientId), idempotency_key: 'm11' },
      });
      const b = await c.client.callTool({
        name: 'create_widget',
        arguments: { label: 'w', client_id: clientId, idempotency_key: 'm11' },
      });
      expect(a.isError).toBeFalsy();
      expect(b.isError).toBeFalsy();
      expect(body(b).widget_id).toBe(body(a).widget_id);
      const s1 = await c.client.callTool({
        name: 'start_widget',
        arguments: { ...widget(clientId), idempotency_key: 'm11-strict' },
      });
      const s2 = await c.client.callTool({
        name: 'start_widget',
        arguments: { ...widget(clientId), idempotency_key: 'm11-strict' },
      });
      expect(body(s2).widget_id).toBe(body(s1).widget_id);
      expect(await footprint(t, orgId)).toMatchObject({ runs: 2, reservations: 2, keys: 2, providerCalls: 2 });
    } finally {
      await c.close();
    }
  });

  it('B.11 the same key over REST and then MCP (and back) replays across transports', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const c = await connectHttpClient(t.url, key);
    try {
      const rest = await create(key, widget(clientId), 'cross');
      expect(rest.status).toBe(201);
      const mcp = await c.client.callTool({
        name: 'create_widget',
        arguments: { ...widget(clientId), idempotency_key: 'cross' },
      });
      expect(mcp.isError).toBeFalsy();
      expect(body(mcp).widget_id).toBe(rest.body.widget_id);
      const viaMcp = await c.client.callTool({
        name: 'create_widget',
        arguments: { ...widget(clientId, 'm'), idempotency_key: 'cross-2' },
      });
      const viaRest = await create(key, widget(clientId, 'm'), 'cross-2');
      expect(viaRest.status).toBe(200);
      expect(viaRest.headers.get('idempotent-replayed')).toBe('true');
      expect(viaRest.body.widget_id).toBe(body(viaMcp).widget_id);
      const reused = await c.client.callTool({
        name: 'create_widget',
        arguments: { ...widget(clientId, 'other'), idempotency_key: 'cross' },
      });
      expect(reused.isError).toBe(true);
      expect(body(reused).error.code).toBe('idempotency_key_reused');
      expect(await footprint(t, orgId)).toMatchObject({ runs: 2, reservations: 2, keys: 2, providerCalls: 2 });
    } finally {
      await c.close();
    }
  });

  it('B.15 20 concurrent identical MCP calls: one execution, one record', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const c = await connectHttpClient(t.url, key);
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          c.client.callTool({ name: 'create_widget', arguments: { ...widget(clientId), idempotency_key: 'm15' } }),
        ),
      );
      const ok = results.filter((r) => !r.isError);
      for (const r of results.filter((x) => x.isError)) expect(body(r).error.code).toBe('idempotency_key_in_use');
      expect(new Set(ok.map((r) => body(r).widget_id)).size).toBe(1);
      expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1, keys: 1, providerCalls: 1 });
    } finally {
      await c.close();
    }
  });

  it('B.16 required-key tool without idempotency_key: idempotency_key_required, nothing created', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const c = await connectHttpClient(t.url, key);
    try {
      const r = await c.client.callTool({ name: 'start_widget', arguments: widget(clientId) });
      expect(r.isError).toBe(true);
      expect(body(r).error.code).toBe('idempotency_key_required');
      expect(await footprint(t, orgId)).toMatchObject({ runs: 0, reservations: 0, keys: 0 });
    } finally {
      await c.close();
    }
  });

  it('B.18 invalid idempotency_key values over MCP: the same 400 codes as REST, nothing created', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const c = await connectHttpClient(t.url, key);
    try {
      for (const bad of ['', 'x'.repeat(256), 'a b', 'a\u0001b', 'k\u00e9y']) {
        const r = await c.client.callTool({
          name: 'create_widget',
          arguments: { ...widget(clientId), idempotency_key: bad },
        });
        expect(r.isError, JSON.stringify(bad)).toBe(true);
        expect(body(r).error.code).toBe('invalid_input');
        const s = await c.client.callTool({
          name: 'start_widget',
          arguments: { ...widget(clientId), idempotency_key: bad },
        });
        expect(body(s).error.code).toBe('validation_error');
      }
      const notString = await c.client.callTool({
        name: 'create_widget',
        arguments: { ...widget(clientId), idempotency_key: 7 },
      });
      expect(body(notString).error.code).toBe('invalid_input');
      expect(await footprint(t, orgId)).toMatchObject({ runs: 0, reservations: 0, keys: 0 });
    } finally {
      await c.close();
    }
  });

  it('B.19 a quoted idempotency_key over MCP equals the bare key over REST', async () => {
    const { orgId, clientId, key } = await t.tenant();
    const c = await connectHttpClient(t.url, key);
    try {
      const a = await c.client.callTool({
        name: 'create_widget',
        arguments: { ...widget(clientId), idempotency_key: '"abc-123"' },
      });
      const b = await create(key, widget(clientId), 'abc-123');
      expect(b.status).toBe(200);
      expect(b.body.widget_id).toBe(body(a).widget_id);
      expect(await footprint(t, orgId)).toMatchObject({ runs: 1, reservations: 1 });
    } finally {
      await c.close();
    }
  });
});
