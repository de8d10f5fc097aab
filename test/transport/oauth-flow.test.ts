import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
  UnauthorizedError as ModernUnauthorizedError,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError as LegacyUnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { MODERN, structured } from '../helpers/mcp.ts';
import {
  consent,
  InMemoryOAuthProvider,
  recordingFetch,
  startMetadataServer,
  TLS_CERT_PATH,
  type MetadataServer,
} from '../helpers/oauth.ts';

/**
 * OAuth 2.1 for remote MCP connectors, end to end (.notes/oauth-spec.md): the MCP SDK clients' own OAuth support
 * (discovery from the 401, dynamic registration or a Client ID Metadata Document, PKCE, the consent page answered with
 * the tenant's API key, the code exchange, refresh on 401) against a real app on loopback with a fake clock.
 */

/** The default access token lifetime (AGENT_API_OAUTH_ACCESS_TTL_SECONDS). */
const ACCESS_TTL_MS = 3600 * 1000;

type Recorder = ReturnType<typeof recordingFetch>;

interface Connection {
  client: { connect(transport: never): Promise<void>; close(): Promise<void> };
  transport: unknown;
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
  /** Finishes the authorization with the redirect's code (and iss, which only v2 checks). */
  finishAuth(code: string, iss: string | null): Promise<void>;
  connect(): Promise<void>;
  close(): Promise<void>;
}

interface Generation {
  name: string;
  /** A client and a Streamable HTTP transport to B/mcp with `provider` and the recording fetch; not connected. */
  open(base: string, provider: InMemoryOAuthProvider, rec: Recorder): Connection;
  isUnauthorized(err: unknown): boolean;
}

const v2: Generation = {
  name: `SDK v2 ${MODERN}`,
  open(base, provider, rec) {
    const client = new ModernClient(
      { name: 'oauth-flow-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    const transport = new ModernHttp(new URL('/mcp', base), { authProvider: provider, fetch: rec.fetch });
    return {
      client: client as unknown as Connection['client'],
      transport,
      listTools: () => client.listTools(),
      callTool: (name, args = {}) => client.callTool({ name, arguments: args }),
      finishAuth: (code, iss) => transport.finishAuth(code, iss ?? undefined),
      connect: () => client.connect(transport),
      close: () => client.close(),
    };
  },
  isUnauthorized: (err) => err instanceof ModernUnauthorizedError,
};

const v1: Generation = {
  name: 'SDK v1 2025-11-25',
  open(base, provider, rec) {
    const client = new LegacyClient({ name: 'oauth-flow-test', version: '1.0.0' });
    const transport = new LegacyHttp(new URL('/mcp', base), { authProvider: provider, fetch: rec.fetch });
    return {
      client: client as unknown as Connection['client'],
      transport,
      listTools: () => client.listTools(),
      callTool: (name, args = {}) => client.callTool({ name, arguments: args }),
      finishAuth: (code) => transport.finishAuth(code),
      connect: () => client.connect(transport),
      close: () => client.close(),
    };
  },
  isUnauthorized: (err) => err instanceof LegacyUnauthorizedError,
};

describe.each([v2, v1])('OAuth end to end with $name', (gen) => {
  let t: TestApp;
  let meta: MetadataServer;

  beforeAll(async () => {
    meta = await startMetadataServer();
    t = await startTestApp({
      env: {
        AGENT_API_TEST_FETCH_ALLOW: meta.allow,
        AGENT_API_TEST_FETCH_CA: TLS_CERT_PATH,
        // Every 401 of the discovery dance counts as a failed authentication of this address.
        AGENT_API_FAILED_AUTH_PER_MINUTE: '100000',
        // The refresh test moves the clock an hour: 2025-era sessions must not idle out meanwhile.
        AGENT_API_MCP_SESSION_IDLE_MS: '86400000',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  /**
   * The interactive flow as a connector runs it: connect → 401 → the SDK discovers, registers (or uses the CIMD URL)
   * and asks to open the authorization URL → the person approves with `apiKey` → finishAuth → a new transport with
   * the same provider connects with the token.
   */
  async function authorizeAndConnect(provider: InMemoryOAuthProvider, rec: Recorder, apiKey: string) {
    const first = gen.open(t.url, provider, rec);
    const err = await first.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, 'the first connect is refused until the person has approved').not.toBeNull();
    expect(gen.isUnauthorized(err), String(err)).toBe(true);
    expect(provider.authorizationUrls).toHaveLength(1);
    const authUrl = provider.lastAuthorizationUrl;
    expect(`${authUrl.origin}${authUrl.pathname}`).toBe(`${t.url}/oauth/authorize`);
    expect(authUrl.searchParams.get('response_type')).toBe('code');
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authUrl.searchParams.get('resource')).toBe(`${t.url}/mcp`);
    expect(authUrl.searchParams.get('redirect_uri')).toBe(provider.redirectUrl);

    const decision = await consent(authUrl, apiKey, 'approve');
    expect(decision.status, decision.html.slice(0, 300)).toBe(303);
    expect(decision.error).toBeNull();
    expect(decision.code).toMatch(/^aac_/);
    expect(decision.state).toBe(authUrl.searchParams.get('state'));
    expect(decision.iss).toBe(t.url);
    expect(`${decision.location!.origin}${decision.location!.pathname}`).toBe(provider.redirectUrl);

    await first.finishAuth(decision.code!, decision.iss);
    await first.close().catch(() => undefined);
    const tokens = provider.tokens();
    expect(tokens?.access_token).toMatch(/^aat_/);
    expect(tokens?.refresh_token).toMatch(/^art_/);
    expect(tokens?.token_type.toLowerCase()).toBe('bearer');

    const second = gen.open(t.url, provider, rec);
    await second.connect();
    return second;
  }

  async function expectWorkingSession(conn: Connection) {
    const { tools } = await conn.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.map((x) => x.name)).toContain('get_usage');
    const usage = await conn.callTool('get_usage');
    expect((usage as { isError?: boolean }).isError ?? false).toBe(false);
    expect(structured<{ plan: string }>(usage).plan).toBe('starter');
  }

  it('DCR: 401 → dynamic registration → consent with the API key → code → token → tools/list and a tool call', async () => {
    const tenant = await t.tenant();
    const provider = new InMemoryOAuthProvider();
    const rec = recordingFetch();
    const conn = await authorizeAndConnect(provider, rec, tenant.key);
    try {
      await expectWorkingSession(conn);
    } finally {
      await conn.close();
    }
    // The SDK found the server through the 401's resource_metadata, the metadata documents and registration.
    expect(rec.to('/mcp').some((c) => c.status === 401)).toBe(true);
    expect(rec.to('/.well-known/oauth-protected-resource/mcp').map((c) => c.status)).toContain(200);
    expect(rec.to('/.well-known/oauth-authorization-server').map((c) => c.status)).toContain(200);
    const registrations = rec.to('/oauth/register');
    expect(registrations.map((c) => c.status)).toEqual([201]);
    const info = provider.clientInformation();
    expect(info?.client_id).toBeTruthy();
    expect(info?.client_id).not.toMatch(/^https:/);
    const exchange = rec.to('/oauth/token');
    expect(exchange).toHaveLength(1);
    expect(exchange[0]!.status).toBe(200);
    expect(new URLSearchParams(exchange[0]!.body).get('grant_type')).toBe('authorization_code');
  });

  it('CIMD: the client_id is an https metadata URL the server fetches; no registration call', async () => {
    const tenant = await t.tenant();
    const path = `/clients/${gen === v2 ? 'v2' : 'v1'}/client.json`;
    const clientId = meta.serveClient(path);
    const provider = new InMemoryOAuthProvider({ clientMetadataUrl: clientId });
    const rec = recordingFetch();
    const conn = await authorizeAndConnect(provider, rec, tenant.key);
    try {
      await expectWorkingSession(conn);
    } finally {
      await conn.close();
    }
    expect(provider.authorizationUrls[0]!.searchParams.get('client_id')).toBe(clientId);
    expect(provider.clientInformation()?.client_id).toBe(clientId);
    expect(meta.count(path), 'the server fetched the client metadata document').toBeGreaterThanOrEqual(1);
    expect(rec.to('/oauth/register')).toEqual([]);
    expect(rec.to('/oauth/token').map((c) => c.status)).toEqual([200]);
  });

  it('refresh: past the access token lifetime the call gets 401, the SDK refreshes by itself and the call succeeds', async () => {
    const tenant = await t.tenant();
    const provider = new InMemoryOAuthProvider();
    const rec = recordingFetch();
    const conn = await authorizeAndConnect(provider, rec, tenant.key);
    try {
      await expectWorkingSession(conn);
      const before = provider.tokens()!;
      const mark = rec.calls.length;

      t.clock.advance(ACCESS_TTL_MS + 60_000);
      const usage = await conn.callTool('get_usage');
      expect((usage as { isError?: boolean }).isError ?? false).toBe(false);
      expect(structured<{ plan: string }>(usage).plan).toBe('starter');

      const after = provider.tokens()!;
      expect(after.access_token).toMatch(/^aat_/);
      expect(after.access_token).not.toBe(before.access_token);
      expect(after.refresh_token).toMatch(/^art_/);
      expect(after.refresh_token, 'the refresh token rotates').not.toBe(before.refresh_token);

      const mcpStatuses = rec.to('/mcp', mark).map((c) => c.status);
      expect(mcpStatuses).toContain(401);
      const refreshes = rec.to('/oauth/token', mark);
      expect(refreshes).toHaveLength(1);
      expect(refreshes[0]!.status).toBe(200);
      const form = new URLSearchParams(refreshes[0]!.body);
      expect(form.get('grant_type')).toBe('refresh_token');
      expect(form.get('refresh_token')).toBe(before.refresh_token);
      // No person was asked again and nothing was invalidated.
      expect(provider.authorizationUrls).toHaveLength(1);
      expect(provider.invalidated).toEqual([]);

      // The rotated token keeps working; the expired one does not.
      await expectWorkingSession(conn);
      const stale = await fetch(`${t.url}/api/agent/v1/usage`, {
        headers: { authorization: `Bearer ${before.access_token}` },
      });
      expect(stale.status).toBe(401);
    } finally {
      await conn.close();
    }
  });
});
