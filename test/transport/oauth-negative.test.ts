import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/engine/accounts/api-keys.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { revokeApiKey } from '../../src/store/repos/api-keys.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient, connectModernHttpClient, structured } from '../helpers/mcp.ts';
import {
  authorizeCode,
  authorizeUrl,
  consent,
  getAuthorize,
  grant,
  mcpInitialize,
  mcpOpenSession,
  mcpPost,
  pkceAuthorizeUrl,
  pkcePair,
  randomState,
  REDIRECT_URI,
  refreshRequest,
  registerPublicClient,
  registerRequest,
  requestWithHost,
  revokeRequest,
  startMetadataServer,
  TLS_CERT_PATH,
  exchangeCode,
  tokenRequest,
  type GrantOptions,
  type MetadataServer,
  type RegisteredClient,
} from '../helpers/oauth.ts';

/**
 * The authorization server and the resource server's OAuth checks over raw HTTP (.notes/oauth-spec.md): every way a
 * grant, a code, a token or a client registration can be wrong, against a real app on loopback with a fake clock.
 */

const ACCESS_TTL_MS = 3600 * 1000;
/** A second redirect URI the shared public client registers. */
const OTHER_REDIRECT = 'http://127.0.0.1:43918/callback';

describe('OAuth: what the authorization and resource servers refuse', () => {
  let t: TestApp;
  /** An HTTPS metadata server on the fetch allow list. */
  let allowed: MetadataServer;
  /** An HTTPS metadata server NOT on the allow list: a loopback (private) address the fetcher must refuse. */
  let refused: MetadataServer;
  let B: string;
  /** A public client registered once (registrations are limited per address and minute). */
  let pub: RegisteredClient;
  /** Another public client, for codes and tokens presented by the wrong client. */
  let thief: RegisteredClient;

  beforeAll(async () => {
    allowed = await startMetadataServer();
    refused = await startMetadataServer();
    t = await startTestApp({
      env: {
        AGENT_API_TEST_FETCH_ALLOW: allowed.allow,
        AGENT_API_TEST_FETCH_CA: TLS_CERT_PATH,
        // Many cases answer 401 on purpose: the per-address failed-auth limiter must not turn them into 429.
        AGENT_API_FAILED_AUTH_PER_MINUTE: '100000',
      },
    });
    B = t.url;
    pub = await registerPublicClient(B, { redirect_uris: [REDIRECT_URI, OTHER_REDIRECT] });
    thief = await registerPublicClient(B);
  });
  afterAll(async () => {
    await t?.close();
    await allowed?.close();
    await refused?.close();
  });

  /** GET B/api/agent/v1/usage with `token` as Bearer. */
  async function restUsage(token: string, query = '') {
    const res = await fetch(`${B}/api/agent/v1/usage${query}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const text = await res.text();
    return { status: res.status, www: res.headers.get('www-authenticate'), text };
  }

  /** The whole grant with the shared public client. */
  const grantPub = (key: string, options: GrantOptions = {}) => grant(B, key, { clientId: pub.client_id, ...options });
  /** Up to the code with the shared public client. */
  const codePub = (key: string, options: GrantOptions = {}) =>
    authorizeCode(B, key, { clientId: pub.client_id, ...options });
  /** Registrations are limited per address per minute (of the app's clock): a test that registers starts a new one. */
  const newRegistrationMinute = () => t.clock.advance(61_000);

  const prmUrl = (base: string) => `${base}/.well-known/oauth-protected-resource`;
  const mcpPrmUrl = (base: string) => `${base}/.well-known/oauth-protected-resource/mcp`;

  // ---------------------------------------------------------------------------------------------------------
  // Discovery
  // ---------------------------------------------------------------------------------------------------------

  describe('metadata and challenges', () => {
    it('protected resource metadata: the root names B, the /mcp path names B/mcp, both list the AS and scopes', async () => {
      for (const [url, resource] of [
        [prmUrl(B), B],
        [mcpPrmUrl(B), `${B}/mcp`],
      ] as const) {
        const res = await fetch(url);
        expect(res.status, url).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/application\/json/);
        const doc = (await res.json()) as Record<string, unknown>;
        expect(doc.resource).toBe(resource);
        expect(doc.authorization_servers).toEqual([B]);
        expect([...(doc.scopes_supported as string[])].sort()).toEqual([...SCOPES].sort());
        expect(doc.bearer_methods_supported).toEqual(['header']);
        expect(typeof doc.resource_name).toBe('string');
        expect((doc.resource_name as string).length).toBeGreaterThan(0);
      }
    });

    it('authorization server metadata (RFC 8414) names B as issuer and every endpoint and capability', async () => {
      const res = await fetch(`${B}/.well-known/oauth-authorization-server`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc).toMatchObject({
        issuer: B,
        authorization_endpoint: `${B}/oauth/authorize`,
        token_endpoint: `${B}/oauth/token`,
        registration_endpoint: `${B}/oauth/register`,
        revocation_endpoint: `${B}/oauth/revoke`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
      });
      expect([...(doc.grant_types_supported as string[])].sort()).toEqual(['authorization_code', 'refresh_token']);
      expect([...(doc.token_endpoint_auth_methods_supported as string[])].sort()).toEqual([
        'client_secret_basic',
        'client_secret_post',
        'none',
      ]);
      expect([...(doc.scopes_supported as string[])].sort()).toEqual([...SCOPES].sort());
    });

    it('401 from /mcp without a token points at the /mcp resource metadata; with a bad token adds invalid_token', async () => {
      const m = await mcpPost(`${B}/mcp`, null, mcpInitialize());
      expect(m.status).toBe(401);
      const challenge = m.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain(`resource_metadata="${mcpPrmUrl(B)}"`);
      expect(challenge).not.toContain('error=');

      const bad = await mcpPost(`${B}/mcp`, 'aat_' + 'x'.repeat(43), mcpInitialize());
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(bad.headers.get('www-authenticate')).toContain(`resource_metadata="${mcpPrmUrl(B)}"`);
    });

    it('401 from REST keeps its plain Bearer challenge (its clients hold keys); only /mcp points at the metadata', async () => {
      const r = await restUsage('');
      expect(r.status).toBe(401);
      expect(r.www).toBe('Bearer');

      const bad = await restUsage('aat_' + 'x'.repeat(43));
      expect(bad.status).toBe(401);
      expect(bad.www).toBe('Bearer');
    });

    it('a token in the query string is ignored: /mcp?access_token= and REST ?access_token= answer 401', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      // Control: the same token in the header works.
      expect((await restUsage(g.accessToken)).status).toBe(200);

      const q = `?access_token=${encodeURIComponent(g.accessToken)}`;
      const m = await mcpPost(`${B}/mcp${q}`, null, mcpInitialize());
      expect(m.status).toBe(401);
      expect(m.headers.get('www-authenticate')).toContain(`resource_metadata="${mcpPrmUrl(B)}"`);
      const r = await restUsage('', q);
      expect(r.status).toBe(401);
    });
  });

  // ---------------------------------------------------------------------------------------------------------
  // Authorization endpoint
  // ---------------------------------------------------------------------------------------------------------

  describe('authorization endpoint', () => {
    it('an unknown client_id answers the 400 HTML page, never a redirect', async () => {
      const { challenge } = pkcePair();
      for (const clientId of ['no-such-client', `http://127.0.0.1:${allowed.port}/client.json`]) {
        const r = await getAuthorize(pkceAuthorizeUrl(B, clientId, challenge));
        expect(r.status, clientId).toBe(400);
        expect(r.headers.get('content-type')).toMatch(/text\/html/);
        expect(r.location).toBeNull();
      }
    });

    it('a redirect_uri that is not registered answers the 400 HTML page, never a redirect', async () => {
      const client = pub;
      const { challenge } = pkcePair();
      for (const redirectUri of [
        'http://127.0.0.1:43919/callback',
        `${REDIRECT_URI}/extra`,
        `${REDIRECT_URI}?x=1`,
        'https://attacker.example/callback',
      ]) {
        const r = await getAuthorize(pkceAuthorizeUrl(B, client.client_id, challenge, { redirectUri }));
        expect(r.status, redirectUri).toBe(400);
        expect(r.headers.get('content-type')).toMatch(/text\/html/);
        expect(r.location, redirectUri).toBeNull();
      }
      // Control: the registered URI gets the consent page.
      const ok = await getAuthorize(pkceAuthorizeUrl(B, client.client_id, challenge));
      expect(ok.status).toBe(200);
    });

    it('a missing code_challenge redirects with error=invalid_request, the state and iss', async () => {
      const client = pub;
      const state = randomState();
      const r = await getAuthorize(
        authorizeUrl(B, {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: REDIRECT_URI,
          state,
          resource: `${B}/mcp`,
        }),
      );
      expect(r.status).toBe(303);
      expect(`${r.location!.origin}${r.location!.pathname}`).toBe(REDIRECT_URI);
      expect(r.error).toBe('invalid_request');
      expect(r.code).toBeNull();
      expect(r.state).toBe(state);
      expect(r.iss).toBe(B);
    });

    it('code_challenge_method=plain (or missing) redirects with error=invalid_request', async () => {
      const client = pub;
      const { verifier, challenge } = pkcePair();
      for (const [challengeValue, method] of [
        [verifier, 'plain'],
        [challenge, 'plain'],
        [challenge, undefined],
        [challenge, 's256'],
      ] as const) {
        const state = randomState();
        const r = await getAuthorize(
          authorizeUrl(B, {
            response_type: 'code',
            client_id: client.client_id,
            redirect_uri: REDIRECT_URI,
            code_challenge: challengeValue,
            code_challenge_method: method,
            state,
            resource: `${B}/mcp`,
          }),
        );
        expect(r.status, String(method)).toBe(303);
        expect(r.error, String(method)).toBe('invalid_request');
        expect(r.code).toBeNull();
        expect(r.state).toBe(state);
        expect(r.iss).toBe(B);
      }
    });

    it('response_type other than code redirects with error=unsupported_response_type', async () => {
      const client = pub;
      const { challenge } = pkcePair();
      const url = pkceAuthorizeUrl(B, client.client_id, challenge);
      url.searchParams.set('response_type', 'token');
      const r = await getAuthorize(url);
      expect(r.status).toBe(303);
      expect(r.error).toBe('unsupported_response_type');
      expect(r.code).toBeNull();
    });

    it('a resource that is not this server redirects with error=invalid_target', async () => {
      const client = pub;
      const { challenge } = pkcePair();
      const state = randomState();
      const r = await getAuthorize(
        pkceAuthorizeUrl(B, client.client_id, challenge, { resource: 'https://other.example/mcp', state }),
      );
      expect(r.status).toBe(303);
      expect(r.error).toBe('invalid_target');
      expect(r.state).toBe(state);
      expect(r.iss).toBe(B);
    });

    it('the consent page shows the client, the redirect host and the scopes, and carries the request in its form', async () => {
      const tenant = await t.tenant();
      newRegistrationMinute();
      const client = await registerPublicClient(B, { client_name: 'Consent Page Client' });
      const { challenge } = pkcePair();
      const state = randomState();
      const url = pkceAuthorizeUrl(B, client.client_id, challenge, { state, scope: 'optimize:read clients:write' });
      const page = await getAuthorize(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.html).toContain('Consent Page Client');
      expect(page.html).toContain('127.0.0.1');
      expect(page.html).toContain('optimize:read');
      expect(page.html).toContain('clients:write');
      expect(page.html).toMatch(/<input[^>]*name="api_key"/);
      expect(page.html).toMatch(/<button[^>]*name="decision"[^>]*value="approve"|value="approve"[^>]*name="decision"/);
      expect(page.html).toMatch(/<button[^>]*name="decision"[^>]*value="deny"|value="deny"[^>]*name="decision"/);
      const c = await consent(url, tenant.key, 'approve');
      expect(c.page.fields).toMatchObject({
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
      });
      expect(c.status).toBe(303);
      expect(c.code).toMatch(/^aac_/);
    });

    it('deny at consent redirects with error=access_denied, the state and iss, and no code', async () => {
      const tenant = await t.tenant();
      const client = pub;
      const { challenge } = pkcePair();
      const state = randomState();
      const c = await consent(pkceAuthorizeUrl(B, client.client_id, challenge, { state }), tenant.key, 'deny');
      expect(c.status).toBe(303);
      expect(`${c.location!.origin}${c.location!.pathname}`).toBe(REDIRECT_URI);
      expect(c.error).toBe('access_denied');
      expect(c.code).toBeNull();
      expect(c.state).toBe(state);
      expect(c.iss).toBe(B);
    });

    it('the consent page escapes the client name and cannot be framed', async () => {
      newRegistrationMinute();
      const client = await registerPublicClient(B, { client_name: '<script>alert(1)</script><b>Evil</b>' });
      const { challenge } = pkcePair();
      const page = await getAuthorize(pkceAuthorizeUrl(B, client.client_id, challenge));
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('<script>alert(1)</script>');
      expect(page.html).not.toContain('<b>Evil</b>');
      expect(page.html).toContain('&lt;script&gt;');
      const csp = page.headers.get('content-security-policy') ?? '';
      const xfo = page.headers.get('x-frame-options') ?? '';
      expect(csp.includes("frame-ancestors 'none'") || /deny/i.test(xfo)).toBe(true);
    });

    it('a consent POST from a foreign Origin is refused and issues no code', async () => {
      const tenant = await t.tenant();
      const { challenge } = pkcePair();
      const state = randomState();
      const url = pkceAuthorizeUrl(B, pub.client_id, challenge, { state });
      const form = new URLSearchParams(url.searchParams);
      form.set('api_key', tenant.key);
      form.set('decision', 'approve');
      const res = await fetch(`${B}/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        body: form.toString(),
        redirect: 'manual',
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      // Control: the same form from the page's own origin is approved.
      const ok = await fetch(`${B}/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(B).origin },
        body: form.toString(),
        redirect: 'manual',
      });
      expect(ok.status).toBe(303);
      expect(new URL(ok.headers.get('location')!).searchParams.get('code')).toMatch(/^aac_/);
    });

    it('approve with a wrong or revoked API key answers 401 with the consent page again, and no redirect', async () => {
      const tenant = await t.tenant();
      const revokedKey = await t.key(tenant.orgId);
      await revokeApiKey(t.db, revokedKey.keyId, t.clock.now());
      const client = pub;
      for (const key of [generateApiKey(), 'not-a-key', revokedKey.apiKey]) {
        const { challenge } = pkcePair();
        const c = await consent(pkceAuthorizeUrl(B, client.client_id, challenge), key, 'approve');
        expect(c.status, key).toBe(401);
        expect(c.location, key).toBeNull();
        expect(c.headers.get('content-type')).toMatch(/text\/html/);
        expect(c.html).toMatch(/<form/i);
      }
    });

    it('scope escalation: granted scopes are the requested ones the key holds; REST needing more answers 403 insufficient_scope', async () => {
      const tenant = await t.tenant('pro');
      const reader = await t.key(tenant.orgId, ['optimize:read']);
      const g = await grantPub(reader.apiKey, { scope: 'optimize:read optimize:run clients:write' });
      expect(g.scope.split(' ').filter(Boolean)).toEqual(['optimize:read']);

      // What the key holds works...
      expect((await restUsage(g.accessToken)).status).toBe(200);
      const list = await fetch(`${B}/api/agent/v1/optimizations`, {
        headers: { authorization: `Bearer ${g.accessToken}` },
      });
      expect(list.status).toBe(200);
      // ...what it does not is refused with the RFC 6750 insufficient_scope challenge.
      const res = await fetch(`${B}/api/agent/v1/optimize`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${g.accessToken}`,
          'content-type': 'application/json',
          'idempotency-key': `esc-${randomState()}`,
        },
        body: JSON.stringify({ url: 'https://example.com/page', keyword: 'seo', client_id: tenant.clientId }),
      });
      expect(res.status).toBe(403);
      const body = (await res.json()) as { error: { code: string; details?: Record<string, unknown> } };
      expect(body.error.code).toBe('forbidden');
      const www = res.headers.get('www-authenticate') ?? '';
      expect(www).toMatch(/^Bearer /);
      expect(www).toContain('error="insufficient_scope"');
      expect(www).toContain('scope="optimize:run"');
      expect(www).toContain(`resource_metadata="${prmUrl(B)}"`);
      // Nothing was started.
      const runs = t.app.database.raw.prepare('SELECT count(*) AS n FROM runs').get() as { n: number };
      expect(runs.n).toBe(0);
    });

    it('a request for only scopes the key lacks never yields a token with more than the key holds', async () => {
      const tenant = await t.tenant('pro');
      const reader = await t.key(tenant.orgId, ['optimize:read']);
      const a = await (async () => {
        const client = pub;
        const { verifier, challenge } = pkcePair();
        const state = randomState();
        const url = pkceAuthorizeUrl(B, client.client_id, challenge, { scope: 'optimize:run clients:write', state });
        return { client, verifier, state, c: await consent(url, reader.apiKey, 'approve') };
      })();
      expect(a.c.status).toBe(303);
      expect(a.c.state).toBe(a.state);
      if (a.c.error) {
        // The spec's answer: nothing of the request is held by the key.
        expect(a.c.error).toBe('invalid_scope');
        expect(a.c.code).toBeNull();
        return;
      }
      const tok = await tokenRequest(B, {
        grant_type: 'authorization_code',
        code: a.c.code!,
        redirect_uri: REDIRECT_URI,
        client_id: a.client.client_id,
        code_verifier: a.verifier,
      });
      expect(tok.status).toBe(200);
      for (const s of (tok.body.scope ?? '').split(' ').filter(Boolean)) expect(['optimize:read']).toContain(s);
      const res = await fetch(`${B}/api/agent/v1/optimize`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tok.body.access_token}`,
          'content-type': 'application/json',
          'idempotency-key': `esc2-${randomState()}`,
        },
        body: JSON.stringify({ url: 'https://example.com/page', keyword: 'seo', client_id: tenant.clientId }),
      });
      expect(res.status).toBe(403);
    });

    it('an OAuth tools/call of a tool whose scope the grant lacks answers HTTP 403 with insufficient_scope', async () => {
      const tenant = await t.tenant('pro');
      const reader = await t.key(tenant.orgId, ['optimize:read']);
      const g = await grantPub(reader.apiKey);
      expect(g.scope.split(' ').filter(Boolean)).toEqual(['optimize:read']);
      const session = await mcpOpenSession(B, g.accessToken);
      const r = await mcpPost(
        `${B}/mcp`,
        g.accessToken,
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'start_optimization',
            arguments: {
              url: 'https://example.com/page',
              keyword: 'seo',
              client_id: tenant.clientId,
              idempotency_key: `mcp-${randomState()}`,
            },
          },
        },
        session,
      );
      expect(r.status, r.text.slice(0, 300)).toBe(403);
      const www = r.headers.get('www-authenticate') ?? '';
      expect(www).toMatch(/^Bearer /);
      expect(www).toContain('error="insufficient_scope"');
      expect(www).toContain('scope="optimize:run"');
      // A tool the grant allows still answers over the same session.
      const ok = await mcpPost(
        `${B}/mcp`,
        g.accessToken,
        { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'get_usage', arguments: {} } },
        session,
      );
      expect(ok.status).toBe(200);
      expect(ok.messages.find((m) => m.id === 8)?.result).toBeTruthy();
    });

    it('a CIMD client_id at a private address answers the 400 page and nothing is fetched', async () => {
      const doc = refused.serveClient('/client.json');
      const { challenge } = pkcePair();
      const started = Date.now();
      for (const clientId of [
        doc,
        `https://localhost:${refused.port}/client.json`,
        'https://10.0.0.1/client.json',
        'https://169.254.169.254/latest/meta-data/client.json',
        'https://[::1]/client.json',
        'https://192.168.1.1/client.json',
      ]) {
        const r = await getAuthorize(pkceAuthorizeUrl(B, clientId, challenge));
        expect(r.status, clientId).toBe(400);
        expect(r.headers.get('content-type')).toMatch(/text\/html/);
        expect(r.location, clientId).toBeNull();
      }
      expect(refused.count(), 'the refused server was never contacted').toBe(0);
      // Refused from the address alone: no connection attempt that would have to time out.
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('a CIMD document that does not name itself, or asks for a client secret, is refused (400 page)', async () => {
      const tenant = await t.tenant();
      const { challenge } = pkcePair();
      const mismatch = allowed.serve('/mismatch.json', {
        client_id: `${allowed.origin}/someone-else.json`,
        client_name: 'Mismatch',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
      });
      const secret = allowed.serveClient('/secret.json', [REDIRECT_URI], {
        token_endpoint_auth_method: 'client_secret_basic',
      });
      const notJson = allowed.serve('/not-json.json', '<html>hello</html>', { contentType: 'text/html' });
      const missing = `${allowed.origin}/missing.json`;
      for (const clientId of [mismatch, secret, notJson, missing]) {
        const r = await getAuthorize(pkceAuthorizeUrl(B, clientId, challenge));
        expect(r.status, clientId).toBe(400);
        expect(r.location, clientId).toBeNull();
      }
      // Control: a good document on the same server gets the consent page and a code that exchanges.
      const good = allowed.serveClient('/good.json');
      const before = allowed.count('/good.json');
      const g = await grant(B, tenant.key, { clientId: good });
      expect(allowed.count('/good.json')).toBeGreaterThan(before);
      expect(g.accessToken).toMatch(/^aat_/);
      // A redirect URI the document does not list is the 400 page.
      const other = await getAuthorize(
        pkceAuthorizeUrl(B, good, challenge, { redirectUri: 'http://127.0.0.1:43918/callback' }),
      );
      expect(other.status).toBe(400);
      expect(other.location).toBeNull();
    });
  });

  // ---------------------------------------------------------------------------------------------------------
  // Token endpoint
  // ---------------------------------------------------------------------------------------------------------

  describe('token endpoint', () => {
    it('a good exchange: Bearer token, aat_/art_ prefixes, expires_in, scope, no-store; the token works on REST and /mcp', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      expect(g.token.headers.get('content-type')).toMatch(/application\/json/);
      expect(g.token.headers.get('cache-control')).toMatch(/no-store/);
      expect(g.token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      expect(g.accessToken).toMatch(/^aat_/);
      expect(g.refreshToken).toMatch(/^art_/);
      expect(g.scope.split(' ').sort()).toEqual([...SCOPES].sort());

      const usage = await fetch(`${B}/api/agent/v1/usage`, { headers: { authorization: `Bearer ${g.accessToken}` } });
      expect(usage.status).toBe(200);
      expect(((await usage.json()) as { plan: string }).plan).toBe('starter');
      const clients = await fetch(`${B}/api/agent/v1/clients`, {
        headers: { authorization: `Bearer ${g.accessToken}` },
      });
      expect(clients.status).toBe(200);
      const listed = (await clients.json()) as { data?: Array<{ client_id?: string; id?: string }> };
      expect(JSON.stringify(listed)).toContain(tenant.clientId);

      const session = await mcpOpenSession(B, g.accessToken);
      const call = await mcpPost(
        `${B}/mcp`,
        g.accessToken,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_usage', arguments: {} } },
        session,
      );
      expect(call.status).toBe(200);
      expect(call.messages.find((m) => m.id === 2)?.result).toBeTruthy();
    });

    it('a wrong PKCE verifier answers invalid_grant', async () => {
      const tenant = await t.tenant();
      const a = await codePub(tenant.key);
      const r = await exchangeCode(B, a, { code_verifier: pkcePair().verifier });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_grant');
      expect(r.body.access_token).toBeUndefined();
      expect(r.headers.get('cache-control')).toMatch(/no-store/);
    });

    it('a missing code_verifier is refused (invalid_request or invalid_grant)', async () => {
      const tenant = await t.tenant();
      const a = await codePub(tenant.key);
      const r = await exchangeCode(B, a, { code_verifier: undefined });
      expect(r.status).toBe(400);
      expect(['invalid_request', 'invalid_grant']).toContain(r.body.error);
    });

    it('a reused code answers invalid_grant and revokes the tokens of the first exchange', async () => {
      const tenant = await t.tenant();
      const a = await codePub(tenant.key);
      const params = {
        grant_type: 'authorization_code',
        code: a.code,
        redirect_uri: a.redirectUri,
        client_id: a.clientId,
        code_verifier: a.verifier,
      };
      const first = await tokenRequest(B, params);
      expect(first.status).toBe(200);
      expect((await restUsage(first.body.access_token!)).status).toBe(200);

      const again = await tokenRequest(B, params);
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      expect(again.body.access_token).toBeUndefined();

      expect((await restUsage(first.body.access_token!)).status).toBe(401);
      const onMcp = await mcpPost(`${B}/mcp`, first.body.access_token!, mcpInitialize());
      expect(onMcp.status).toBe(401);
      expect(onMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const refresh = await refreshRequest(B, a.clientId, first.body.refresh_token!);
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');
    });

    it('a redirect_uri that differs from the authorization request answers invalid_grant', async () => {
      const tenant = await t.tenant();
      // Both URIs are registered for the client: the code is bound to the one its request used.
      const a = await codePub(tenant.key);
      const mismatch = await exchangeCode(B, a, { redirect_uri: OTHER_REDIRECT });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.error).toBe('invalid_grant');
      expect(mismatch.body.access_token).toBeUndefined();
      const b = await codePub(tenant.key, { redirectUri: OTHER_REDIRECT });
      const swapped = await exchangeCode(B, b, { redirect_uri: REDIRECT_URI });
      expect(swapped.status).toBe(400);
      expect(swapped.body.error).toBe('invalid_grant');
    });

    it('a code exchange without the redirect_uri of the authorization request is refused (RFC 6749 §4.1.3)', async () => {
      const tenant = await t.tenant();
      const a = await codePub(tenant.key);
      const r = await exchangeCode(B, a, { redirect_uri: undefined });
      expect(r.status, r.text).toBe(400);
      expect(['invalid_grant', 'invalid_request']).toContain(r.body.error);
    });

    it('a code presented by another client answers invalid_grant', async () => {
      const tenant = await t.tenant();
      const a = await codePub(tenant.key);
      const r = await exchangeCode(B, a, { client_id: thief.client_id });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_grant');
    });

    it('a resource other than B or B/mcp answers invalid_target; an unknown grant type unsupported_grant_type', async () => {
      const tenant = await t.tenant();
      const a = await codePub(tenant.key);
      const r = await exchangeCode(B, a, { resource: 'https://other.example/mcp' });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_target');

      const u = await tokenRequest(B, { grant_type: 'password', username: 'a', password: 'b', client_id: a.clientId });
      expect(u.status).toBe(400);
      expect(u.body.error).toBe('unsupported_grant_type');
    });

    it('a confidential client with a wrong client_secret answers 401 invalid_client; the right one works', async () => {
      newRegistrationMinute();
      const tenant = await t.tenant();
      const reg = await registerRequest(B, {
        client_name: 'confidential',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      });
      expect(reg.status).toBe(201);
      expect(reg.body.token_endpoint_auth_method).toBe('client_secret_post');
      expect(typeof reg.body.client_secret).toBe('string');
      expect(reg.body.client_secret!.length).toBeGreaterThan(20);
      expect(reg.body.client_secret_expires_at).toBe(0);
      const clientId = reg.body.client_id;
      const secret = reg.body.client_secret!;

      const a = await authorizeCode(B, tenant.key, { clientId });
      const exchange = (extra: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
        tokenRequest(
          B,
          {
            grant_type: 'authorization_code',
            code: a.code,
            redirect_uri: a.redirectUri,
            client_id: clientId,
            code_verifier: a.verifier,
            ...extra,
          },
          headers,
        );
      const wrong = await exchange({ client_secret: `${secret.slice(0, -2)}xx` });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
      const none = await exchange({});
      expect(none.status).toBe(401);
      expect(none.body.error).toBe('invalid_client');
      const basicWrong = await exchange(
        { client_id: undefined },
        { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:nope`).toString('base64')}` },
      );
      expect(basicWrong.status).toBe(401);
      expect(basicWrong.body.error).toBe('invalid_client');

      // The right secret, posted or as HTTP Basic.
      const posted = await grant(B, tenant.key, { clientId, clientSecret: secret });
      expect(posted.accessToken).toMatch(/^aat_/);
      const b = await authorizeCode(B, tenant.key, { clientId });
      const basic = await tokenRequest(
        B,
        { grant_type: 'authorization_code', code: b.code, redirect_uri: b.redirectUri, code_verifier: b.verifier },
        {
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
        },
      );
      expect(basic.status, basic.text).toBe(200);
      expect(basic.body.access_token).toMatch(/^aat_/);

      // Revocation authenticates the client the same way.
      const revokeWrong = await revokeRequest(B, {
        token: posted.refreshToken,
        client_id: clientId,
        client_secret: 'wrong',
      });
      expect(revokeWrong.status).toBe(401);
      expect(revokeWrong.body.error).toBe('invalid_client');
      expect((await restUsage(posted.accessToken)).status).toBe(200);
    });

    it('an expired code (older than 10 minutes) answers invalid_grant', async () => {
      const tenant = await t.tenant();
      const a = await codePub(tenant.key);
      t.clock.advance(10 * 60_000 + 1_000);
      const r = await exchangeCode(B, a);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_grant');
    });

    it('an unknown client at the token endpoint answers 401 invalid_client', async () => {
      const r = await tokenRequest(B, {
        grant_type: 'authorization_code',
        code: 'aac_nothing',
        redirect_uri: REDIRECT_URI,
        client_id: 'no-such-client',
        code_verifier: pkcePair().verifier,
      });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_client');
    });

    it('a reused refresh token answers invalid_grant and revokes the rotated refresh token and its access token', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      const rotated = await refreshRequest(B, g.clientId, g.refreshToken);
      expect(rotated.status).toBe(200);
      expect(rotated.headers.get('cache-control')).toMatch(/no-store/);
      const a2 = rotated.body.access_token!;
      const r2 = rotated.body.refresh_token!;
      expect(a2).toMatch(/^aat_/);
      expect(r2).toMatch(/^art_/);
      expect(r2).not.toBe(g.refreshToken);
      expect(a2).not.toBe(g.accessToken);
      expect((await restUsage(a2)).status).toBe(200);

      const reuse = await refreshRequest(B, g.clientId, g.refreshToken);
      expect(reuse.status).toBe(400);
      expect(reuse.body.error).toBe('invalid_grant');

      const afterFamily = await refreshRequest(B, g.clientId, r2);
      expect(afterFamily.status).toBe(400);
      expect(afterFamily.body.error).toBe('invalid_grant');
      expect((await restUsage(a2)).status).toBe(401);
      const onMcp = await mcpPost(`${B}/mcp`, a2, mcpInitialize());
      expect(onMcp.status).toBe(401);
      expect(onMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });

    it('a refresh token presented by another client answers invalid_grant', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      const r = await refreshRequest(B, thief.client_id, g.refreshToken);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_grant');
    });

    it('a refresh may narrow the scope, never widen it', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key, { scope: 'optimize:read clients:write' });
      expect(g.scope.split(' ').sort()).toEqual(['clients:write', 'optimize:read']);
      const narrow = await refreshRequest(B, g.clientId, g.refreshToken, { scope: 'optimize:read' });
      expect(narrow.status).toBe(200);
      expect(narrow.body.scope).toBe('optimize:read');
      const wide = await refreshRequest(B, g.clientId, narrow.body.refresh_token!, {
        scope: 'optimize:read optimize:run',
      });
      expect(wide.status).toBe(400);
      expect(wide.body.access_token).toBeUndefined();
    });

    it('an expired access token answers 401 with error="invalid_token" on REST and /mcp', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      expect((await restUsage(g.accessToken)).status).toBe(200);
      t.clock.advance(ACCESS_TTL_MS + 1_000);
      expect((await restUsage(g.accessToken)).status).toBe(401);
      const m = await mcpPost(`${B}/mcp`, g.accessToken, mcpInitialize());
      expect(m.status).toBe(401);
      expect(m.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(m.headers.get('www-authenticate')).toContain(`resource_metadata="${mcpPrmUrl(B)}"`);
      // The refresh token outlives it.
      const refreshed = await refreshRequest(B, g.clientId, g.refreshToken);
      expect(refreshed.status).toBe(200);
      expect((await restUsage(refreshed.body.access_token!)).status).toBe(200);
    });

    it('a token for another audience is refused: issued for http://127.0.0.1:PORT, used with Host localhost:PORT', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      const auth = { authorization: `Bearer ${g.accessToken}` };
      // Control: the same request with the Host the token was issued for.
      const same = await requestWithHost(t.port, `127.0.0.1:${t.port}`, { path: '/api/agent/v1/usage', headers: auth });
      expect(same.status).toBe(200);

      const rest = await requestWithHost(t.port, `localhost:${t.port}`, { path: '/api/agent/v1/usage', headers: auth });
      expect(rest.status).toBe(401);
      const mcp = await requestWithHost(t.port, `localhost:${t.port}`, {
        method: 'POST',
        path: '/mcp',
        headers: { ...auth, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify(mcpInitialize()),
      });
      expect(mcp.status).toBe(401);
      expect(String(mcp.headers['www-authenticate'])).toContain('error="invalid_token"');
      // B follows the Host header, and so does the metadata URL in the challenge.
      expect(String(mcp.headers['www-authenticate'])).toContain(
        `resource_metadata="http://localhost:${t.port}/.well-known/oauth-protected-resource/mcp"`,
      );
    });

    it('revoking the API key that approved the grant makes its tokens fail at once', async () => {
      const tenant = await t.tenant();
      const k = await t.key(tenant.orgId);
      const g = await grantPub(k.apiKey);
      expect((await restUsage(g.accessToken)).status).toBe(200);
      const session = await mcpOpenSession(B, g.accessToken);

      expect(await revokeApiKey(t.db, k.keyId, t.clock.now())).toBe(true);
      expect((await restUsage(g.accessToken)).status).toBe(401);
      expect((await mcpPost(`${B}/mcp`, g.accessToken, mcpInitialize())).status).toBe(401);
      const onSession = await mcpPost(
        `${B}/mcp`,
        g.accessToken,
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_usage', arguments: {} } },
        session,
      );
      expect(onSession.status).toBe(401);
      const refresh = await refreshRequest(B, g.clientId, g.refreshToken);
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');
      // The tenant's other key is untouched.
      expect((await restUsage(tenant.key)).status).toBe(200);
    });
  });

  // ---------------------------------------------------------------------------------------------------------
  // Registration and revocation
  // ---------------------------------------------------------------------------------------------------------

  describe('lifetimes and limits', () => {
    it('a refresh token past its lifetime (30 days) answers invalid_grant', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      t.clock.advance(30 * 86_400_000 + 60_000);
      const r = await refreshRequest(B, g.clientId, g.refreshToken);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_grant');
      expect((await restUsage(g.accessToken)).status).toBe(401);
    });

    it('the rate limit is per grant, like a key: one grant at its limit leaves the key and another grant alone', async () => {
      t.clock.advance(61_000);
      const tenant = await t.tenant();
      const g1 = await grantPub(tenant.key);
      const g2 = await grantPub(tenant.key);
      const first = await fetch(`${B}/api/agent/v1/usage`, { headers: { authorization: `Bearer ${g1.accessToken}` } });
      expect(first.status).toBe(200);
      const limit = ((await first.json()) as { rate_limit_per_minute: number }).rate_limit_per_minute;
      expect(limit).toBeGreaterThan(0);
      const statuses: number[] = [];
      for (let i = 1; i <= limit; i++) statuses.push((await restUsage(g1.accessToken)).status);
      expect(statuses.slice(0, limit - 1).every((s) => s === 200)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      expect((await restUsage(tenant.key)).status).toBe(200);
      expect((await restUsage(g2.accessToken)).status).toBe(200);
    });
  });

  describe('registration', () => {
    it('an address may register 10 clients a minute: the 11th answers 429 too_many_requests with Retry-After; a minute on it may again', async () => {
      newRegistrationMinute();
      for (let i = 0; i < 10; i++) await registerPublicClient(B, { client_name: `Client ${i}` });
      const refused = await registerRequest(B, {
        client_name: 'One too many',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
      });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: 'too_many_requests' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      newRegistrationMinute();
      await registerPublicClient(B, { client_name: 'A minute on' });
    });

    it('refuses an http redirect URI off loopback and any fragment (400 invalid_redirect_uri)', async () => {
      newRegistrationMinute();
      for (const uri of [
        'http://example.com/callback',
        'http://10.0.0.1/callback',
        'http://127.0.0.1:5555/callback#frag',
        'https://app.example.com/callback#',
        'https://app.example.com/callback#x=1',
      ]) {
        const r = await registerRequest(B, {
          client_name: 'bad',
          redirect_uris: [uri],
          token_endpoint_auth_method: 'none',
        });
        expect(r.status, uri).toBe(400);
        expect(r.body.error, uri).toBe('invalid_redirect_uri');
        expect(r.body.client_id).toBeUndefined();
      }
      // One bad URI among good ones refuses the whole registration.
      const mixed = await registerRequest(B, {
        redirect_uris: [REDIRECT_URI, 'http://example.com/cb'],
        token_endpoint_auth_method: 'none',
      });
      expect(mixed.status).toBe(400);
      expect(mixed.body.error).toBe('invalid_redirect_uri');
      // No redirect URI at all.
      const empty = await registerRequest(B, { client_name: 'none', token_endpoint_auth_method: 'none' });
      expect(empty.status).toBe(400);
      expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(empty.body.error);
    });

    it('accepts https, http on loopback and a private-use scheme; a public client gets no secret', async () => {
      newRegistrationMinute();
      const uris = [
        'https://app.example.com/callback',
        'http://127.0.0.1:5555/callback',
        'http://localhost:5555/callback',
        'http://[::1]:5555/callback',
        'com.example.app:/oauth2redirect',
      ];
      const r = await registerRequest(B, {
        client_name: 'Good Client',
        redirect_uris: uris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({
        client_name: 'Good Client',
        redirect_uris: uris,
        token_endpoint_auth_method: 'none',
        response_types: ['code'],
      });
      expect(typeof r.body.client_id).toBe('string');
      expect(r.body.client_id.length).toBeGreaterThan(0);
      expect(typeof r.body.client_id_issued_at).toBe('number');
      expect(r.body.client_secret).toBeUndefined();
      expect([...(r.body.grant_types ?? [])].sort()).toEqual(['authorization_code', 'refresh_token']);
      // Two registrations are two clients.
      const again = await registerPublicClient(B);
      expect(again.client_id).not.toBe(r.body.client_id);
    });
  });

  describe('revocation', () => {
    it('revoking a refresh token revokes its family (the access token too); an unknown token answers 200', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      const rotated = await refreshRequest(B, g.clientId, g.refreshToken);
      expect(rotated.status).toBe(200);
      const a2 = rotated.body.access_token!;
      const r2 = rotated.body.refresh_token!;
      expect((await restUsage(a2)).status).toBe(200);

      const rev = await revokeRequest(B, { token: r2, token_type_hint: 'refresh_token', client_id: g.clientId });
      expect(rev.status).toBe(200);
      expect((await restUsage(a2)).status).toBe(401);
      const refresh = await refreshRequest(B, g.clientId, r2);
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');

      for (const token of ['art_unknown', 'aat_unknown', 'garbage', r2]) {
        const r = await revokeRequest(B, { token, client_id: g.clientId });
        expect(r.status, token).toBe(200);
      }
    });

    it('revoking an access token (no hint) makes it fail', async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      expect((await restUsage(g.accessToken)).status).toBe(200);
      const rev = await revokeRequest(B, { token: g.accessToken, client_id: g.clientId });
      expect(rev.status).toBe(200);
      expect((await restUsage(g.accessToken)).status).toBe(401);
    });

    it("another client cannot revoke a client's tokens", async () => {
      const tenant = await t.tenant();
      const g = await grantPub(tenant.key);
      const rev = await revokeRequest(B, { token: g.refreshToken, client_id: thief.client_id });
      expect(rev.status).toBe(200);
      expect((await restUsage(g.accessToken)).status).toBe(200);
      expect((await refreshRequest(B, g.clientId, g.refreshToken)).status).toBe(200);
    });
  });

  describe('API keys are unchanged', () => {
    it('an API key still works on REST and on /mcp with both SDK generations', async () => {
      const tenant = await t.tenant();
      const r = await t.request('GET', '/usage', { key: tenant.key });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ plan: 'starter' });

      const legacy = await connectHttpClient(B, tenant.key);
      try {
        const { tools } = await legacy.client.listTools();
        expect(tools.map((x) => x.name)).toContain('get_usage');
        const usage = await legacy.client.callTool({ name: 'get_usage', arguments: {} });
        expect(structured<{ plan: string }>(usage).plan).toBe('starter');
      } finally {
        await legacy.close();
      }
      const modern = await connectModernHttpClient(B, tenant.key);
      try {
        const { tools } = await modern.client.listTools();
        expect(tools.map((x) => x.name)).toContain('get_usage');
        const usage = await modern.client.callTool({ name: 'get_usage', arguments: {} });
        expect(structured<{ plan: string }>(usage).plan).toBe('starter');
      } finally {
        await modern.close();
      }
    });

    it('a wrong API key on REST still answers 401 unauthorized with a Bearer challenge', async () => {
      const r = await t.request('GET', '/usage', { key: generateApiKey() });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: { code: 'unauthorized' } });
      expect(r.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
    });
  });
});

describe('OAuth with AGENT_API_PUBLIC_URL: B is the public URL whatever the Host', () => {
  const PUBLIC = 'https://agent.example.com';
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { AGENT_API_PUBLIC_URL: PUBLIC, AGENT_API_FAILED_AUTH_PER_MINUTE: '100000' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('metadata, challenges, iss and the token audience all name the public URL', async () => {
    const as = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as).toMatchObject({
      issuer: PUBLIC,
      authorization_endpoint: `${PUBLIC}/oauth/authorize`,
      token_endpoint: `${PUBLIC}/oauth/token`,
    });
    const prm = (await (await fetch(`${t.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<
      string,
      unknown
    >;
    expect(prm).toMatchObject({ resource: `${PUBLIC}/mcp`, authorization_servers: [PUBLIC] });
    const m = await mcpPost(`${t.url}/mcp`, null, mcpInitialize());
    expect(m.status).toBe(401);
    expect(m.headers.get('www-authenticate')).toContain(
      `resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp"`,
    );

    const tenant = await t.tenant();
    const client = await registerPublicClient(t.url);
    // The loopback URL is not this resource any more.
    const { challenge } = pkcePair();
    const wrong = await getAuthorize(
      pkceAuthorizeUrl(t.url, client.client_id, challenge, { resource: `${t.url}/mcp` }),
    );
    expect(wrong.status).toBe(303);
    expect(wrong.error).toBe('invalid_target');
    expect(wrong.iss).toBe(PUBLIC);

    const g = await grant(t.url, tenant.key, { clientId: client.client_id, resource: `${PUBLIC}/mcp` });
    expect(g.iss).toBe(PUBLIC);
    const usage = await fetch(`${t.url}/api/agent/v1/usage`, { headers: { authorization: `Bearer ${g.accessToken}` } });
    expect(usage.status).toBe(200);
    const session = await mcpOpenSession(t.url, g.accessToken);
    expect(session).toBeTruthy();
  });
});

describe('OAuth modes other than builtin', () => {
  it('AGENT_API_OAUTH=off: no metadata, no endpoints, a plain Bearer challenge; API keys work', async () => {
    const t = await startTestApp({ env: { AGENT_API_OAUTH: 'off' } });
    try {
      for (const path of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-authorization-server',
        '/oauth/authorize?response_type=code&client_id=x',
      ]) {
        expect((await fetch(`${t.url}${path}`)).status, path).toBe(404);
      }
      for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
        const r = await fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=authorization_code',
        });
        expect(r.status, path).toBe(404);
      }
      const m = await mcpPost(`${t.url}/mcp`, null, mcpInitialize());
      expect(m.status).toBe(401);
      expect(m.headers.get('www-authenticate')).toBe('Bearer');
      const tenant = await t.tenant();
      expect((await t.request('GET', '/usage', { key: tenant.key })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('external issuer: the built-in endpoints answer 404, the resource metadata lists the issuer, aat_ tokens are refused', async () => {
    const t = await startTestApp({
      env: {
        AGENT_API_OAUTH_ISSUER: 'https://issuer.example',
        AGENT_API_OAUTH_AUDIENCE: 'https://agent.example.com/mcp',
        AGENT_API_FAILED_AUTH_PER_MINUTE: '100000',
      },
    });
    try {
      expect((await fetch(`${t.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
      expect((await fetch(`${t.url}/oauth/authorize?response_type=code&client_id=x`)).status).toBe(404);
      for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
        const r = await fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=authorization_code',
        });
        expect(r.status, path).toBe(404);
      }
      const prm = await fetch(`${t.url}/.well-known/oauth-protected-resource/mcp`);
      expect(prm.status).toBe(200);
      expect(((await prm.json()) as { authorization_servers: string[] }).authorization_servers).toEqual([
        'https://issuer.example',
      ]);
      const m = await mcpPost(`${t.url}/mcp`, 'aat_' + 'x'.repeat(43), mcpInitialize());
      expect(m.status).toBe(401);
      const tenant = await t.tenant();
      expect((await t.request('GET', '/usage', { key: tenant.key })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
