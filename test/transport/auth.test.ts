import { randomUUID } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/engine/accounts/api-keys.ts';
import { revokeApiKey } from '../../src/store/repos/api-keys.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { captureLogger } from '../helpers/logs.ts';
import { countRows } from '../helpers/rows.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { widgetOperations } from '../helpers/widget.ts';

const operations = [...OPERATIONS, ...widgetOperations()];

/** Rows that any accepted write would leave behind, per table. */
async function counts(t: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['runs', 'usage_ledger', 'idempotency_keys', 'clients', 'api_keys', 'organisations'] as const) {
    out[table] = await countRows(t.db, table);
  }
  return out;
}

/** Flips one checksum character so the key keeps its shape but fails the check. */
/**
 * Statements other than the limiters' own. On PostgreSQL the failed-authentication limit is kept in the database (one
 * row per address), so a refused request runs that one upsert and nothing else; on SQLite it is in memory.
 */
function outsideLimiter(t: TestApp): number {
  return t.engine.dbStats.statements - t.engine.dbStats.limiter;
}

function badChecksum(key: string): string {
  return key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
}

/** POSTs a raw JSON-RPC initialize to /mcp, as a client would before it has a session. */
function mcpInitialize(t: TestApp, headers: Record<string, string> = {}, path = '/mcp') {
  return t.request('POST', path, {
    headers: { accept: 'application/json, text/event-stream', ...headers },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
  });
}

describe('authentication, scopes and tenancy (docs/reliability.md A)', () => {
  let t: TestApp;
  const logs = captureLogger('trace');
  beforeAll(async () => {
    // Failed-auth allowance raised so these cases never trip the per-IP limiter; A.10 runs its own app with the default.
    t = await startTestApp({ operations, logger: logs.logger, env: { AGENT_API_FAILED_AUTH_PER_MINUTE: '100000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('A.1 no Authorization header answers 401 unauthorized with WWW-Authenticate: Bearer and touches no table', async () => {
    const { clientId } = await t.tenant();
    const before = await counts(t);
    const statements = outsideLimiter(t);
    const responses = [
      await t.request('GET', '/usage'),
      await t.request('GET', '/clients'),
      await t.request('POST', '/widgets', {
        body: { client_id: clientId, label: 'x' },
        headers: { 'idempotency-key': 'a1' },
      }),
      await t.request('GET', `/widgets/${randomUUID()}`),
      await t.request('GET', '/usage', { headers: { authorization: '' } }),
      await t.request('GET', '/usage', { headers: { authorization: 'Bearer' } }),
      await t.request('GET', '/usage', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
      await mcpInitialize(t),
    ];
    for (const [i, r] of responses.entries()) {
      expect(r.status).toBe(401);
      // MCP's challenge also points to the resource metadata (docs/oauth.md); REST's is the plain one.
      if (i === responses.length - 1)
        expect(r.headers.get('www-authenticate')).toMatch(
          /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
        );
      else expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(r.body).toMatchObject({ error: { code: 'unauthorized' } });
      expect(r.headers.get('x-request-id')).toBeTruthy();
    }
    expect(outsideLimiter(t) - statements).toBe(0);
    expect(await counts(t)).toEqual(before);
  });

  it('A.2 malformed or wrong-prefix keys are rejected without a database read', async () => {
    const { key } = await t.tenant();
    const body = key.slice('aapi_'.length);
    const malformed = [
      `sk_live_${body}`,
      `sk_live_${'a'.repeat(24)}`,
      badChecksum(key),
      key.slice(0, -1),
      `${key}0`,
      `aapi_${body.slice(0, 10)}!${body.slice(11)}`,
      'aapi_',
      'not-a-key-at-all',
    ];
    const statements = outsideLimiter(t);
    for (const k of malformed) {
      const r = await t.request('GET', '/usage', { key: k });
      expect(r.status, k).toBe(401);
      expect(r.body).toMatchObject({ error: { code: 'unauthorized' } });
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      const m = await mcpInitialize(t, { authorization: `Bearer ${k}` });
      expect(m.status, k).toBe(401);
    }
    expect(outsideLimiter(t) - statements).toBe(0);
    // The real key still works, and does read the database: the counter is live.
    expect((await t.request('GET', '/usage', { key })).status).toBe(200);
    expect(outsideLimiter(t)).toBeGreaterThan(statements);
  });

  it('A.3 a revoked key used 1 s after revocation answers 401 on REST and on an open MCP session', async () => {
    const { key, keyId } = await t.tenant();
    expect((await t.request('GET', '/usage', { key })).status).toBe(200);
    const mcp = await connectHttpClient(t.url, key);
    try {
      expect((await mcp.client.callTool({ name: 'get_usage', arguments: {} })).isError).toBeFalsy();
      expect(await revokeApiKey(t.db, keyId, t.clock.now())).toBe(true);
      t.clock.advance(1_000);
      const r = await t.request('GET', '/usage', { key });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: { code: 'unauthorized' } });
      await expect(mcp.client.callTool({ name: 'get_usage', arguments: {} })).rejects.toMatchObject({
        code: 401,
        message: expect.stringContaining('unauthorized'),
      });
    } finally {
      await mcp.close().catch(() => undefined);
    }
  });

  it('A.4 a key that expired 1 s ago answers 401; one expiring in 1 s answers 200', async () => {
    const { orgId } = await t.tenant();
    const now = t.clock.now();
    const expired = await t.key(orgId, ['copywriter:read'], now - 1_000);
    const live = await t.key(orgId, ['copywriter:read'], now + 1_000);
    const gone = await t.request('GET', '/usage', { key: expired.apiKey });
    expect(gone.status).toBe(401);
    expect(gone.body).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await mcpInitialize(t, { authorization: `Bearer ${expired.apiKey}` })).status).toBe(401);
    const ok = await t.request('GET', '/usage', { key: live.apiKey });
    expect(ok.status).toBe(200);
    // And the live one stops at its expiry instant.
    t.clock.advance(1_000);
    expect((await t.request('GET', '/usage', { key: live.apiKey })).status).toBe(401);
  });

  it('A.5 a valid key lacking the scope gets 403 forbidden naming the scope, identically on REST and MCP', async () => {
    const { orgId, clientId } = await t.tenant('pro');
    const reader = await t.key(orgId, ['reporter:read']);
    const body = { client_id: clientId, label: 'x' };
    const cases: {
      tool: string;
      method: string;
      path: string;
      args: Record<string, unknown>;
      scope: string;
      headers: Record<string, string>;
    }[] = [
      { tool: 'create_widget', method: 'POST', path: '/widgets', args: body, scope: 'copywriter:run', headers: {} },
      {
        tool: 'start_widget',
        method: 'POST',
        path: '/widgets/strict',
        args: body,
        scope: 'optimize:run',
        headers: { 'idempotency-key': 'a5' },
      },
      {
        tool: 'get_widget',
        method: 'GET',
        path: `/widgets/${randomUUID()}`,
        args: { widget_id: randomUUID() },
        scope: 'copywriter:read',
        headers: {},
      },
    ];
    const before = await counts(t);
    const mcp = await connectHttpClient(t.url, reader.apiKey);
    try {
      for (const c of cases) {
        const r = await t.request(c.method, c.path, {
          key: reader.apiKey,
          body: c.method === 'GET' ? undefined : c.args,
          headers: c.headers,
        });
        expect(r.status, c.tool).toBe(403);
        expect(r.body).toEqual({
          error: { code: 'forbidden', message: expect.stringContaining(c.scope), details: { required_scope: c.scope } },
        });
        const args = c.tool === 'start_widget' ? { ...c.args, idempotency_key: 'a5' } : c.args;
        const m = await mcp.client.callTool({ name: c.tool, arguments: args });
        expect(m.isError).toBe(true);
        expect(structured(m)).toEqual(r.body);
      }
    } finally {
      await mcp.close();
    }
    expect(await counts(t)).toEqual(before);
    // A key holding copywriter:run is granted copywriter:read, so the read is a 404 for a missing id, not a 403.
    const writer = await t.key(orgId, ['copywriter:run']);
    expect((await t.request('GET', `/widgets/${randomUUID()}`, { key: writer.apiKey })).status).toBe(404);
  });

  it("A.6 another org's ids answer 404 with a body identical to a truly missing id", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const created = await t.request<{ widget_id: string }>('POST', '/widgets', {
      key: a.key,
      body: { client_id: a.clientId, label: 'mine' },
    });
    expect(created.status).toBe(201);
    const widgetId = created.body.widget_id;
    expect((await t.request('GET', `/widgets/${widgetId}`, { key: a.key })).status).toBe(200);

    const foreign = await t.request('GET', `/widgets/${widgetId}`, { key: b.key });
    const missing = await t.request('GET', `/widgets/${randomUUID()}`, { key: b.key });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: { code: 'not_found' } });
    expect(foreign.text).toBe(missing.text);
    expect(foreign.headers.get('content-type')).toBe(missing.headers.get('content-type'));
    expect(foreign.headers.get('x-request-id')).not.toBe(missing.headers.get('x-request-id'));
    expect(foreign.text).not.toContain(foreign.headers.get('x-request-id')!);

    // A client id of another org, in a body, answers exactly what a random client id answers.
    const foreignClient = await t.request('POST', '/widgets', {
      key: b.key,
      body: { client_id: a.clientId, label: 'x' },
    });
    const missingClient = await t.request('POST', '/widgets', {
      key: b.key,
      body: { client_id: randomUUID(), label: 'x' },
    });
    expect(foreignClient.status).toBe(404);
    expect(foreignClient.text).toBe(missingClient.text);

    // The same over MCP, and the MCP bodies equal the REST ones.
    const mcp = await connectHttpClient(t.url, b.key);
    try {
      const mf = await mcp.client.callTool({ name: 'get_widget', arguments: { widget_id: widgetId } });
      const mm = await mcp.client.callTool({ name: 'get_widget', arguments: { widget_id: randomUUID() } });
      expect(mf.isError).toBe(true);
      expect(structured(mf)).toEqual(structured(mm));
      expect(structured(mf)).toEqual(foreign.body);
    } finally {
      await mcp.close();
    }

    // Lists never show another org's clients.
    const list = await t.request<{ data: { client_id: string }[]; pagination: { total: number } }>('GET', '/clients', {
      key: b.key,
    });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c) => c.client_id)).toEqual([b.clientId]);
    expect(list.body.pagination.total).toBe(1);
  });

  it("A.7 another org's client_id answers 404 not_found and nothing is created, reserved or remembered", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const before = await counts(t);
    const rest = await t.request('POST', '/widgets', {
      key: b.key,
      body: { client_id: a.clientId, label: 'x', units: 5 },
      headers: { 'idempotency-key': 'a7-key' },
    });
    expect(rest.status).toBe(404);
    expect(rest.body).toMatchObject({ error: { code: 'not_found' } });
    const strict = await t.request('POST', '/widgets/strict', {
      key: b.key,
      body: { client_id: a.clientId, label: 'x' },
      headers: { 'idempotency-key': 'a7-strict' },
    });
    expect(strict.status).toBe(404);
    expect(strict.body).toMatchObject({ error: { code: 'not_found' } });

    const mcp = await connectHttpClient(t.url, b.key);
    try {
      const m = await mcp.client.callTool({
        name: 'create_widget',
        arguments: { client_id: a.clientId, label: 'x', idempotency_key: 'a7-mcp' },
      });
      expect(m.isError).toBe(true);
      expect(structured(m)).toEqual(rest.body);
    } finally {
      await mcp.close();
    }
    expect(await counts(t)).toEqual(before);
    const usage = await t.request<{ windows: Record<'24h' | '7d', { used: number; reserved: number }> }>(
      'GET',
      '/usage',
      { key: b.key },
    );
    expect(usage.status).toBe(200);
    expect(usage.body.windows['24h']).toMatchObject({ used: 0, reserved: 0 });
    expect(usage.body.windows['7d']).toMatchObject({ used: 0, reserved: 0 });

    // The failed key was not stored: the same key now creates a widget (201, not a replay of the 404).
    const ok = await t.request('POST', '/widgets', {
      key: b.key,
      body: { client_id: b.clientId, label: 'x', units: 5 },
      headers: { 'idempotency-key': 'a7-key' },
    });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    const after = await counts(t);
    expect(after.runs).toBe(before.runs! + 1);
    expect(after.usage_ledger).toBe(before.usage_ledger! + 1);
    const reserved = await t.request<{ windows: Record<'24h', { reserved: number }> }>('GET', '/usage', { key: b.key });
    expect(reserved.body.windows['24h'].reserved).toBe(5);
    // Org A's own client is untouched by B's attempts.
    expect(await countRows(t.db, 'runs', { org_id: a.orgId })).toBe(0);
  });

  it('A.8 a key in ?api_key= is ignored (401) and never appears in the logs', async () => {
    const { key, clientId } = await t.tenant();
    const secret = key.slice('aapi_'.length);
    const rs = [
      await t.request('GET', '/usage', { query: { api_key: key } }),
      await t.request('GET', '/clients', { query: { api_key: key, limit: 5 } }),
      await t.request('POST', '/widgets', { query: { api_key: key }, body: { client_id: clientId, label: 'x' } }),
      await mcpInitialize(t, {}, `/mcp?api_key=${key}`),
    ];
    for (const r of rs) {
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: { code: 'unauthorized' } });
      expect(r.text).not.toContain(secret);
    }
    expect(logs.text()).toMatch(/"status":401/); // the capture saw these requests
    expect(logs.text()).not.toContain(secret);
    expect(logs.text()).not.toContain('api_key=');
  });

  it('A.9 logs of a failed authentication contain neither the key nor the Authorization header', async () => {
    const { key, keyId } = await t.tenant();
    const neverIssued = generateApiKey();
    const attempts = [neverIssued, badChecksum(generateApiKey()), `sk_live_${'Z'.repeat(30)}`, key];
    await revokeApiKey(t.db, keyId, t.clock.now()); // the real key now fails too, after a database read
    t.clock.advance(1);
    const mark = logs.lines().length;
    for (const k of attempts) {
      expect((await t.request('GET', '/usage', { key: k })).status).toBe(401);
      expect(
        (await t.request('POST', '/widgets', { key: k, body: { label: 'x' }, headers: { 'x-api-key': k } })).status,
      ).toBe(401);
      expect((await mcpInitialize(t, { authorization: `Bearer ${k}` })).status).toBe(401);
    }
    const captured = logs.lines().slice(mark).join('\n');
    expect(captured).toContain('authentication failed');
    for (const k of attempts) {
      expect(captured).not.toContain(k);
      expect(captured).not.toContain(k.slice(-20));
      expect(captured).not.toContain(`Bearer ${k}`);
    }
    expect(captured).not.toMatch(/bearer/i);
  });
});

describe('per-IP failed-authentication limiter (docs/reliability.md A.10)', () => {
  let t: TestApp;
  let other: Agent;
  beforeAll(async () => {
    t = await startTestApp({ operations }); // default allowance: 20 failed attempts per minute per address
    // Loopback is 127.0.0.0/8 on Linux: a second source address without a second machine.
    other = new Agent({ localAddress: '127.0.0.2' });
  });
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  it('A.10 100 random invalid keys from one IP get 429 from the per-IP limiter; a valid key from another IP is unaffected', async () => {
    const { key } = await t.tenant();
    const statuses: number[] = [];
    let malformedStatementsWhileLimited = 0;
    for (let i = 0; i < 100; i++) {
      const wellFormed = i % 2 === 0;
      const k = wellFormed ? generateApiKey() : `aapi_${randomUUID().replaceAll('-', '')}`;
      const before = outsideLimiter(t);
      const r = await t.request('GET', '/usage', { key: k });
      statuses.push(r.status);
      if (r.status === 429) {
        if (!wellFormed) malformedStatementsWhileLimited += outsideLimiter(t) - before;
        expect(r.body).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    // Over its allowance a malformed key is refused before anything is read; a well-formed one is looked up, so a key
    // that matches still gets in (I.10).
    expect(malformedStatementsWhileLimited).toBe(0);

    const fromOther = await undiciFetch(`${t.url}/api/agent/v1/usage`, {
      dispatcher: other,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(fromOther.status).toBe(200);
    expect(fromOther.headers.get('x-ratelimit-limit')).toBe('30');
    await fromOther.text();
    // The request really came from the second address (the failure log names it), and that address has its own allowance.
    const bad = await undiciFetch(`${t.url}/api/agent/v1/usage`, {
      dispatcher: other,
      headers: { authorization: `Bearer ${generateApiKey()}` },
    });
    expect(bad.status).toBe(401);
    await bad.text();
    expect(t.logs!.lines().some((l) => l.includes('authentication failed') && l.includes('"ip":"127.0.0.2"'))).toBe(
      true,
    );

    // The allowance refills with time: after a minute the first address is answered 401 (checked), not 429.
    t.clock.advance(60_000);
    expect((await t.request('GET', '/usage', { key: generateApiKey() })).status).toBe(401);
  });

  it('I.10 a valid key is never locked out by junk from its own address: only failures are counted and limited', async () => {
    const { key } = await t.tenant('agency');
    t.clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const junk = await t.request('GET', '/usage', { key: i % 2 ? generateApiKey() : 'aapi_junk' });
      statuses.push(junk.status);
      // The user's own requests, interleaved with the junk from the same address, always pass.
      expect((await t.request('GET', '/usage', { key })).status).toBe(200);
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    // The same over MCP Streamable HTTP: the key opens a session while its address is over the allowance.
    const mcp = await connectHttpClient(t.url, key);
    try {
      expect((await mcp.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await mcp.close();
    }
  });
});

describe('failed-authentication limiting behind a trusted proxy (docs/reliability.md I.11)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ operations, env: { AGENT_API_TRUSTED_PROXIES: '127.0.0.1' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('I.11 behind a trusted proxy each client named by X-Forwarded-For has its own failed-attempt allowance', async () => {
    const junk = (client: string) =>
      t.request('GET', '/usage', { key: generateApiKey(), headers: { 'x-forwarded-for': `203.0.113.9, ${client}` } });
    for (let i = 0; i < 20; i++) expect((await junk('198.51.100.1')).status).toBe(401);
    expect((await junk('198.51.100.1')).status).toBe(429);
    // Another client behind the same proxy is not affected; the forged left-most entry is not what counts.
    expect((await junk('198.51.100.2')).status).toBe(401);
    expect(t.logs!.lines().some((l) => l.includes('"ip":"198.51.100.2"'))).toBe(true);
  });
});
