import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { MODERN, structured } from '../helpers/mcp.ts';

/**
 * External OAuth mode end to end (.notes/oauth-spec.md "External mode"): a loopback identity provider publishes its
 * metadata and JWKS, signs JWT access tokens with jose, and a real app configured with AGENT_API_OAUTH_ISSUER accepts
 * them on REST and MCP (both protocol eras), refuses bad ones with the Bearer challenge, enforces their scopes (403
 * insufficient_scope, on MCP too), meters them per identity like keys, and keeps serving API keys unchanged.
 */

const AUDIENCE = 'https://agent-api.test/mcp';
const PREFIX = 'agent-api:';
const GRANTED = ['optimize:read', 'clients:write'] as const;
/** What a token with GRANTED may see: tools with no scope and those of its scopes (neither grants anything more). */
const VISIBLE_SCOPES = new Set<string | null>([null, ...GRANTED]);

// ---------------------------------------------------------------------------------------------------------------
// The loopback identity provider
// ---------------------------------------------------------------------------------------------------------------

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function makeKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

interface Idp {
  server: Server;
  origin: string;
  allow: string;
  /** Requests per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function startIdp(published: SigningKey[]): Promise<Idp> {
  const hits = new Map<string, number>();
  let origin = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://idp').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/.well-known/oauth-authorization-server')
      return json(200, {
        issuer: origin,
        jwks_uri: `${origin}/jwks`,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        response_types_supported: ['code'],
      });
    if (path === '/jwks') return json(200, { keys: published.map((k) => k.jwk) });
    return json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    server,
    origin,
    allow: `127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Test state
// ---------------------------------------------------------------------------------------------------------------

let idp: Idp;
let t: TestApp;
/** The IdP's requests when the app had started (it must not be contacted before the first token). */
let idpHitsAtStart: number;
let signer: SigningKey; // published
let impostor: SigningKey; // not published, same kid as signer
let stranger: SigningKey; // not published, its own kid
let orgId: string;
/** An all-scope API key of the same organisation. */
let apiKey: string;

beforeAll(async () => {
  [signer, impostor, stranger] = await Promise.all([makeKey('idp-1'), makeKey('idp-1'), makeKey('idp-other')]);
  idp = await startIdp([signer]);
  t = await startTestApp({
    env: {
      AGENT_API_OAUTH_ISSUER: idp.origin,
      AGENT_API_OAUTH_AUDIENCE: AUDIENCE,
      AGENT_API_TEST_FETCH_ALLOW: idp.allow,
      AGENT_API_OAUTH_SCOPE_PREFIX: PREFIX,
      // Several refusal tests send bad tokens from this one address: keep the failed-auth limiter out of the way.
      AGENT_API_FAILED_AUTH_PER_MINUTE: '10000',
    },
  });
  idpHitsAtStart = [...idp.hits.values()].reduce((a, b) => a + b, 0);
  orgId = (await t.org('starter')).id;
  apiKey = (await t.key(orgId)).apiKey;
});

afterAll(async () => {
  await t?.close();
  await idp?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

interface TokenOptions {
  sub?: string;
  scope?: string;
  org?: string;
  aud?: string;
  iss?: string;
  /** Seconds since the epoch; default: an hour from the app's clock. */
  exp?: number;
  key?: SigningKey;
  clientId?: string;
}

const nowSeconds = () => Math.floor(t.clock.now() / 1000);
const prefixed = (scopes: readonly string[]) => scopes.map((s) => PREFIX + s).join(' ');

/** A JWT access token from the IdP (by default: valid, GRANTED scopes, the test organisation). */
function token(opts: TokenOptions = {}): Promise<string> {
  const key = opts.key ?? signer;
  return new SignJWT({
    scope: opts.scope ?? prefixed(GRANTED),
    agent_api_org: opts.org ?? orgId,
    client_id: opts.clientId ?? 'connector-1',
    jti: randomUUID(),
  })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' })
    .setIssuer(opts.iss ?? idp.origin)
    .setAudience(opts.aud ?? AUDIENCE)
    .setSubject(opts.sub ?? 'user-1')
    .setIssuedAt(nowSeconds())
    .setExpirationTime(opts.exp ?? nowSeconds() + 3600)
    .sign(key.privateKey);
}

const USAGE = '/api/agent/v1/usage';
const restMetadata = () => `${t.url}/.well-known/oauth-protected-resource`;
const mcpMetadata = () => `${t.url}/.well-known/oauth-protected-resource/mcp`;

async function get(path: string, bearer?: string) {
  return fetch(new URL(path, t.url), { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
}

/** A raw 2026-07-28 JSON-RPC POST to /mcp (stateless: the `_meta` envelope of modernMeta and the standard headers). */
async function rpc(bearer: string | null, message: Record<string, unknown>) {
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': MODERN,
    'mcp-method': String(message.method),
  };
  const name = (message.params as { name?: unknown } | undefined)?.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  return fetch(new URL('/mcp', t.url), {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
}

const modernMeta = () => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** A 401 from /mcp: the challenge points to the MCP resource metadata and says the token sent is invalid. */
function expectMcpInvalidToken(res: Response) {
  const challenge = res.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain('error="invalid_token"');
  expect(challenge).toContain(`resource_metadata="${mcpMetadata()}"`);
}

/** A 401 from REST keeps its plain challenge (docs/oauth.md "Discovery": REST's clients hold keys). */
function expectRestUnauthorized(res: Response) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
}

function expectInsufficientScope(res: { status: number; challenge: string | null }, scope: string, metadata: string) {
  expect(res.status).toBe(403);
  const challenge = res.challenge ?? '';
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain('error="insufficient_scope"');
  expect(challenge).toContain(`scope="${scope}"`);
  expect(challenge).toContain(`resource_metadata="${metadata}"`);
}

/** A fetch that records every answer's status, challenge and the JSON-RPC methods of its request. */
function recordingFetch() {
  const calls: Array<{ methods: string[]; tool: string | null; status: number; challenge: string | null }> = [];
  const recorder = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    let methods: string[] = [];
    let tool: string | null = null;
    if (typeof init?.body === 'string') {
      try {
        const parsed = JSON.parse(init.body) as unknown;
        const list = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{
          method?: string;
          params?: { name?: string };
        }>;
        methods = list.map((m) => m.method ?? '');
        tool = list.find((m) => m.method === 'tools/call')?.params?.name ?? null;
      } catch {
        // not JSON: nothing to record
      }
    }
    calls.push({ methods, tool, status: res.status, challenge: res.headers.get('www-authenticate') });
    return res;
  };
  return { calls, fetch: recorder as typeof fetch };
}

type Recorder = ReturnType<typeof recordingFetch>;

interface McpConnection {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

interface Era {
  name: string;
  connect(bearer: string, rec?: Recorder): Promise<McpConnection>;
}

const legacy: Era = {
  name: '2025-11-25 (SDK v1, session)',
  async connect(bearer, rec) {
    const client = new LegacyClient({ name: 'oauth-external-test', version: '1.0.0' });
    const transport = new LegacyHttp(new URL('/mcp', t.url), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
      ...(rec ? { fetch: rec.fetch } : {}),
    });
    await client.connect(transport);
    return {
      listTools: () => client.listTools(),
      callTool: (name, args = {}) => client.callTool({ name, arguments: args }),
      close: () => client.close(),
    };
  },
};

const modern: Era = {
  name: `${MODERN} (SDK v2, stateless)`,
  async connect(bearer, rec) {
    const client = new ModernClient(
      { name: 'oauth-external-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    const transport = new ModernHttp(new URL('/mcp', t.url), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
      ...(rec ? { fetch: rec.fetch } : {}),
    });
    await client.connect(transport);
    return {
      listTools: () => client.listTools(),
      callTool: (name, args = {}) => client.callTool({ name, arguments: args }),
      close: () => client.close(),
    };
  },
};

const scopeOf = new Map(OPERATIONS.map((op) => [op.name, op.scope as string | null]));
const isError = (result: unknown) => (result as { isError?: boolean }).isError ?? false;

// ---------------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------------

describe('external OAuth: discovery', () => {
  it('the protected resource metadata names the external issuer; the built-in server endpoints answer 404', async () => {
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource/mcp', `${t.url}/mcp`],
      ['/.well-known/oauth-protected-resource', t.url],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc.resource, path).toBe(resource);
      expect(doc.authorization_servers, path).toEqual([idp.origin]);
      expect(doc.bearer_methods_supported, path).toEqual(['header']);
      expect(doc.scopes_supported, path).toContain('optimize:run');
    }

    expect((await get('/.well-known/oauth-authorization-server')).status).toBe(404);
    const authorize = new URL('/oauth/authorize', t.url);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'https://client.example/meta.json',
      redirect_uri: 'http://127.0.0.1:43917/callback',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      state: 's',
    }).toString();
    expect((await fetch(authorize)).status, 'GET /oauth/authorize').toBe(404);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const posts: Array<[string, Record<string, string>, string]> = [
      ['/oauth/token', form, 'grant_type=authorization_code&code=x&client_id=y'],
      ['/oauth/register', { 'content-type': 'application/json' }, JSON.stringify({ redirect_uris: ['https://a.b/c'] })],
      ['/oauth/revoke', form, 'token=x&client_id=y'],
      ['/oauth/authorize', form, 'decision=approve'],
    ];
    for (const [path, headers, body] of posts) {
      const res = await fetch(new URL(path, t.url), { method: 'POST', headers, body });
      expect(res.status, `POST ${path}`).toBe(404);
    }
    // Starting the app and serving discovery did not contact the identity provider.
    expect(idpHitsAtStart).toBe(0);
  });
});

describe('external OAuth: a valid token', () => {
  it('works on REST (GET /usage) with the organisation of its claim; the issuer metadata is read once', async () => {
    const jwt = await token({ sub: 'rest-user' });
    const res = await get(USAGE, jwt);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { plan: string }).plan).toBe('starter');
    // A scope the token has (optimize:read) is enough for its reads.
    expect((await get('/api/agent/v1/optimizations', jwt)).status).toBe(200);
    // A fresh token (same key) again, with no new discovery: the key set is kept.
    expect((await get(USAGE, await token({ sub: 'rest-user' }))).status).toBe(200);
    expect(idp.hits.get('/.well-known/oauth-authorization-server')).toBe(1);
    expect(idp.hits.get('/jwks')).toBe(1);
  });

  it.each([legacy, modern])(
    'MCP $name: tools/list shows only what its scopes allow, and a tool call works',
    async (era) => {
      const keyConn = await era.connect(apiKey);
      let keyTools: string[];
      try {
        keyTools = (await keyConn.listTools()).tools.map((x) => x.name).sort();
      } finally {
        await keyConn.close();
      }
      expect(keyTools).toContain('start_optimization');

      const conn = await era.connect(await token({ sub: `mcp-${era === legacy ? 'v1' : 'v2'}` }));
      try {
        const tokenTools = (await conn.listTools()).tools.map((x) => x.name).sort();
        expect(tokenTools).toEqual(keyTools.filter((name) => VISIBLE_SCOPES.has(scopeOf.get(name) ?? null)));
        expect(tokenTools.length).toBeLessThan(keyTools.length);
        expect(tokenTools).toEqual(
          expect.arrayContaining(['get_usage', 'list_clients', 'list_optimizations', 'create_client']),
        );
        expect(tokenTools).not.toContain('start_optimization');
        expect(tokenTools).not.toContain('create_content_job');

        const usage = await conn.callTool('get_usage');
        expect(isError(usage), JSON.stringify(usage)).toBe(false);
        expect(structured<{ plan: string }>(usage).plan).toBe('starter');

        // A write its scope (clients:write) allows, in the token's organisation.
        const name = `Via OAuth ${era === legacy ? 'v1' : 'v2'}`;
        const created = await conn.callTool('create_client', { name, idempotency_key: randomUUID() });
        expect(isError(created), JSON.stringify(created)).toBe(false);
        const clientId = structured<{ client_id: string; name: string }>(created).client_id;
        expect(clientId).toMatch(/\S/);
        const listed = await t.request<{ data: Array<{ client_id: string; name: string }> }>('GET', '/clients', {
          key: apiKey,
          query: { limit: 100 },
        });
        expect(listed.status).toBe(200);
        expect(listed.body.data.filter((c) => c.client_id === clientId).map((c) => c.name)).toEqual([name]);
      } finally {
        await conn.close();
      }
    },
  );
});

describe('external OAuth: refused tokens answer 401 (on /mcp with the invalid_token challenge)', () => {
  /** Each refusal must be for its own reason: the 401 body says which check failed. */
  const cases: Array<[string, () => Promise<string>, RegExp]> = [
    ['another audience', () => token({ aud: 'https://someone-else.test/mcp' }), /not meant for this server/],
    ['another issuer', () => token({ iss: 'https://evil-idp.test' }), /not issued by/],
    ['a signature by another key under the published kid', () => token({ key: impostor }), /signature does not verify/],
    ['a key the issuer does not publish', () => token({ key: stranger }), /key the issuer does not publish/],
    [
      'an org claim naming no organisation',
      () => token({ org: 'org_does_not_exist' }),
      /organisation this server does not have/,
    ],
  ];

  async function expectRefused(jwt: string, reason: RegExp) {
    const rest = await get(USAGE, jwt);
    expectRestUnauthorized(rest);
    const body = (await rest.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).toMatch(reason);
    expect(rest.headers.get('x-ratelimit-limit'), 'refused before any rate limit').toBeNull();

    const mcp = await rpc(jwt, { method: 'tools/list', params: { _meta: modernMeta() } });
    expect(mcp.status).toBe(401);
    expectMcpInvalidToken(mcp);
    expect(((await mcp.json()) as { error: { message: string } }).error.message).toMatch(reason);
  }

  it.each(cases)('%s: on REST and on /mcp', async (_label, make, reason) => {
    await expectRefused(await make(), reason);
  });

  it('an expired token (by the app clock, past the 30 s tolerance)', async () => {
    const jwt = await token({ sub: 'expiring', exp: nowSeconds() + 60 });
    expect((await get(USAGE, jwt)).status).toBe(200);
    t.clock.advance(60_000 + 31_000);
    await expectRefused(jwt, /has expired/);
  });

  it('a valid token in the query string (?access_token=) is ignored: 401 as with no token', async () => {
    const jwt = await token({ sub: 'query-user' });
    const rest = await get(`${USAGE}?access_token=${encodeURIComponent(jwt)}`);
    expectRestUnauthorized(rest);

    const mcp = await fetch(new URL(`/mcp?access_token=${encodeURIComponent(jwt)}`, t.url), {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': MODERN,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } }),
    });
    expect(mcp.status).toBe(401);
    const challenge = mcp.headers.get('www-authenticate') ?? '';
    expect(challenge).toBe(`Bearer resource_metadata="${mcpMetadata()}"`);
    // The same token in the header works.
    expect((await get(USAGE, jwt)).status).toBe(200);
  });
});

describe('external OAuth: scopes', () => {
  const optimize = { url: 'https://example.com/page', keyword: 'espresso machine' };

  it('REST: an operation needing a scope the token lacks answers 403 insufficient_scope', async () => {
    const jwt = await token({ sub: 'scope-rest' });
    const res = await fetch(new URL('/api/agent/v1/optimize', t.url), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${jwt}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(optimize),
    });
    expect(((await res.clone().json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expectInsufficientScope(
      { status: res.status, challenge: res.headers.get('www-authenticate') },
      'optimize:run',
      restMetadata(),
    );
  });

  it('MCP raw JSON-RPC: tools/call of a tool outside the grant is HTTP 403 insufficient_scope (a granted one is not)', async () => {
    const jwt = await token({ sub: 'scope-raw' });
    const call = (name: string, args: Record<string, unknown>) =>
      rpc(jwt, { method: 'tools/call', params: { name, arguments: args, _meta: modernMeta() } });
    const refused = await call('start_optimization', { ...optimize, idempotency_key: randomUUID() });
    expectInsufficientScope(
      { status: refused.status, challenge: refused.headers.get('www-authenticate') },
      'optimize:run',
      mcpMetadata(),
    );
    const allowed = await call('get_usage', {});
    expect(allowed.status, await allowed.clone().text()).toBe(200);
    expect(allowed.headers.get('www-authenticate')).toBeNull();
  });

  it.each([legacy, modern])('MCP $name client: the same call is HTTP 403 insufficient_scope', async (era) => {
    const rec = recordingFetch();
    const conn = await era.connect(await token({ sub: `scope-${era === legacy ? 'v1' : 'v2'}` }), rec);
    try {
      const outcome = await conn.callTool('start_optimization', { ...optimize, idempotency_key: randomUUID() }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      expect('error' in outcome, `the call must fail at the HTTP level: ${JSON.stringify(outcome)}`).toBe(true);
      const answers = rec.calls.filter((c) => c.tool === 'start_optimization');
      expect(answers.length).toBeGreaterThanOrEqual(1);
      for (const a of answers) expectInsufficientScope(a, 'optimize:run', mcpMetadata());
      // The connection still serves what the grant covers.
      expect(isError(await conn.callTool('get_usage'))).toBe(false);
    } finally {
      await conn.close();
    }
  });
});

describe('external OAuth: rate limits', () => {
  it('a token identity is metered like a key (starter: 30 a minute); another sub has its own allowance', async () => {
    t.clock.advance(120_000); // a fresh minute for everyone
    const first = await token({ sub: 'rate-a' });
    for (let i = 1; i <= 30; i++) {
      const res = await get(USAGE, i % 2 ? first : await token({ sub: 'rate-a' }));
      expect(res.status, `request ${i}`).toBe(200);
      if (i === 1) expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    }
    const over = await get(USAGE, first);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // MCP shares the identity's allowance.
    const mcp = await rpc(first, { method: 'tools/list', params: { _meta: modernMeta() } });
    expect(mcp.status).toBe(429);

    expect((await get(USAGE, await token({ sub: 'rate-b' }))).status).toBe(200);
    // The organisation's API key is another identity too.
    expect((await get(USAGE, apiKey)).status).toBe(200);
    // The allowance comes back with the minute.
    t.clock.advance(60_000);
    expect((await get(USAGE, first)).status).toBe(200);
  });
});

describe('external OAuth: API keys', () => {
  it('keep working unchanged: REST, MCP in both eras, and a key scope miss stays a tool error (no 403)', async () => {
    const res = await get(USAGE, apiKey);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { plan: string }).plan).toBe('starter');

    const narrow = (await t.key(orgId, ['optimize:read'])).apiKey;
    const restRefused = await fetch(new URL('/api/agent/v1/optimize', t.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${narrow}`, 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      body: JSON.stringify({ url: 'https://example.com/page', keyword: 'espresso' }),
    });
    // REST's 403 carries the scope challenge for every caller, keys included.
    expectInsufficientScope(
      { status: restRefused.status, challenge: restRefused.headers.get('www-authenticate') },
      'optimize:run',
      restMetadata(),
    );

    for (const era of [legacy, modern]) {
      const rec = recordingFetch();
      const conn = await era.connect(narrow, rec);
      try {
        const tools = (await conn.listTools()).tools.map((x) => x.name);
        expect(tools, era.name).toContain('list_optimizations');
        expect(tools, era.name).not.toContain('start_optimization');
        const usage = await conn.callTool('get_usage');
        expect(structured<{ plan: string }>(usage).plan).toBe('starter');
        const refused = await conn.callTool('start_optimization', {
          url: 'https://example.com/page',
          keyword: 'espresso',
          idempotency_key: randomUUID(),
        });
        expect(isError(refused), era.name).toBe(true);
        expect(structured<{ error: { code: string } }>(refused).error.code).toBe('forbidden');
        const answers = rec.calls.filter((c) => c.tool === 'start_optimization');
        expect(answers.length, era.name).toBeGreaterThanOrEqual(1);
        expect(
          answers.map((c) => c.status),
          era.name,
        ).toEqual(answers.map(() => 200));
      } finally {
        await conn.close();
      }
    }

    // A bad key: REST's plain challenge; /mcp's points to the resource metadata.
    const badKey = 'sk_live_not_a_real_key_000000000000000000';
    expectRestUnauthorized(await get(USAGE, badKey));
    const mcp = await rpc(badKey, { method: 'tools/list', params: { _meta: modernMeta() } });
    expect(mcp.status).toBe(401);
    expectMcpInvalidToken(mcp);
  });
});
