import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateOrganisation } from '../../src/store/repos/organisations.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { countRows, sqlRows } from '../helpers/rows.ts';
import { widgetOperations } from '../helpers/widget.ts';

const operations = [...OPERATIONS, ...widgetOperations()];

function rate(r: TestResponse<unknown>) {
  const h = (name: string) => r.headers.get(name);
  return {
    limit: h('x-ratelimit-limit'),
    remaining: h('x-ratelimit-remaining'),
    reset: h('x-ratelimit-reset'),
    retryAfter: h('retry-after'),
  };
}

/** Rows an accepted write leaves behind for one organisation. */
async function orgRows(t: TestApp, orgId: string) {
  return {
    runs: await countRows(t.db, 'runs', { org_id: orgId }),
    ledger: await countRows(t.db, 'usage_ledger', { org_id: orgId }),
    idempotency: await countRows(t.db, 'idempotency_keys', { org_id: orgId }),
  };
}

async function exhaust(t: TestApp, key: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) expect((await t.request('GET', '/usage', { key })).status).toBe(200);
}

describe('per-key rate limiting over REST and MCP (docs/reliability.md D)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ operations });
  });
  afterAll(async () => {
    await t.close();
  });

  it('D.35 a 30/min key gets 200 for requests 1-30 with Limit 30 and Remaining 29→0, then 429', async () => {
    const { key } = await t.tenant('starter');
    const remaining: string[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await t.request('GET', '/usage', { key });
      expect(r.status).toBe(200);
      expect(rate(r).limit).toBe('30');
      remaining.push(rate(r).remaining!);
    }
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => String(29 - i)));
    const r31 = await t.request('GET', '/usage', { key });
    expect(r31.status).toBe(429);
    expect(r31.body).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  it('D.36 a 429 carries Retry-After in whole seconds, Remaining 0 and an epoch-seconds Reset consistent with it', async () => {
    const { key } = await t.tenant('starter');
    await exhaust(t, key, 30);
    const r = await t.request<{ error: { details: Record<string, number> } }>('GET', '/usage', { key });
    expect(r.status).toBe(429);
    const h = rate(r);
    expect(h.retryAfter).toMatch(/^\d+$/);
    const retryAfter = Number(h.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBe(2); // 30/min: one request back every 2 s; milliseconds would read 2000
    expect(h.remaining).toBe('0');
    expect(h.limit).toBe('30');
    expect(h.reset).toMatch(/^\d+$/);
    const reset = Number(h.reset);
    const nowS = t.clock.now() / 1000;
    // Epoch seconds, not milliseconds; when the full allowance is back: no sooner than the next request may pass.
    expect(reset).toBeGreaterThanOrEqual(Math.floor(nowS) + retryAfter);
    expect(reset).toBeLessThanOrEqual(Math.ceil(nowS) + 60);
    expect(r.body.error.details).toMatchObject({ retry_after_seconds: retryAfter, reset_at: reset, limit: 30 });
    // At Reset the key has its whole allowance again.
    t.clock.set(reset * 1000);
    const fresh = await t.request('GET', '/usage', { key });
    expect(fresh.status).toBe(200);
    expect(rate(fresh).remaining).toBe('29');
  });

  it('D.37 after advancing the clock by Retry-After the next request is 200', async () => {
    const { key } = await t.tenant('starter');
    await exhaust(t, key, 30);
    const r = await t.request('GET', '/usage', { key });
    expect(r.status).toBe(429);
    const wait = Number(r.headers.get('retry-after'));
    t.clock.advance(wait * 1000 - 1);
    expect((await t.request('GET', '/usage', { key })).status).toBe(429);
    t.clock.advance(1);
    const ok = await t.request('GET', '/usage', { key });
    expect(ok.status).toBe(200);
    expect(rate(ok).remaining).toBe('0');
  });

  it('D.38 boundary burst: 30 at 00:59.9 then 30 at 01:00.1 → the second batch is (almost) all 429', async () => {
    const { key } = await t.tenant('starter');
    const minute = Math.ceil(t.clock.now() / 60_000) * 60_000;
    t.clock.set(minute + 59_900);
    const first = await Promise.all(Array.from({ length: 30 }, () => t.request('GET', '/usage', { key })));
    t.clock.set(minute + 60_100);
    const second = await Promise.all(Array.from({ length: 30 }, () => t.request('GET', '/usage', { key })));
    expect(first.filter((r) => r.status === 200)).toHaveLength(30);
    const passed = second.filter((r) => r.status === 200).length;
    expect(passed).toBeLessThanOrEqual(1);
    expect(second.filter((r) => r.status === 429)).toHaveLength(30 - passed);
  });

  it('D.39 60 parallel requests on a 30/min key: exactly 30 succeed', async () => {
    const { key } = await t.tenant('starter');
    const rs = await Promise.all(Array.from({ length: 60 }, () => t.request('GET', '/usage', { key })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(30);
    expect(rs.filter((r) => r.status === 429)).toHaveLength(30);
    // Every allowance value was handed out once.
    const remaining = rs
      .filter((r) => r.status === 200)
      .map((r) => Number(rate(r).remaining))
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('D.40 key A exhausted does not affect key B; a plan upgrade 30→120 takes effect on the next request', async () => {
    const { orgId, key: keyA } = await t.tenant('starter');
    const keyB = (await t.key(orgId)).apiKey;
    await exhaust(t, keyA, 30);
    expect((await t.request('GET', '/usage', { key: keyA })).status).toBe(429);
    const b = await t.request('GET', '/usage', { key: keyB });
    expect(b.status).toBe(200);
    expect(rate(b)).toMatchObject({ limit: '30', remaining: '29' });

    await updateOrganisation(t.db, orgId, { plan: 'agency' }, t.clock.now());
    const up = await t.request<{ rate_limit_per_minute: number }>('GET', '/usage', { key: keyA });
    expect(up.status).toBe(200);
    expect(rate(up).limit).toBe('120');
    expect(rate(up).remaining).toBe('89'); // the 30 used this minute count against the new 120
    expect(up.body.rate_limit_per_minute).toBe(120);
    // 89 more pass in this instant, then the 121st of the minute is refused.
    const rest = await Promise.all(Array.from({ length: 90 }, () => t.request('GET', '/usage', { key: keyA })));
    expect(rest.filter((r) => r.status === 200)).toHaveLength(89);
    const refused = rest.find((r) => r.status === 429)!;
    expect(rate(refused)).toMatchObject({ limit: '120', remaining: '0', retryAfter: '1' });
  });

  it('D.41 a 429 creates no run, no reservation and is not stored under its Idempotency-Key', async () => {
    const { orgId, clientId, key } = await t.tenant('starter');
    await exhaust(t, key, 30);
    const before = await orgRows(t, orgId);
    const body = { client_id: clientId, label: 'd41', units: 3 };
    const limited = await t.request('POST', '/widgets', { key, body, headers: { 'idempotency-key': 'd41-key' } });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    const strict = await t.request('POST', '/widgets/strict', {
      key,
      body,
      headers: { 'idempotency-key': 'd41-strict' },
    });
    expect(strict.status).toBe(429);
    expect(await orgRows(t, orgId)).toEqual(before);

    t.clock.advance(Number(limited.headers.get('retry-after')) * 1000);
    const created = await t.request<{ widget_id: string }>('POST', '/widgets', {
      key,
      body,
      headers: { 'idempotency-key': 'd41-key' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    expect(await orgRows(t, orgId)).toEqual({
      runs: before.runs + 1,
      ledger: before.ledger + 1,
      idempotency: before.idempotency + 1,
    });
    const reservation = await sqlRows(
      t.db,
      sql`SELECT units, state FROM usage_ledger WHERE resource_id = ${created.body.widget_id}`,
    );
    expect(reservation).toEqual([{ units: 3, state: 'reserved' }]);
  });

  it('D.42 rate-limit headers are present and non-negative on 2xx, non-auth 4xx and 429', async () => {
    const { orgId, clientId, key } = await t.tenant('starter');
    const reader = (await t.key(orgId, ['reporter:read'])).apiKey;
    const check = (r: TestResponse<unknown>, status: number) => {
      expect(r.status).toBe(status);
      const h = rate(r);
      expect(h.limit, `${status} limit`).toMatch(/^\d+$/);
      expect(h.remaining, `${status} remaining`).toMatch(/^\d+$/);
      expect(h.reset, `${status} reset`).toMatch(/^\d+$/);
      expect(Number(h.reset)).toBeGreaterThanOrEqual(Math.floor(t.clock.now() / 1000));
      if (status === 429) expect(h.retryAfter).toMatch(/^[1-9]\d*$/);
      else expect(h.retryAfter).toBeNull();
    };
    check(await t.request('GET', '/usage', { key }), 200);
    check(
      await t.request('POST', '/widgets', {
        key,
        body: { client_id: clientId, label: 'h' },
        headers: { 'idempotency-key': 'd42' },
      }),
      201,
    );
    check(
      await t.request('POST', '/widgets', {
        key,
        body: { client_id: clientId, label: 'h' },
        headers: { 'idempotency-key': 'd42' },
      }),
      200,
    );
    check(await t.request('GET', `/widgets/${randomUUID()}`, { key }), 404);
    check(
      await t.request('POST', '/widgets', {
        key,
        rawBody: '{not json',
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
    check(await t.request('POST', '/widgets', { key, body: { client_id: 'nope', label: '' } }), 400);
    check(await t.request('POST', '/widgets/strict', { key, body: { client_id: clientId, label: 'h' } }), 400);
    check(
      await t.request('POST', '/widgets', {
        key,
        body: { client_id: clientId, label: 'other' },
        headers: { 'idempotency-key': 'd42' },
      }),
      422,
    );
    check(await t.request('GET', '/clients', { key, query: { limit: 1000 } }), 400);
    check(await t.request('POST', '/widgets', { key: reader, body: { client_id: clientId, label: 'h' } }), 403);
    // Use up the rest of the minute; every answer on the way, and the refusals after, keep the headers.
    for (;;) {
      const r = await t.request('GET', '/usage', { key });
      if (r.status === 429) {
        check(r, 429);
        expect(rate(r).remaining).toBe('0');
        break;
      }
      check(r, 200);
    }
    for (let i = 0; i < 5; i++) check(await t.request('GET', `/widgets/${randomUUID()}`, { key }), 429);
  });

  it('MCP tool calls count against the same per-key limit and get the same rate_limit_exceeded body', async () => {
    const { orgId, clientId, key } = await t.tenant('starter');
    await exhaust(t, key, 8);
    // Every MCP message counts (I.2): opening the session spends two (initialize, notifications/initialized).
    const mcp = await connectHttpClient(t.url, key);
    try {
      for (let i = 0; i < 20; i++) {
        const ok = await mcp.client.callTool({ name: 'get_usage', arguments: {} });
        expect(ok.isError, `call ${i + 1}`).toBeFalsy();
      }
      const limited = await mcp.client.callTool({ name: 'get_usage', arguments: {} });
      expect(limited.isError).toBe(true);
      expect(structured(limited)).toMatchObject({
        error: { code: 'rate_limit_exceeded', details: { limit: 30, retry_after_seconds: 2 } },
      });
      // REST sees the same exhausted allowance and answers the same body at the same instant.
      const rest = await t.request('GET', '/usage', { key });
      expect(rest.status).toBe(429);
      expect(structured(limited)).toEqual(rest.body);

      // A refused tool call creates nothing and stores nothing under its key.
      const before = await orgRows(t, orgId);
      const w = await mcp.client.callTool({
        name: 'create_widget',
        arguments: { client_id: clientId, label: 'm', idempotency_key: 'mcp-d41' },
      });
      expect(w.isError).toBe(true);
      expect(structured(w)).toEqual(rest.body);
      expect(await orgRows(t, orgId)).toEqual(before);

      // One interval later exactly one call passes, whichever transport takes it.
      t.clock.advance(2_000);
      const again = await mcp.client.callTool({
        name: 'create_widget',
        arguments: { client_id: clientId, label: 'm', idempotency_key: 'mcp-d41' },
      });
      expect(again.isError).toBeFalsy();
      expect(structured(again)).toMatchObject({ status: 'queued', billing: 'reserved' });
      expect((await t.request('GET', '/usage', { key })).status).toBe(429);
    } finally {
      await mcp.close();
    }
  });
});
