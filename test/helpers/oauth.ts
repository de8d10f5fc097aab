import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import { readJsonAnswer, type JsonAnswer } from './json-answer.ts';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/**
 * OAuth test helpers (docs: .notes/oauth-spec.md): an in-memory client provider for the MCP SDK clients that records
 * the authorization URL instead of opening a browser, a `consent` helper that fills and posts the consent form the way
 * a person does, PKCE, raw token/registration/revocation requests, and an HTTPS loopback server that serves Client ID
 * Metadata Documents with the fixture certificate.
 */

export const TLS_CERT_PATH = fileURLToPath(new URL('../fixtures/tls/loopback.cert.pem', import.meta.url));
export const TLS_KEY_PATH = fileURLToPath(new URL('../fixtures/tls/loopback.key.pem', import.meta.url));

/** A loopback redirect URI (RFC 8252 §7.3). Nothing listens there: the tests read the redirect's Location instead. */
export const REDIRECT_URI = 'http://127.0.0.1:43917/callback';

// ---------------------------------------------------------------------------------------------------------------
// PKCE (RFC 7636)
// ---------------------------------------------------------------------------------------------------------------

/** The S256 code challenge of a verifier: base64url(SHA-256(verifier)). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** A fresh verifier (43 characters of base64url) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256(verifier) };
}

export function randomState(): string {
  return randomBytes(12).toString('base64url');
}

// ---------------------------------------------------------------------------------------------------------------
// The SDK client's provider
// ---------------------------------------------------------------------------------------------------------------

export interface InMemoryOAuthProviderOptions {
  redirectUrl?: string;
  /** A CIMD client_id (an https URL with a path): the SDK uses it instead of registering when the AS supports it. */
  clientMetadataUrl?: string;
  clientName?: string;
  tokenEndpointAuthMethod?: 'none' | 'client_secret_post' | 'client_secret_basic';
}

/**
 * An `OAuthClientProvider` (SDK v2; structurally the v1 one too) that keeps everything in memory and records the
 * authorization URLs it is asked to open, the tokens it is given and the credentials the SDK invalidates.
 */
export class InMemoryOAuthProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadataUrl?: string;
  /** Every authorization URL the SDK asked to open, in order. */
  readonly authorizationUrls: URL[] = [];
  /** Every token set saved, in order (the last one is current). */
  readonly tokenHistory: StoredOAuthTokens[] = [];
  /** Every `invalidateCredentials` scope the SDK asked for, in order. */
  readonly invalidated: string[] = [];
  /** Every state value handed to the SDK, in order. */
  readonly states: string[] = [];
  private readonly clientName: string;
  private readonly authMethod: 'none' | 'client_secret_post' | 'client_secret_basic';
  private client: StoredOAuthClientInformation | undefined;
  private current: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(options: InMemoryOAuthProviderOptions = {}) {
    this.redirectUrl = options.redirectUrl ?? REDIRECT_URI;
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
    this.clientName = options.clientName ?? 'agent-api OAuth test client';
    this.authMethod = options.tokenEndpointAuthMethod ?? 'none';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.authMethod,
    };
  }

  /** The last authorization URL the SDK asked to open. */
  get lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error('the SDK never asked to open an authorization URL');
    return url;
  }

  state(): string {
    const s = randomState();
    this.states.push(s);
    return s;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.client;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.client = info;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.current = tokens;
    this.tokenHistory.push(tokens);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrls.push(new URL(authorizationUrl.href));
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE code verifier was saved');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// A fetch that records what the SDK sent
// ---------------------------------------------------------------------------------------------------------------

export interface FetchRecord {
  method: string;
  url: URL;
  status: number;
  /** The request body as text (form and JSON bodies), or '' when there was none. */
  body: string;
}

/** A `fetch` for the SDK transports' `fetch` option that records every request (method, URL, body) and its status. */
export function recordingFetch(): {
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  calls: FetchRecord[];
  /** The recorded calls to `path` (pathname), optionally from index `from`. */
  to(path: string, from?: number): FetchRecord[];
} {
  const calls: FetchRecord[] = [];
  return {
    calls,
    fetch: async (url, init) => {
      const target = new URL(String(url instanceof URL ? url.href : url));
      const raw = init?.body;
      const body = typeof raw === 'string' ? raw : raw instanceof URLSearchParams ? raw.toString() : '';
      const res = await fetch(url, init);
      calls.push({ method: (init?.method ?? 'GET').toUpperCase(), url: target, status: res.status, body });
      return res;
    },
    to: (path, from = 0) => calls.slice(from).filter((c) => c.url.pathname === path),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Raw endpoint requests
// ---------------------------------------------------------------------------------------------------------------

export type { JsonAnswer };

/** POSTs `params` as application/x-www-form-urlencoded (undefined values left out); never follows redirects. */
export async function postForm<T = Record<string, unknown>>(
  url: string | URL,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<JsonAnswer<T>> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) form.set(k, v);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: form.toString(),
    redirect: 'manual',
  });
  return readJsonAnswer<T>(res);
}

export interface TokenBody {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  error?: string;
  error_description?: string;
}

/** POST B/oauth/token. */
export function tokenRequest(
  base: string,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<JsonAnswer<TokenBody>> {
  return postForm<TokenBody>(new URL('/oauth/token', base), params, headers);
}

/**
 * The exchange of an authorized code (grant_type=authorization_code with its redirect URI, client and verifier);
 * `over` replaces fields, or drops them when undefined, for the negative cases.
 */
export function exchangeCode(
  base: string,
  a: { clientId: string; redirectUri: string; verifier: string; code: string },
  over: Record<string, string | undefined> = {},
  headers: Record<string, string> = {},
): Promise<JsonAnswer<TokenBody>> {
  const params = {
    grant_type: 'authorization_code',
    code: a.code,
    redirect_uri: a.redirectUri,
    client_id: a.clientId,
    code_verifier: a.verifier,
    ...over,
  };
  return tokenRequest(base, params, headers);
}

/** POST B/oauth/revoke. */
export function revokeRequest(
  base: string,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<JsonAnswer> {
  return postForm(new URL('/oauth/revoke', base), params, headers);
}

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at?: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  redirect_uris: string[];
  client_name?: string;
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
  error?: string;
  error_description?: string;
}

/** POST B/oauth/register (RFC 7591) with a JSON body. */
export async function registerRequest(base: string, metadata: unknown): Promise<JsonAnswer<RegisteredClient>> {
  const res = await fetch(new URL('/oauth/register', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(metadata),
  });
  return readJsonAnswer<RegisteredClient>(res);
}

/** Registers a public client (auth method none) with one loopback redirect URI; fails the test unless it is 201. */
export async function registerPublicClient(
  base: string,
  extra: Record<string, unknown> = {},
  redirectUri = REDIRECT_URI,
): Promise<RegisteredClient> {
  const r = await registerRequest(base, {
    client_name: 'raw test client',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  if (r.status !== 201) throw new Error(`registration answered ${r.status}: ${r.text}`);
  return r.body;
}

/** The authorization endpoint URL with these query parameters (undefined values left out). */
export function authorizeUrl(base: string, params: Record<string, string | undefined>): URL {
  const url = new URL('/oauth/authorize', base);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

/** A redirect's Location, parsed: the authorization response parameters. */
export interface RedirectParams {
  location: URL | null;
  code: string | null;
  state: string | null;
  iss: string | null;
  error: string | null;
  errorDescription: string | null;
}

function redirectParams(res: Response, base: string | URL): RedirectParams {
  const raw = res.headers.get('location');
  const location = raw ? new URL(raw, base) : null;
  const q = location?.searchParams;
  return {
    location,
    code: q?.get('code') ?? null,
    state: q?.get('state') ?? null,
    iss: q?.get('iss') ?? null,
    error: q?.get('error') ?? null,
    errorDescription: q?.get('error_description') ?? null,
  };
}

/** GET an authorization URL as a browser would, without following a redirect. */
export async function getAuthorize(url: string | URL): Promise<
  RedirectParams & {
    status: number;
    headers: Headers;
    html: string;
  }
> {
  const res = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
  const html = await res.text();
  return { status: res.status, headers: res.headers, html, ...redirectParams(res, url) };
}

// ---------------------------------------------------------------------------------------------------------------
// Consent: what a person does on the consent page
// ---------------------------------------------------------------------------------------------------------------

export interface ConsentResult extends RedirectParams {
  /** The status of the form's POST (303 on a decision, 401 with a bad key, ...). */
  status: number;
  headers: Headers;
  /** The body of the POST's answer (the consent page again, with an error, when it did not redirect). */
  html: string;
  /** The consent page the GET answered. */
  page: { status: number; html: string; fields: Record<string, string> };
}

/** The cookies a response sets, as a Cookie request header value. */
function cookieHeader(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!.trim())
    .filter(Boolean)
    .join('; ');
}

/**
 * Does what a person does: opens the authorization URL, reads the consent form (its hidden inputs), types the API
 * key, and presses Approve or Deny. The form is posted as application/x-www-form-urlencoded to the form's action,
 * with the page's cookies and the page's Origin, and the redirect is not followed: its Location is parsed instead.
 */
export async function consent(
  authorizationUrl: string | URL,
  apiKey: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<ConsentResult> {
  const pageRes = await fetch(authorizationUrl, { redirect: 'manual', headers: { accept: 'text/html' } });
  const pageHtml = await pageRes.text();
  if (pageRes.status !== 200) {
    throw new Error(
      `the consent page answered ${pageRes.status} (Location: ${pageRes.headers.get('location')}): ${pageHtml.slice(0, 500)}`,
    );
  }
  const { document } = parseHTML(pageHtml);
  const forms = [...document.querySelectorAll('form')];
  const form = forms.find((f) => f.querySelector('input[name="api_key"]')) ?? forms[0];
  if (!form) throw new Error(`the consent page has no form: ${pageHtml.slice(0, 500)}`);
  if ((form.getAttribute('method') ?? 'get').toLowerCase() !== 'post') throw new Error('the consent form is not POST');
  const fields: Record<string, string> = {};
  const body = new URLSearchParams();
  for (const input of [...form.querySelectorAll('input')]) {
    const name = input.getAttribute('name');
    const type = (input.getAttribute('type') ?? 'text').toLowerCase();
    if (!name || input.hasAttribute('disabled')) continue;
    if (type === 'hidden' || ((type === 'checkbox' || type === 'radio') && input.hasAttribute('checked'))) {
      const value = input.getAttribute('value') ?? (type === 'hidden' ? '' : 'on');
      fields[name] = value;
      body.append(name, value);
    }
  }
  body.set('api_key', apiKey);
  body.set('decision', decision);
  const action = new URL(form.getAttribute('action') || String(authorizationUrl), authorizationUrl);
  const cookies = cookieHeader(pageRes);
  const res = await fetch(action, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
      origin: action.origin,
      ...(cookies ? { cookie: cookies } : {}),
    },
    body: body.toString(),
    redirect: 'manual',
  });
  const html = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    html,
    page: { status: pageRes.status, html: pageHtml, fields },
    ...redirectParams(res, action),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// A whole grant over raw HTTP
// ---------------------------------------------------------------------------------------------------------------

export interface GrantOptions {
  /** An existing client; a public client is registered when absent. */
  clientId?: string;
  clientSecret?: string;
  redirectUri?: string;
  scope?: string;
  /** The RFC 8707 resource; default B/mcp. Pass null to leave it out. */
  resource?: string | null;
  state?: string;
}

export interface Grant {
  clientId: string;
  redirectUri: string;
  verifier: string;
  code: string;
  state: string;
  iss: string | null;
  token: JsonAnswer<TokenBody>;
  accessToken: string;
  refreshToken: string;
  scope: string;
}

/** The authorization URL of a PKCE S256 request for `clientId`. */
export function pkceAuthorizeUrl(
  base: string,
  clientId: string,
  challenge: string,
  options: Omit<GrantOptions, 'clientId' | 'clientSecret'> = {},
): URL {
  return authorizeUrl(base, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: options.state ?? randomState(),
    scope: options.scope,
    resource: options.resource === null ? undefined : (options.resource ?? `${base}/mcp`),
  });
}

/** Authorizes with `apiKey` up to the code (consent approved); fails the test when no code comes back. */
export async function authorizeCode(
  base: string,
  apiKey: string,
  options: GrantOptions = {},
): Promise<{
  clientId: string;
  redirectUri: string;
  verifier: string;
  code: string;
  state: string;
  iss: string | null;
}> {
  const redirectUri = options.redirectUri ?? REDIRECT_URI;
  const clientId = options.clientId ?? (await registerPublicClient(base, {}, redirectUri)).client_id;
  const { verifier, challenge } = pkcePair();
  const state = options.state ?? randomState();
  const c = await consent(pkceAuthorizeUrl(base, clientId, challenge, { ...options, redirectUri, state }), apiKey);
  if (!c.code) throw new Error(`consent gave no code: ${c.status} ${c.location?.href ?? ''} ${c.html.slice(0, 300)}`);
  return { clientId, redirectUri, verifier, code: c.code, state, iss: c.iss };
}

/** The full authorization code grant over raw HTTP; fails the test unless the token endpoint answers 200. */
export async function grant(base: string, apiKey: string, options: GrantOptions = {}): Promise<Grant> {
  const a = await authorizeCode(base, apiKey, options);
  const token = await tokenRequest(base, {
    grant_type: 'authorization_code',
    code: a.code,
    redirect_uri: a.redirectUri,
    client_id: a.clientId,
    client_secret: options.clientSecret,
    code_verifier: a.verifier,
    resource: options.resource === null ? undefined : (options.resource ?? `${base}/mcp`),
  });
  if (token.status !== 200 || !token.body?.access_token || !token.body.refresh_token) {
    throw new Error(`token exchange answered ${token.status}: ${token.text}`);
  }
  return {
    ...a,
    token,
    accessToken: token.body.access_token,
    refreshToken: token.body.refresh_token,
    scope: token.body.scope ?? '',
  };
}

/** A refresh_token grant. */
export function refreshRequest(
  base: string,
  clientId: string,
  refreshToken: string,
  extra: Record<string, string | undefined> = {},
): Promise<JsonAnswer<TokenBody>> {
  return tokenRequest(base, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
    ...extra,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Requests with a chosen Host header (fetch always sends the URL's host)
// ---------------------------------------------------------------------------------------------------------------

export interface HostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One HTTP request to 127.0.0.1:`port` carrying `host` as its Host header. */
export function requestWithHost(
  port: number,
  host: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<HostAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { ...options.headers, host, connection: 'close' },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Raw MCP requests (the 2025 session era)
// ---------------------------------------------------------------------------------------------------------------

export const MCP_LEGACY_VERSION = '2025-11-25';

export interface McpAnswer {
  status: number;
  headers: Headers;
  messages: Array<Record<string, unknown>>;
  sessionId: string | null;
  text: string;
}

/** POSTs one JSON-RPC message to `url` (B/mcp, possibly with a query) with `token` as Bearer (none when null). */
export async function mcpPost(
  url: string | URL,
  token: string | null,
  message: unknown,
  sessionId?: string | null,
): Promise<McpAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': MCP_LEGACY_VERSION } : {}),
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let messages: Array<Record<string, unknown>> = [];
  try {
    messages = type.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data:') && l.slice(5).trim())
          .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>)
      : text
        ? ([JSON.parse(text)].flat() as Array<Record<string, unknown>>)
        : [];
  } catch {
    messages = [];
  }
  return { status: res.status, headers: res.headers, messages, sessionId: res.headers.get('mcp-session-id'), text };
}

/** A 2025-era initialize request. */
export function mcpInitialize(id = 1): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: MCP_LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'oauth-raw', version: '1' } },
  };
}

/** Opens a 2025-era session with `token`; fails the test unless initialize answers 200. */
export async function mcpOpenSession(base: string, token: string): Promise<string> {
  const r = await mcpPost(`${base}/mcp`, token, mcpInitialize());
  if (r.status !== 200 || !r.sessionId) throw new Error(`initialize answered ${r.status}: ${r.text.slice(0, 300)}`);
  await mcpPost(`${base}/mcp`, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, r.sessionId);
  return r.sessionId;
}

// ---------------------------------------------------------------------------------------------------------------
// An HTTPS loopback server for Client ID Metadata Documents
// ---------------------------------------------------------------------------------------------------------------

/** A Client ID Metadata Document for `clientId` (its own URL): a public client with one redirect URI. */
export function cimdDocument(
  clientId: string,
  redirectUris: string[] = [REDIRECT_URI],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: 'CIMD test client',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  };
}

export interface MetadataServer {
  port: number;
  /** https://127.0.0.1:PORT */
  origin: string;
  /** HOST:PORT, for AGENT_API_TEST_FETCH_ALLOW. */
  allow: string;
  /** Every request's path (with query), in order. */
  requests: string[];
  /** How many requests asked for `path` (every path when absent). */
  count(path?: string): number;
  /** Serves `body` (JSON unless a string) at `path`. */
  serve(path: string, body: unknown, options?: { status?: number; contentType?: string }): string;
  /** Serves a CIMD document whose client_id is its own URL at `path`; answers that URL. */
  serveClient(path?: string, redirectUris?: string[], extra?: Record<string, unknown>): string;
  close(): Promise<void>;
}

/** Starts an HTTPS server on 127.0.0.1 (random port) with the fixture certificate; unknown paths answer 404. */
export async function startMetadataServer(): Promise<MetadataServer> {
  const routes = new Map<string, { status: number; contentType: string; body: string }>();
  const requests: string[] = [];
  const server = https.createServer(
    { cert: readFileSync(TLS_CERT_PATH), key: readFileSync(TLS_KEY_PATH) },
    (req, res) => {
      const path = req.url ?? '/';
      requests.push(path);
      const route = routes.get(path.split('?')[0]!);
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      res.writeHead(route.status, { 'content-type': route.contentType, 'cache-control': 'no-store' });
      res.end(route.body);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `https://127.0.0.1:${port}`;
  const self: MetadataServer = {
    port,
    origin,
    allow: `127.0.0.1:${port}`,
    requests,
    count: (path) => (path === undefined ? requests.length : requests.filter((p) => p.split('?')[0] === path).length),
    serve(path, body, options = {}) {
      routes.set(path, {
        status: options.status ?? 200,
        contentType: options.contentType ?? 'application/json',
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return `${origin}${path}`;
    },
    serveClient(path = '/client.json', redirectUris = [REDIRECT_URI], extra = {}) {
      const url = `${origin}${path}`;
      self.serve(path, cimdDocument(url, redirectUris, extra));
      return url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return self;
}
