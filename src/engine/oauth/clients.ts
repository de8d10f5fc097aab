/**
 * OAuth clients of the built-in authorization server (docs/oauth.md "Clients"):
 * - **Client ID metadata documents**: a client id that is an https URL with a path names a JSON document describing
 *   the client. It is fetched through the SSRF-safe fetcher (so a document at a private or local address is refused),
 *   must name itself as `client_id`, and is cached per its Cache-Control (between 5 minutes and a day).
 * - **Dynamic registration** (RFC 7591): a client posts its metadata and gets a random client id, and a secret unless
 *   it registers as a public client (`token_endpoint_auth_method: none`).
 * Redirect URIs are matched exactly; they must be https, http on a loopback host, or a private-use scheme (RFC 8252
 * §7.1), never with a fragment.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../store/db.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import {
  findOAuthClient,
  insertOAuthClient,
  saveMetadataDocumentClient,
  type OAuthClientRow,
} from '../../store/repos/oauth.ts';
import { FetchError, type FetchedPage } from '../../providers/types.ts';
import { OAuthError } from './errors.ts';
import { hashSecret, newSecret, SECRET_PREFIX, secretMatches } from './secrets.ts';

export const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

export interface OAuthClient {
  clientId: string;
  kind: OAuthClientRow['kind'];
  /** The client's own name (hostile text: escape it), or its id's host when it gave none. */
  name: string;
  redirectUris: readonly string[];
  authMethod: AuthMethod;
  secretHash: string | null;
}

/** What the server keeps of a client's metadata (oauth_clients.metadata). */
export interface StoredClientMetadata {
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: AuthMethod;
  grant_types: string[];
  response_types: string[];
  scope?: string;
  client_uri?: string;
}

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2_000;
const MIN_DOCUMENT_TTL_MS = 5 * 60_000;
const MAX_DOCUMENT_TTL_MS = 24 * 3_600_000;
const DEFAULT_DOCUMENT_TTL_MS = 3_600_000;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why a redirect URI is refused, or null when it is acceptable. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `a redirect URI is longer than ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${JSON.stringify(uri.slice(0, 100))} is not an absolute URI`;
  }
  if (uri.includes('#')) return 'a redirect URI must not contain a fragment';
  if (url.username || url.password) return 'a redirect URI must not contain credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname) ? null : 'an http redirect URI must be on a loopback host; use https';
  // RFC 8252 §7.1: a private-use scheme is a reverse domain name (com.example.app:/callback).
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol)
    ? null
    : `the scheme ${url.protocol} is not allowed for redirect URIs (https, loopback http or a reverse-domain scheme)`;
}

const uri = z.string().min(1).max(MAX_URI_LENGTH);

/** RFC 7591 §2 metadata the server reads; unknown members are ignored, as the RFC asks. */
const RegistrationSchema = z.object({
  redirect_uris: z.array(uri).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().trim().min(1).max(200).optional(),
  token_endpoint_auth_method: z.enum(AUTH_METHODS).default('client_secret_basic'),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token']))
    .min(1)
    .default(['authorization_code']),
  response_types: z.array(z.literal('code')).min(1).default(['code']),
  scope: z.string().max(1_000).optional(),
  client_uri: uri.optional(),
});

/** The first problem of a zod parse, named by its field. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.join('.') || '(body)'}: ${issue.message}`;
}

function checkRedirectUris(uris: readonly string[]): void {
  for (const u of uris) {
    const problem = redirectUriProblem(u);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
}

function toClient(row: OAuthClientRow): OAuthClient {
  const m = JSON_COLUMNS.oauth_clients.metadata.read(row.metadata);
  return {
    clientId: row.client_id,
    kind: row.kind,
    name: m.client_name ?? hostOf(row.client_id) ?? 'Unnamed client',
    redirectUris: m.redirect_uris,
    authMethod: m.token_endpoint_auth_method,
    secretHash: row.secret_hash,
  };
}

function hostOf(value: string): string | null {
  try {
    return new URL(value).host || null;
  } catch {
    return null;
  }
}

/** A registration's answer (RFC 7591 §3.2.1). */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  redirect_uris: string[];
  client_name?: string;
  token_endpoint_auth_method: AuthMethod;
  grant_types: string[];
  response_types: string[];
  scope?: string;
  client_uri?: string;
}

/** Registers a client (RFC 7591); throws OAuthError `invalid_client_metadata` / `invalid_redirect_uri`. */
export async function registerClient(db: Db, clock: Clock, body: unknown): Promise<RegisteredClient> {
  const parsed = RegistrationSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const code = issue.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw new OAuthError(code, firstIssue(parsed.error));
  }
  const m = parsed.data;
  checkRedirectUris(m.redirect_uris);
  const now = clock.now();
  const clientId = `mcp_${randomBytes(16).toString('base64url')}`;
  const secret = m.token_endpoint_auth_method === 'none' ? null : newSecret(SECRET_PREFIX);
  const stored: StoredClientMetadata = { ...m };
  await insertOAuthClient(db, {
    client_id: clientId,
    kind: 'registered',
    secret_hash: secret ? hashSecret(secret) : null,
    metadata: JSON_COLUMNS.oauth_clients.metadata.write(stored),
    created_at: now,
    expires_at: null,
  });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    ...stored,
  };
}

/** Whether a client id names a metadata document: an https URL with a path, no fragment, credentials or dot segments. */
export function isMetadataDocumentId(clientId: string): boolean {
  if (!clientId.startsWith('https://') || clientId.length > MAX_URI_LENGTH) return false;
  try {
    const url = new URL(clientId);
    const segments = clientId.slice(url.origin.length).split(/[?#]/)[0]!.split('/');
    return (
      url.pathname !== '/' &&
      !clientId.includes('#') &&
      !url.username &&
      !url.password &&
      !segments.some((s) => s === '.' || s === '..')
    );
  } catch {
    return false;
  }
}

/** A client ID metadata document's members the server reads (others are ignored). */
const DocumentSchema = z.object({
  client_id: z.string(),
  redirect_uris: z.array(uri).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().trim().min(1).max(200).optional(),
  token_endpoint_auth_method: z.literal('none').default('none'),
  grant_types: z.array(z.string()).default(['authorization_code']),
  response_types: z.array(z.string()).default(['code']),
  scope: z.string().max(1_000).optional(),
  client_uri: uri.optional(),
  client_secret: z.undefined({ error: 'a metadata document must not carry a client_secret' }).optional(),
});

/** How long a fetched document may be used: its Cache-Control max-age, bounded; an hour without one. */
function documentTtl(headers: Record<string, string>): number {
  const cc = headers['cache-control'] ?? '';
  if (/\bno-store\b|\bno-cache\b/i.test(cc)) return MIN_DOCUMENT_TTL_MS;
  const m = /\bmax-age=(\d+)/i.exec(cc);
  const ms = m ? Number(m[1]) * 1000 : DEFAULT_DOCUMENT_TTL_MS;
  return Math.min(MAX_DOCUMENT_TTL_MS, Math.max(MIN_DOCUMENT_TTL_MS, ms));
}

/** Fetches a client's metadata document through the SSRF-safe fetcher and checks it. */
async function fetchMetadataDocument(
  clientId: string,
  fetchDocument: (url: string) => Promise<FetchedPage>,
): Promise<{ metadata: StoredClientMetadata; ttlMs: number }> {
  let page: FetchedPage;
  try {
    page = await fetchDocument(clientId);
  } catch (err) {
    const why =
      err instanceof FetchError && err.code === 'blocked'
        ? 'it is at an address this server does not fetch (private, local or not a web port)'
        : err instanceof FetchError
          ? `it could not be fetched (${err.code}: ${err.message})`
          : 'it could not be fetched';
    throw new OAuthError('invalid_client', `The client's metadata document ${clientId} was refused: ${why}.`);
  }
  if (page.status !== 200)
    throw new OAuthError('invalid_client', `The client's metadata document ${clientId} answered HTTP ${page.status}.`);
  if (page.url !== clientId && page.url !== new URL(clientId).href)
    throw new OAuthError('invalid_client', `The client's metadata document ${clientId} redirected elsewhere.`);
  let json: unknown;
  try {
    json = JSON.parse(page.body);
  } catch {
    throw new OAuthError('invalid_client', `The client's metadata document ${clientId} is not JSON.`);
  }
  const parsed = DocumentSchema.safeParse(json);
  if (!parsed.success)
    throw new OAuthError('invalid_client', `The client's metadata document is not valid: ${firstIssue(parsed.error)}.`);
  const d = parsed.data;
  if (d.client_id !== clientId)
    throw new OAuthError('invalid_client', `The client's metadata document names another client_id than its URL.`);
  try {
    checkRedirectUris(d.redirect_uris);
  } catch (err) {
    throw new OAuthError('invalid_client', `The client's metadata document: ${(err as Error).message}.`);
  }
  const { client_id: _id, client_secret: _secret, ...metadata } = d;
  return { metadata, ttlMs: documentTtl(page.headers) };
}

export interface ClientDirectory {
  /** The client with this id (fetching its metadata document when needed); throws OAuthError `invalid_client`. */
  find(clientId: string): Promise<OAuthClient>;
  /**
   * Authenticates a client at the token and revocation endpoints (RFC 6749 §2.3): a public client sends only its
   * id; a confidential one its secret, by HTTP Basic or in the body. Throws OAuthError `invalid_client`.
   */
  authenticate(credentials: { clientId: string | null; secret: string | null }): Promise<OAuthClient>;
}

export function createClientDirectory(deps: {
  db: Db;
  clock: Clock;
  fetchDocument: (url: string) => Promise<FetchedPage>;
}): ClientDirectory {
  const { db, clock } = deps;
  /** One fetch at a time per document id, shared by concurrent requests. */
  const inFlight = new Map<string, Promise<OAuthClient>>();

  const fetchAndCache = async (clientId: string, now: number): Promise<OAuthClient> => {
    const { metadata, ttlMs } = await fetchMetadataDocument(clientId, deps.fetchDocument);
    const row: OAuthClientRow = {
      client_id: clientId,
      kind: 'metadata_document',
      secret_hash: null,
      metadata: JSON_COLUMNS.oauth_clients.metadata.write(metadata),
      created_at: now,
      expires_at: now + ttlMs,
    };
    await saveMetadataDocumentClient(db, row);
    return toClient(row);
  };

  const find = async (clientId: string): Promise<OAuthClient> => {
    if (!clientId || clientId.length > MAX_URI_LENGTH) throw new OAuthError('invalid_client', 'client_id is missing.');
    const row = await findOAuthClient(db, clientId);
    const now = clock.now();
    if (row && (row.kind === 'registered' || (row.expires_at ?? 0) > now)) return toClient(row);
    if (!isMetadataDocumentId(clientId))
      throw new OAuthError('invalid_client', 'Unknown client_id: register the client or use a metadata document URL.');
    let pending = inFlight.get(clientId);
    if (!pending) {
      pending = fetchAndCache(clientId, now).finally(() => inFlight.delete(clientId));
      inFlight.set(clientId, pending);
    }
    return pending;
  };

  return {
    find,
    async authenticate({ clientId, secret }) {
      if (!clientId) throw new OAuthError('invalid_client', 'The client is not identified (client_id).');
      const client = await find(clientId);
      if (client.authMethod === 'none') {
        if (secret !== null) throw new OAuthError('invalid_client', 'A public client must not send a client secret.');
        return client;
      }
      if (secret === null || !client.secretHash || !secretMatches(secret, client.secretHash))
        throw new OAuthError('invalid_client', 'The client secret is missing or wrong.');
      return client;
    },
  };
}
