import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertRun } from '../../src/store/repos/runs.ts';
import { revokeApiKey } from '../../src/store/repos/api-keys.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient, connectStdioClient, structured } from '../helpers/mcp.ts';

/**
 * `agent-api mcp` as a real child process over stdio, against the database of an in-process app that answers the same
 * calls over REST and Streamable HTTP. One process serves the whole file (spawning costs seconds); the revocation
 * test runs last because it revokes the process's key.
 */
describe('MCP over stdio (spawned agent-api mcp)', () => {
  let t: TestApp;
  let key: string;
  let keyId: string;
  let clientId: string;
  let stdio: Awaited<ReturnType<typeof connectStdioClient>>;
  const transportErrors: Error[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const tenant = await t.tenant('agency');
    ({ key, keyId, clientId } = tenant);
    // A pending run whose lease expired long ago, of a kind nobody runs: the child logs that it found it at start,
    // so there is a known log line to look for on stderr.
    const orphan = await insertRun(
      t.db,
      { kind: 'stdio-log-probe', resourceId: crypto.randomUUID(), orgId: tenant.orgId, maxAttempts: 1 },
      1,
    );
    await t.db
      .updateTable('runs')
      .set({ lease_owner: 'gone', lease_expires_at: 2 })
      .where('id', '=', orphan.id)
      .execute();
    stdio = await connectStdioClient({ AGENT_API_DB: t.dbPath, AGENT_API_KEY: key });
    // The SDK reports any stdout line that is not a JSON-RPC message here (and closes the transport).
    stdio.client.onerror = (err) => void transportErrors.push(err);
  }, 60_000);

  afterAll(async () => {
    await stdio?.close();
    await t?.close();
  });

  it('lists exactly the tools Streamable HTTP lists (names, schemas, annotations)', async () => {
    const http = await connectHttpClient(t.url, key);
    try {
      const [overStdio, overHttp] = await Promise.all([stdio.client.listTools(), http.client.listTools()]);
      expect(overStdio.tools.length).toBeGreaterThan(0);
      expect(overStdio.tools).toEqual(overHttp.tools);
    } finally {
      await http.close();
    }
  });

  it("answers get_usage and list_clients for the key's organisation", async () => {
    const usage = await stdio.client.callTool({ name: 'get_usage', arguments: {} });
    expect(usage.isError).toBeFalsy();
    expect(structured(usage)).toMatchObject({ plan: 'agency', rate_limit_per_minute: 120 });
    const clients = await stdio.client.callTool({ name: 'list_clients', arguments: { limit: 10 } });
    expect(clients.isError).toBeFalsy();
    expect(structured(clients)).toMatchObject({
      data: [{ client_id: clientId }],
      pagination: { limit: 10, offset: 0, total: 1, has_more: false },
    });
  });

  it('answers failures with exactly the REST error body', async () => {
    const cases: Array<{
      tool: string;
      args: Record<string, unknown>;
      rest: [string, Record<string, string>];
      status: number;
    }> = [
      { tool: 'list_clients', args: { limit: 1000 }, rest: ['/clients', { limit: '1000' }], status: 400 },
      {
        tool: 'estimate_usage',
        args: { operation: 'teleport' },
        rest: ['/usage/estimate', { operation: 'teleport' }],
        status: 400,
      },
      {
        tool: 'get_optimization',
        args: { optimization_id: 'opt_01JZZZZZZZZZZZZZZZZZZZZZZZ' },
        rest: ['/optimizations/opt_01JZZZZZZZZZZZZZZZZZZZZZZZ', {}],
        status: 404,
      },
    ];
    for (const c of cases) {
      const viaStdio = await stdio.client.callTool({ name: c.tool, arguments: c.args });
      const viaRest = await t.request('GET', c.rest[0], { key, query: c.rest[1] });
      expect(viaRest.status, c.tool).toBe(c.status);
      expect(viaStdio.isError, c.tool).toBe(true);
      expect(structured(viaStdio), c.tool).toEqual(viaRest.body);
    }
    const first = await stdio.client.callTool({ name: 'list_clients', arguments: { limit: 1000 } });
    expect(structured(first)).toMatchObject({
      error: { code: 'invalid_input', details: { fields: [{ path: 'limit' }] } },
    });
  });

  it('unknown tool arguments are JSON-RPC -32602, as over HTTP', async () => {
    await expect(stdio.client.callTool({ name: 'get_usage', arguments: { org_id: 'x' } })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('writes nothing but protocol messages on stdout, and only JSON log lines on stderr', async () => {
    // A round trip after everything above: any stray stdout line before it would have broken the transport.
    await stdio.client.ping();
    expect(transportErrors).toEqual([]);
    await vi.waitFor(() => expect(stdio.stderr()).toContain('recovering runs whose lease expired'), {
      timeout: 10_000,
    });
    const lines = stdio
      .stderr()
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(parsed).toMatchObject({ service: 'agent-api' });
      expect(typeof parsed.level).toBe('number');
      expect(typeof parsed.msg).toBe('string');
    }
    expect(stdio.stderr()).not.toContain(key.slice(5, 35));
  });

  it('a key revoked while the process runs is refused on the next tool call with unauthorized (same body as REST)', async () => {
    const before = await stdio.client.callTool({ name: 'get_usage', arguments: {} });
    expect(before.isError).toBeFalsy();
    await revokeApiKey(t.db, keyId, t.clock.now());
    const after = await stdio.client.callTool({ name: 'get_usage', arguments: {} });
    expect(after.isError).toBe(true);
    const rest = await t.request('GET', '/usage', { key });
    expect(rest.status).toBe(401);
    expect(structured(after)).toEqual(rest.body);
    expect(structured(after)).toMatchObject({ error: { code: 'unauthorized' } });
    await stdio.client.ping();
    expect(transportErrors).toEqual([]);
  });
});
