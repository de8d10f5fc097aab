/**
 * The token endpoint's grants and the tokens they issue (docs/oauth.md "Tokens"):
 * - **authorization_code** (RFC 6749 §4.1.3 with PKCE S256): a code is used once; a second use revokes every token
 *   issued from it (RFC 6749 §4.1.2).
 * - **refresh_token** (§6): refresh tokens rotate; presenting one that was already rotated revokes the whole grant
 *   (its family), because either the client or a thief holds a copy.
 * - Access tokens are opaque, short-lived and bound to one resource (the audience, RFC 8707), the organisation and
 *   the granted scopes. Every token is stored only hashed, and each request reads the approving API key fresh, so
 *   revoking or expiring the key ends its grants' tokens at once.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import { immediate, type Db, type TxDb } from '../../store/db.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import {
  deleteExpiredOAuthRows,
  expireOAuthToken,
  findOAuthCode,
  findOAuthToken,
  insertOAuthGrant,
  insertOAuthToken,
  revokeOAuthGrant,
  useOAuthCode,
  useRefreshToken,
  type OAuthTokenWithGrant,
} from '../../store/repos/oauth.ts';
import { principalOfKeyHash, type Principal } from '../accounts/auth.ts';
import { expandScopes, type Scope } from '../accounts/scopes.ts';
import { canonicalResource, parseScopes } from './authorization.ts';
import type { OAuthClient } from './clients.ts';
import { OAuthError } from './errors.ts';
import { ACCESS_PREFIX, hashSecret, newSecret, pkceMatches, REFRESH_PREFIX } from './secrets.ts';

export interface TokenLifetimes {
  accessMs: number;
  refreshMs: number;
}

/** The token endpoint's success answer (RFC 6749 §5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const ACCESS_TOKEN_RE = /^aat_[A-Za-z0-9_-]{43}$/;

/** Whether a bearer token has the shape of this server's access tokens (no database read). */
export function isAccessToken(token: string): boolean {
  return ACCESS_TOKEN_RE.test(token);
}

const invalidToken = () => new ApiError('unauthorized', 'The access token is invalid, expired or revoked.');

interface TokenDeps {
  db: Db;
  clock: Clock;
  lifetimes: TokenLifetimes;
}

interface CodeExchange {
  code?: string;
  redirectUri?: string;
  codeVerifier?: string;
  resource?: string;
}

interface RefreshRequest {
  refreshToken?: string;
  scope?: string;
  resource?: string;
}

/** Issues an access and a refresh token of a grant, inside the caller's transaction. */
async function issueTokens(
  { clock, lifetimes }: TokenDeps,
  trx: TxDb,
  grantId: string,
  scopes: readonly Scope[],
  narrowed: boolean,
): Promise<TokenAnswer> {
  const now = clock.now();
  const access = newSecret(ACCESS_PREFIX);
  const refresh = newSecret(REFRESH_PREFIX);
  const own = narrowed ? JSON_COLUMNS.oauth_tokens.scopes.write([...scopes]) : null;
  const pair = [
    [access, 'access', lifetimes.accessMs],
    [refresh, 'refresh', lifetimes.refreshMs],
  ] as const;
  for (const [token, kind, lifetime] of pair) {
    await insertOAuthToken(trx, {
      token_hash: hashSecret(token),
      grant_id: grantId,
      kind,
      created_at: now,
      expires_at: now + lifetime,
      scopes: own,
      used_at: null,
    });
  }
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(lifetimes.accessMs / 1000),
    refresh_token: refresh,
    scope: scopes.join(' '),
  };
}

/** The approving key must still be valid when a grant issues tokens. */
async function keyStillValid({ db, clock }: TokenDeps, keyHash: string): Promise<Principal> {
  try {
    return await principalOfKeyHash(db, clock, keyHash);
  } catch {
    throw new OAuthError('invalid_grant', 'The API key that approved this grant is revoked or expired.');
  }
}

/** A `resource` asked at the token endpoint must be the one the grant is for (RFC 8707). */
function checkResource(asked: string | undefined, granted: string): void {
  if (asked !== undefined && canonicalResource(asked, [granted]) === null)
    throw new OAuthError('invalid_target', `This grant is for the resource ${granted}.`);
}

/** The exchange's redirect_uri against the authorization request's (RFC 6749 §4.1.3) or the client's registered ones. */
function checkRedirectUri(client: OAuthClient, requested: string, given: string | undefined): void {
  // The redirect_uri of the authorization request, when it carried one, must come again.
  if (requested !== '' && given !== requested)
    throw new OAuthError(
      'invalid_grant',
      given === undefined
        ? 'redirect_uri is required: the authorization request carried one.'
        : 'redirect_uri differs from the one of the authorization request.',
    );
  if (requested === '' && given !== undefined && !client.redirectUris.includes(given))
    throw new OAuthError('invalid_grant', 'redirect_uri is not one the client registered.');
}

/**
 * The code of an exchange once it passes every check: this client's, unused, unexpired, the same redirect URI and the
 * PKCE verifier. A code used before revokes every token issued from it (RFC 6749 §4.1.2).
 */
async function checkedCode({ db, clock }: TokenDeps, client: OAuthClient, input: CodeExchange) {
  if (!input.code) throw new OAuthError('invalid_request', 'code is missing.');
  const codeHash = hashSecret(input.code);
  const row = await findOAuthCode(db, codeHash);
  const now = clock.now();
  if (!row || row.client_id !== client.clientId)
    throw new OAuthError('invalid_grant', 'The code is unknown or was issued to another client.');
  if (row.used_at !== null) {
    if (row.grant_id) await revokeOAuthGrant(db, row.grant_id, now);
    throw new OAuthError('invalid_grant', 'The code was already used; the tokens issued for it are revoked.');
  }
  if (row.expires_at <= now) throw new OAuthError('invalid_grant', 'The code has expired.');
  checkRedirectUri(client, row.redirect_uri, input.redirectUri);
  if (!input.codeVerifier || !pkceMatches(input.codeVerifier, row.code_challenge))
    throw new OAuthError('invalid_grant', 'The PKCE code_verifier does not match the code_challenge.');
  return { codeHash, row, now };
}

/** grant_type=authorization_code: uses the code once, records its grant and issues the grant's first tokens. */
async function exchangeCode(deps: TokenDeps, client: OAuthClient, input: CodeExchange): Promise<TokenAnswer> {
  const { db } = deps;
  const { codeHash, row, now } = await checkedCode(deps, client, input);
  checkResource(input.resource, row.resource);
  await keyStillValid(deps, row.key_hash);
  const scopes = JSON_COLUMNS.oauth_codes.scopes.read(row.scopes);
  const grantId = `grant_${randomUUID()}`;
  const answer = await immediate(db, async (trx) => {
    if (!(await useOAuthCode(trx, codeHash, grantId, now))) return null;
    await insertOAuthGrant(trx, {
      id: grantId,
      client_id: row.client_id,
      key_hash: row.key_hash,
      org_id: row.org_id,
      scopes: JSON_COLUMNS.oauth_grants.scopes.write(scopes),
      resource: row.resource,
      created_at: now,
      revoked_at: null,
    });
    return issueTokens(deps, trx, grantId, scopes, false);
  });
  if (!answer) {
    // Two exchanges raced: the other one won, so this one is the replay.
    const used = await findOAuthCode(db, codeHash);
    if (used?.grant_id) await revokeOAuthGrant(db, used.grant_id, now);
    throw new OAuthError('invalid_grant', 'The code was already used; the tokens issued for it are revoked.');
  }
  await deleteExpiredOAuthRows(db, now);
  return answer;
}

/**
 * The refresh token of a refresh once it passes every check: this client's, of a live grant, not rotated yet and
 * unexpired. A token rotated before revokes its whole grant: either the client or a thief holds a copy.
 */
async function checkedRefreshToken({ db, clock }: TokenDeps, client: OAuthClient, input: RefreshRequest) {
  if (!input.refreshToken) throw new OAuthError('invalid_request', 'refresh_token is missing.');
  const tokenHash = hashSecret(input.refreshToken);
  const row = await findOAuthToken(db, tokenHash);
  const now = clock.now();
  if (!row || row.kind !== 'refresh' || row.client_id !== client.clientId)
    throw new OAuthError('invalid_grant', 'The refresh token is unknown or was issued to another client.');
  if (row.revoked_at !== null) throw new OAuthError('invalid_grant', 'The grant of this refresh token is revoked.');
  if (row.used_at !== null) {
    await revokeOAuthGrant(db, row.grant_id, now);
    throw new OAuthError(
      'invalid_grant',
      'The refresh token was already used; every token of its grant is revoked. Authorize again.',
    );
  }
  if (row.expires_at <= now) throw new OAuthError('invalid_grant', 'The refresh token has expired.');
  return { tokenHash, row, now };
}

/** grant_type=refresh_token: rotates the refresh token and issues a new pair, with scopes narrowed if asked. */
async function refreshTokens(deps: TokenDeps, client: OAuthClient, input: RefreshRequest): Promise<TokenAnswer> {
  const { db } = deps;
  const { tokenHash, row, now } = await checkedRefreshToken(deps, client, input);
  checkResource(input.resource, row.resource);
  await keyStillValid(deps, row.key_hash);
  const current = row.scopes;
  const asked = parseScopes(input.scope);
  if (asked?.some((s) => !current.includes(s)))
    throw new OAuthError('invalid_scope', 'A refresh may narrow the scopes, never widen them.');
  const scopes = asked ?? current;
  const answer = await immediate(db, async (trx) => {
    if (!(await useRefreshToken(trx, tokenHash, now))) return null;
    return issueTokens(deps, trx, row.grant_id, scopes, asked !== null || row.narrowed);
  });
  if (!answer) {
    await revokeOAuthGrant(db, row.grant_id, now);
    throw new OAuthError('invalid_grant', 'The refresh token was already used; every token of its grant is revoked.');
  }
  return answer;
}

/** Revokes a token of this client (RFC 7009): a refresh token its whole grant, an access token itself. */
async function revokeToken({ db, clock }: TokenDeps, client: OAuthClient, token: string): Promise<void> {
  const row = await findOAuthToken(db, hashSecret(token));
  if (!row || row.client_id !== client.clientId) return;
  const now = clock.now();
  if (row.kind === 'refresh') await revokeOAuthGrant(db, row.grant_id, now);
  else await expireOAuthToken(db, row.token_hash, now);
}

/** The principal of a usable access token for one of `resources`, its scopes those the approving key still holds. */
async function principalOfToken(
  { db, clock }: TokenDeps,
  token: string,
  resources: readonly string[],
): Promise<Principal> {
  if (!isAccessToken(token)) throw invalidToken();
  const row = await findOAuthToken(db, hashSecret(token));
  if (!row || !usable(row, clock.now()) || !resources.includes(row.resource)) throw invalidToken();
  let key: Principal;
  try {
    key = await principalOfKeyHash(db, clock, row.key_hash);
  } catch {
    throw invalidToken();
  }
  if (key.orgId !== row.org_id) throw invalidToken();
  const granted = expandScopes(row.scopes);
  return {
    ...key,
    keyId: row.grant_id,
    via: 'oauth',
    scopes: new Set([...granted].filter((s) => key.scopes.has(s))),
  };
}

/** The token endpoint's grants, revocation and the access tokens' check, on one database and clock. */
export function createTokenService(deps: TokenDeps) {
  return {
    /** grant_type=authorization_code. */
    exchangeCode: (client: OAuthClient, input: CodeExchange): Promise<TokenAnswer> => exchangeCode(deps, client, input),

    /** grant_type=refresh_token, with rotation and replay detection. */
    refresh: (client: OAuthClient, input: RefreshRequest): Promise<TokenAnswer> => refreshTokens(deps, client, input),

    /**
     * RFC 7009: a refresh token revokes its grant (every token of the family); an access token ends itself. A token
     * that is unknown, or another client's, is ignored: the endpoint answers 200 either way.
     */
    revoke: (client: OAuthClient, token: string): Promise<void> => revokeToken(deps, client, token),

    /**
     * The principal of an access token presented to `resources` (this server's resource URLs), or 401. The grant's
     * rate limit is its own (`keyId` is the grant), its scopes are those granted that the key still holds.
     */
    principalOf: (token: string, resources: readonly string[]): Promise<Principal> =>
      principalOfToken(deps, token, resources),
  };
}

function usable(row: OAuthTokenWithGrant, now: number): boolean {
  return row.kind === 'access' && row.revoked_at === null && row.expires_at > now;
}

export type TokenService = ReturnType<typeof createTokenService>;
