import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { revokeApiKey } from '../../src/store/repos/api-keys.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { widgetOperations } from '../helpers/widget.ts';

/** MCP Streamable HTTP at /mcp (docs/reliability.md H.81-H.84), with raw node:http requests where headers must be exact. */

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A request with exact headers: `headers` may be a list of [name, value] pairs, so one name can be sent twice
 * (fetch would merge them, and refuses to set Host).
 */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Array<[string, string]>,
  body?: string | Buffer,
  chunked = false,
): Promise<RawResponse> {
  const url = new URL(path, base);
  const flat: string[] = [];
  // With headers given as a raw list Node adds no Host header of its own.
  if (!headers.some(([k]) => k.toLowerCase() === 'host')) flat.push('Host', url.host);
  for (const [k, v] of headers) flat.push(k, v);
  if (body !== undefined && !chunked) flat.push('Content-Length', String(Buffer.byteLength(body)));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname + url.search,
        headers: flat as unknown as OutgoingHttpHeaders,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== undefined && chunked) {
      // Several writes without Content-Length: Transfer-Encoding: chunked.
      const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
      for (let i = 0; i < buf.length; i += 256 * 1024) req.write(buf.subarray(i, i + 256 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

const ACCEPT: [string, string] = ['Accept', 'application/json, text/event-stream'];
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
const bearer = (key: string): [string, string] => ['Authorization', `Bearer ${key}`];

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '1.0.0' },
  },
});
const listTools = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });

/** The JSON-RPC messages of a response, whether answered as JSON or as an SSE stream. */
function messages(r: RawResponse): Array<Record<string, unknown>> {
  const type = String(r.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    return r.text
      .split('\n')
      .filter((l) => l.startsWith('data:') && l.slice(5).trim())
      .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
  }
  return r.text ? [JSON.parse(r.text) as Record<string, unknown>] : [];
}

function errorCode(r: RawResponse): string | undefined {
  return (JSON.parse(r.text) as { error?: { code?: string } }).error?.code;
}

describe('MCP Streamable HTTP', () => {
  let t: TestApp;
  let keyA: string;
  let keyB: string;
  let otherOrgKey: string;
  let origin: string;

  /** A fresh session of `key` over raw HTTP; returns its id. */
  async function openSession(key: string): Promise<string> {
    const r = await raw(t.url, 'POST', '/mcp', [bearer(key), ACCEPT, JSON_TYPE], initialize);
    expect(r.status).toBe(200);
    const id = r.headers['mcp-session-id'];
    expect(typeof id).toBe('string');
    const init = await raw(
      t.url,
      'POST',
      '/mcp',
      [bearer(key), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', id as string]],
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    expect(init.status).toBe(202);
    return id as string;
  }

  beforeAll(async () => {
    t = await startTestApp({ operations: [...OPERATIONS, ...widgetOperations()] });
    const tenant = await t.tenant('agency');
    keyA = tenant.key;
    keyB = (await t.key(tenant.orgId)).apiKey;
    otherOrgKey = (await t.tenant('agency')).key;
    origin = new URL(t.url).origin;
  });
  afterAll(async () => {
    await t.close();
  });

  describe('H.81 Origin', () => {
    it('H.81 a foreign Origin with a valid token is refused with 403 before authentication', async () => {
      const r = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(keyA), ACCEPT, JSON_TYPE, ['Origin', 'https://evil.example']],
        initialize,
      );
      expect(r.status).toBe(403);
      expect(errorCode(r)).toBe('forbidden');
      expect(r.headers['mcp-session-id']).toBeUndefined();
    });

    it('H.81 the Origin check comes before auth and before MCP version checks (403, not 401 or 400)', async () => {
      const noKey = await raw(
        t.url,
        'POST',
        '/mcp',
        [ACCEPT, JSON_TYPE, ['Origin', 'https://evil.example']],
        initialize,
      );
      expect(noKey.status).toBe(403);
      expect(noKey.headers['www-authenticate']).toBeUndefined();
      const badVersion = await raw(
        t.url,
        'POST',
        '/mcp',
        [
          bearer(keyA),
          ACCEPT,
          JSON_TYPE,
          ['Origin', 'https://evil.example'],
          ['MCP-Protocol-Version', '1999-01-01'],
          ['Mcp-Session-Id', 'whatever'],
        ],
        listTools,
      );
      expect(badVersion.status).toBe(403);
      expect(errorCode(badVersion)).toBe('forbidden');
    });

    it('H.81 a bad Origin sent as the second of two Origin headers is refused too', async () => {
      for (const pair of [
        [origin, 'https://evil.example'],
        ['https://evil.example', origin],
      ]) {
        const r = await raw(
          t.url,
          'POST',
          '/mcp',
          [bearer(keyA), ACCEPT, JSON_TYPE, ['Origin', pair[0]!], ['Origin', pair[1]!]],
          initialize,
        );
        expect(r.status, `Origin: ${pair.join(' / ')}`).toBe(403);
        expect(errorCode(r)).toBe('forbidden');
      }
    });

    it("H.81 the server's own loopback Origin is accepted (the guard is not refusing everything)", async () => {
      const r = await raw(t.url, 'POST', '/mcp', [bearer(keyA), ACCEPT, JSON_TYPE, ['Origin', origin]], initialize);
      expect(r.status).toBe(200);
      expect(messages(r)[0]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'agent-api' } } });
    });

    it('H.81 REST routes get the same Origin guard', async () => {
      const r = await raw(t.url, 'GET', '/api/agent/v1/usage', [bearer(keyA), ['Origin', 'https://evil.example']]);
      expect(r.status).toBe(403);
      expect(errorCode(r)).toBe('forbidden');
    });
  });

  describe('H.82 Host', () => {
    it('H.82 Host: attacker.example (DNS rebinding) is refused with 403 on /mcp and REST', async () => {
      for (const [method, path, body] of [
        ['POST', '/mcp', initialize],
        ['GET', '/api/agent/v1/usage', undefined],
      ] as const) {
        const r = await raw(
          t.url,
          method,
          path,
          [['Host', 'attacker.example'], bearer(keyA), ACCEPT, ...(body ? [JSON_TYPE] : [])],
          body,
        );
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(errorCode(r)).toBe('forbidden');
      }
      const port = new URL(t.url).port;
      const otherPort = await raw(t.url, 'GET', '/api/agent/v1/usage', [
        ['Host', `127.0.0.1:${Number(port) + 1}`],
        bearer(keyA),
      ]);
      expect(otherPort.status).toBe(403);
      const ok = await raw(t.url, 'GET', '/api/agent/v1/usage', [['Host', `localhost:${port}`], bearer(keyA)]);
      expect(ok.status).toBe(200);
    });

    it('H.82 the default bind address is 127.0.0.1', () => {
      expect(loadConfig({}).AGENT_API_HOST).toBe('127.0.0.1');
    });
  });

  describe('H.83 authentication and scopes', () => {
    it('H.83 no token: 401 with WWW-Authenticate, and the SDK client cannot connect', async () => {
      const r = await raw(t.url, 'POST', '/mcp', [ACCEPT, JSON_TYPE], initialize);
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(errorCode(r)).toBe('unauthorized');
      await expect(connectHttpClient(t.url, null)).rejects.toThrow();
    });

    it("H.83 a token lacking the tool's scope gets a tool error with forbidden", async () => {
      const { orgId, clientId } = await t.tenant('agency');
      const narrow = (await t.key(orgId, ['optimize:read'])).apiKey;
      const c = await connectHttpClient(t.url, narrow);
      try {
        const res = await c.client.callTool({ name: 'create_widget', arguments: { client_id: clientId, label: 'x' } });
        expect(res.isError).toBe(true);
        expect(structured(res)).toEqual({
          error: {
            code: 'forbidden',
            message: 'This API key lacks the scope copywriter:run.',
            details: { required_scope: 'copywriter:run' },
          },
        });
        // The same key may still call what its scope allows.
        const usage = await c.client.callTool({ name: 'get_usage', arguments: {} });
        expect(usage.isError).toBeFalsy();
      } finally {
        await c.close();
      }
    });

    it('H.83 a session id alone (no token, or a bad one) is not authentication: 401', async () => {
      const session = await openSession(keyA);
      for (const auth of [[], [['Authorization', 'Bearer aapi_notarealkeyatall']]] as Array<Array<[string, string]>>) {
        const r = await raw(
          t.url,
          'POST',
          '/mcp',
          [...auth, ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
          listTools,
        );
        expect(r.status).toBe(401);
        expect(errorCode(r)).toBe('unauthorized');
      }
      const ok = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
        listTools,
      );
      expect(ok.status).toBe(200);
    });

    it('H.83 a key revoked mid-session is refused on its next request', async () => {
      const { orgId } = await t.tenant('agency');
      const k = await t.key(orgId);
      const session = await openSession(k.apiKey);
      await revokeApiKey(t.db, k.keyId, t.clock.now());
      const r = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(k.apiKey), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
        listTools,
      );
      expect(r.status).toBe(401);
    });
  });

  describe('H.84 sessions and protocol hygiene', () => {
    it('H.84 a session created by key A and used with key B is not found (404), even within the organisation', async () => {
      const session = await openSession(keyA);
      for (const other of [keyB, otherOrgKey]) {
        const r = await raw(
          t.url,
          'POST',
          '/mcp',
          [bearer(other), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
          listTools,
        );
        expect(r.status).toBe(404);
        const del = await raw(t.url, 'DELETE', '/mcp', [bearer(other), ['Mcp-Session-Id', session]]);
        expect(del.status).toBe(404);
      }
      const owner = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
        listTools,
      );
      expect(owner.status).toBe(200);
      expect((messages(owner)[0]!.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    });

    it('H.84 an unknown session is 404; a deleted session is gone', async () => {
      const r = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', crypto.randomUUID()]],
        listTools,
      );
      expect(r.status).toBe(404);
      const session = await openSession(keyA);
      const del = await raw(t.url, 'DELETE', '/mcp', [bearer(keyA), ['Mcp-Session-Id', session]]);
      expect(del.status).toBe(200);
      const after = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
        listTools,
      );
      expect(after.status).toBe(404);
    });

    it('H.84 a non-initialize request without Mcp-Session-Id is 400', async () => {
      const r = await raw(t.url, 'POST', '/mcp', [bearer(keyA), ACCEPT, JSON_TYPE], listTools);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    });

    it('H.84 an unsupported MCP-Protocol-Version header is 400', async () => {
      const session = await openSession(keyA);
      const r = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session], ['MCP-Protocol-Version', '1999-01-01']],
        listTools,
      );
      expect(r.status).toBe(400);
      expect(r.text).toMatch(/protocol version/i);
      const good = await raw(
        t.url,
        'POST',
        '/mcp',
        [
          bearer(keyA),
          ACCEPT,
          JSON_TYPE,
          ['Mcp-Session-Id', session],
          ['MCP-Protocol-Version', LATEST_PROTOCOL_VERSION],
        ],
        listTools,
      );
      expect(good.status).toBe(200);
    });

    it('H.84 a notification POST is answered 202 with an empty body', async () => {
      const session = await openSession(keyA);
      const r = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }),
      );
      expect(r.status).toBe(202);
      expect(r.text).toBe('');
    });

    it('H.84 GET /mcp (no standalone SSE stream) is 405', async () => {
      const session = await openSession(keyA);
      const r = await raw(t.url, 'GET', '/mcp', [
        bearer(keyA),
        ['Accept', 'text/event-stream'],
        ['Mcp-Session-Id', session],
      ]);
      expect(r.status).toBe(405);
      expect(String(r.headers.allow)).toContain('POST');
    });

    it('H.84 a body over 1 MiB is 413, by Content-Length and when streamed chunked', async () => {
      const session = await openSession(keyA);
      const big = JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'get_usage', arguments: {}, _meta: { pad: 'x'.repeat(1024 * 1024) } },
      });
      for (const chunked of [false, true]) {
        for (const headers of [
          [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
          [bearer(keyA), ACCEPT, JSON_TYPE],
        ] as Array<Array<[string, string]>>) {
          const r = await raw(t.url, 'POST', '/mcp', headers, big, chunked);
          expect(r.status, `chunked=${chunked}`).toBe(413);
          expect(errorCode(r)).toBe('payload_too_large');
          // The server stops reading: it must say so, or a client reusing the connection gets a reset instead of an answer.
          expect(r.headers.connection).toBe('close');
        }
      }
      const rest = await raw(t.url, 'POST', '/api/agent/v1/widgets', [bearer(keyA), JSON_TYPE], big);
      expect(rest.status).toBe(413);
      expect(errorCode(rest)).toBe('payload_too_large');
      // Just under the limit is not refused for its size.
      const fits = JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'get_usage', arguments: {}, _meta: { pad: 'x'.repeat(1024 * 1024 - 200) } },
      });
      const ok = await raw(t.url, 'POST', '/mcp', [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]], fits);
      expect(ok.status).toBe(200);
    });

    it('H.84 tool arguments with unknown fields are JSON-RPC -32602', async () => {
      const c = await connectHttpClient(t.url, keyA);
      try {
        await expect(
          c.client.callTool({ name: 'list_clients', arguments: { limit: 5, sneaky: true } }),
        ).rejects.toMatchObject({ code: -32602 });
        await expect(c.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
          code: -32602,
        });
      } finally {
        await c.close();
      }
      const session = await openSession(keyA);
      const r = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(keyA), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
        JSON.stringify({
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'get_usage', arguments: { org_id: 'someone-else' } },
        }),
      );
      expect(messages(r)[0]).toMatchObject({ id: 5, error: { code: -32602 } });
    });

    it('H.84 error bodies and logs never contain the key', async () => {
      const { orgId } = await t.tenant('agency');
      const secret = (await t.key(orgId)).apiKey;
      const revoked = await t.key(orgId);
      await revokeApiKey(t.db, revoked.keyId, t.clock.now());
      const session = await openSession(secret);
      const texts: string[] = [];
      const send = async (...args: Parameters<typeof raw>) => {
        const r = await raw(...args);
        expect(r.status, `${args[1]} ${args[2]}`).toBeGreaterThanOrEqual(400);
        texts.push(r.text, JSON.stringify(r.headers));
      };
      await send(
        t.url,
        'POST',
        '/mcp',
        [bearer(secret), ACCEPT, JSON_TYPE, ['Origin', 'https://evil.example']],
        initialize,
      );
      await send(t.url, 'POST', '/mcp', [bearer(secret), ACCEPT, JSON_TYPE, ['Host', 'attacker.example']], initialize);
      await send(t.url, 'POST', '/mcp', [bearer(`${secret}x`), ACCEPT, JSON_TYPE], initialize);
      await send(t.url, 'POST', '/mcp', [bearer(revoked.apiKey), ACCEPT, JSON_TYPE], initialize);
      await send(t.url, 'POST', '/mcp', [bearer(secret), ACCEPT, JSON_TYPE], listTools);
      await send(
        t.url,
        'POST',
        '/mcp',
        [bearer(secret), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', crypto.randomUUID()]],
        listTools,
      );
      await send(
        t.url,
        'POST',
        '/mcp',
        [bearer(secret), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session], ['MCP-Protocol-Version', '1999-01-01']],
        listTools,
      );
      await send(t.url, 'POST', '/mcp', [bearer(secret), ACCEPT, JSON_TYPE], '{not json');
      await send(t.url, 'GET', `/api/agent/v1/clients?limit=1000&key=${secret}`, [bearer(secret)]);
      await send(t.url, 'GET', '/api/agent/v1/nope', [bearer(secret)]);
      const tool = await raw(
        t.url,
        'POST',
        '/mcp',
        [bearer(secret), ACCEPT, JSON_TYPE, ['Mcp-Session-Id', session]],
        JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'list_clients', arguments: { limit: secret } },
        }),
      );
      texts.push(tool.text);
      expect(messages(tool)[0]).toMatchObject({ result: { isError: true } });

      for (const k of [secret, revoked.apiKey]) {
        const body = k.slice('aapi_'.length, 'aapi_'.length + 30);
        for (const text of texts) expect(text).not.toContain(body);
        expect(t.logs!.text()).not.toContain(body);
      }
    });

    // H.84's last clause (URL-taking tools go through the same SSRF guard via tools/call) is run per URL-taking tool:
    // test/optimize/ssrf.test.ts (start_optimization) and test/prospects/ssrf.test.ts (save_prospect) send every
    // E.43-E.59 URL over MCP as well as REST, with the canary proving no connection.
  });
});
