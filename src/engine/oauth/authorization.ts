/**
 * The authorization endpoint's request (RFC 6749 §4.1.1 with PKCE, RFC 7636, and resource indicators, RFC 8707),
 * checked in the order RFC 6749 §4.1.2.1 asks: a request whose client or redirect URI cannot be trusted is never
 * redirected (the person sees an error page); every other problem goes back to the client's redirect URI.
 * Approval turns the request into a one-time code bound to the client, the redirect URI, the PKCE challenge, the
 * resource, the granted scopes and the approving key.
 */
import type { Clock } from '../../clock.ts';
import type { Db } from '../../store/db.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import { insertOAuthCode } from '../../store/repos/oauth.ts';
import { hashApiKey } from '../accounts/api-keys.ts';
import type { Principal } from '../accounts/auth.ts';
import { isScope, SCOPES, type Scope } from '../accounts/scopes.ts';
import type { ClientDirectory, OAuthClient } from './clients.ts';
import { OAuthError } from './errors.ts';
import { CODE_PREFIX, hashSecret, isValidChallenge, newSecret } from './secrets.ts';

/** How long a code may wait for its exchange. */
export const CODE_TTL_MS = 60_000;

/** The parameters the consent form carries back, unchanged, when the person decides. */
export const AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | null;
  /** The scopes asked for; null: every scope the approving key holds. */
  scopes: Scope[] | null;
  codeChallenge: string;
  /** The resource (audience) the tokens will be for. */
  resource: string;
  /** The parameters as received, for the consent form. */
  params: Record<string, string>;
}

export type AuthorizationCheck =
  | { ok: AuthorizationRequest }
  /** The client or redirect URI is not trustworthy: show the error, never redirect. */
  | { fatal: OAuthError }
  /** Answer the error to the client at its redirect URI. */
  | { redirect: { redirectUri: string; state: string | null; error: OAuthError } };

/**
 * OpenID Connect scopes some clients add to every request: ignored (RFC 6749 §3.3 lets a server grant less), since
 * refresh tokens are always issued and there is no identity to share.
 */
const IGNORED_SCOPES = new Set(['offline_access', 'openid', 'profile', 'email']);

/** Space-separated scopes: each one must be ours or an ignored OpenID one (RFC 6749 §3.3). */
export function parseScopes(scope: string | undefined): Scope[] | null {
  const names = [...new Set((scope ?? '').trim().split(/ +/))].filter((n) => n !== '' && !IGNORED_SCOPES.has(n));
  if (names.length === 0) return null;
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length)
    throw new OAuthError(
      'invalid_scope',
      `Unknown scope ${unknown.slice(0, 3).join(', ')}; known: ${SCOPES.join(' ')}.`,
    );
  return names as Scope[];
}

/**
 * Checks an authorization request. `params` holds every parameter with all its values (a repeated parameter is
 * refused, RFC 6749 §3.1); `resources` are the resource URLs this server answers for (the first is the default).
 */
export async function checkAuthorizationRequest(
  clients: ClientDirectory,
  params: Record<string, readonly string[]>,
  resources: readonly string[],
): Promise<AuthorizationCheck> {
  const one = (name: string): string | undefined => params[name]?.[0];
  const repeated = AUTHORIZATION_PARAMS.filter((n) => (params[n]?.length ?? 0) > 1 && n !== 'resource');

  let client: OAuthClient;
  try {
    client = await clients.find(one('client_id') ?? '');
  } catch (err) {
    if (err instanceof OAuthError) return { fatal: err };
    throw err;
  }
  const asked = one('redirect_uri');
  if (params.redirect_uri && params.redirect_uri.length > 1)
    return { fatal: new OAuthError('invalid_request', 'redirect_uri is repeated.') };
  if (asked === undefined && client.redirectUris.length !== 1)
    return { fatal: new OAuthError('invalid_request', 'redirect_uri is required (the client registered several).') };
  const redirectUri = asked ?? client.redirectUris[0]!;
  if (!client.redirectUris.includes(redirectUri))
    return {
      fatal: new OAuthError('invalid_request', 'redirect_uri is not one the client registered (exact match).'),
    };

  const state = one('state') ?? null;
  const fail = (error: OAuthError): AuthorizationCheck => ({ redirect: { redirectUri, state, error } });
  if (repeated.length) return fail(new OAuthError('invalid_request', `${repeated.join(', ')} is repeated.`));
  if (one('response_type') !== 'code')
    return fail(new OAuthError('unsupported_response_type', 'response_type must be code.'));
  const challenge = one('code_challenge');
  const method = one('code_challenge_method');
  if (!challenge) return fail(new OAuthError('invalid_request', 'PKCE is required: code_challenge is missing.'));
  if (method !== 'S256')
    return fail(
      new OAuthError(
        'invalid_request',
        method ? `code_challenge_method ${method} is not supported; use S256.` : 'code_challenge_method must be S256.',
      ),
    );
  if (!isValidChallenge(challenge))
    return fail(new OAuthError('invalid_request', 'code_challenge is not a base64url SHA-256 (43 characters).'));
  let scopes: Scope[] | null;
  try {
    scopes = parseScopes(one('scope'));
  } catch (err) {
    return fail(err as OAuthError);
  }
  const asking = params.resource ?? [];
  if (asking.length > 1)
    return fail(new OAuthError('invalid_target', 'Tokens are issued for one resource: send one resource.'));
  const resource = asking[0] === undefined ? resources[0]! : canonicalResource(asking[0], resources);
  if (resource === null)
    return fail(new OAuthError('invalid_target', `resource must be one of ${resources.join(', ')}.`));

  const kept: Record<string, string> = {};
  for (const n of AUTHORIZATION_PARAMS) if (one(n) !== undefined) kept[n] = one(n)!;
  return { ok: { client, redirectUri, state, scopes, codeChallenge: challenge, resource, params: kept } };
}

/** The server's resource URL a client's `resource` names (a trailing slash aside), or null. */
export function canonicalResource(asked: string, resources: readonly string[]): string | null {
  const trimmed = asked.endsWith('/') ? asked.slice(0, -1) : asked;
  return resources.find((r) => r === trimmed) ?? null;
}

/** The scopes a grant gets: those asked for (all, when none were named) that the approving key holds. */
export function grantableScopes(request: AuthorizationRequest, principal: Principal): Scope[] {
  return (request.scopes ?? [...SCOPES]).filter((s) => principal.scopes.has(s));
}

/** Issues the one-time code of an approved request; answers the code. */
export async function issueCode(
  db: Db,
  clock: Clock,
  request: AuthorizationRequest,
  approval: { apiKey: string; principal: Principal; scopes: readonly Scope[] },
): Promise<string> {
  const code = newSecret(CODE_PREFIX);
  const now = clock.now();
  await insertOAuthCode(db, {
    code_hash: hashSecret(code),
    client_id: request.client.clientId,
    // As sent: '' when the request named none (the client's only URI), and then the exchange may omit it too.
    redirect_uri: request.params.redirect_uri ?? '',
    code_challenge: request.codeChallenge,
    key_hash: hashApiKey(approval.apiKey),
    org_id: approval.principal.orgId,
    scopes: JSON_COLUMNS.oauth_codes.scopes.write([...approval.scopes]),
    resource: request.resource,
    created_at: now,
    expires_at: now + CODE_TTL_MS,
    used_at: null,
    grant_id: null,
  });
  return code;
}
