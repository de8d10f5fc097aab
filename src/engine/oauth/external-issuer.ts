/**
 * External OAuth mode (AGENT_API_OAUTH_ISSUER): access tokens are JWTs from the operator's identity provider, and
 * this server only verifies them. The provider's keys come from the `jwks_uri` of its metadata (RFC 8414, then
 * OpenID discovery), read through the fetcher the server passes (the SSRF-safe one) on the first verify and kept.
 *
 * A token passes when its signature verifies with an asymmetric algorithm, `iss` is the configured issuer exactly,
 * `aud` names our audience, `exp` has not passed (30 s tolerance by the injected clock) and it carries `sub` and the
 * organisation claim. Its scopes (`scope` or `scp`, the operator's prefix stripped) map to ours; unknown ones are
 * dropped, and a token with none is still valid: the caller decides what an empty grant may do.
 *
 * The provider is contacted at most once per 30 s after the first time: a failed discovery is retried on a later
 * verify, and a token whose `kid` is not in the key set refetches it (key rotation). Tokens are never logged or
 * echoed; every failure is a 401 whose message says which check failed.
 */
import {
  createLocalJWKSet,
  errors,
  jwtVerify,
  type CryptoKey,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  type JWTVerifyResult,
} from 'jose';
import type { Clock } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import { isScope, type Scope } from '../accounts/scopes.ts';

export interface ExternalIssuerSettings {
  /** AGENT_API_OAUTH_ISSUER, e.g. https://idp.example.com or https://idp.example.com/realms/x. */
  issuer: string;
  /** The `aud` value a token must carry. */
  audience: string;
  /** The claim holding our organisation id (default `agent_api_org`). */
  orgClaim: string;
  /** Stripped from the provider's scope names (`agent-api:clients:write` → `clients:write`); '' for none. */
  scopePrefix: string;
  /** Overrides the `jwks_uri` of the issuer's metadata (discovery is then skipped). */
  jwksUrl?: string;
}

export interface ExternalClaims {
  subject: string;
  orgId: string;
  scopes: Scope[];
  clientId: string | null;
  /** Milliseconds since the Unix epoch. */
  expiresAt: number;
  tokenId: string | null;
}

export interface ExternalIssuer {
  readonly issuer: string;
  /** Verifies a JWT access token; throws ApiError('unauthorized', <clear message>) for every failure. */
  verify(token: string): Promise<ExternalClaims>;
}

export interface ExternalIssuerDeps {
  clock: Clock;
  /** GETs a URL and answers its parsed JSON; throws when the answer is not a 200 with a JSON body. */
  fetchJson(url: string): Promise<unknown>;
}

/** How long after contacting the provider (discovery or key set) before it is contacted again. */
export const PROVIDER_COOLDOWN_MS = 30_000;

/** Asymmetric signatures only: `none` and the HMAC algorithms (a shared secret) are refused before any key lookup. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Header `typ` values of an access token: absent, generic, or RFC 9068's. Anything else is another kind of JWT. */
const ACCESS_TOKEN_TYPES = new Set(['jwt', 'at+jwt', 'application/at+jwt']);

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a bearer token has the shape of a JWS compact JWT (three base64url parts), cheap pre-check. */
export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

const unauthorized = (message: string) => new ApiError('unauthorized', message);

const reasonOf = (err: unknown) => (err instanceof Error && err.message ? err.message : 'request failed');

/** RFC 8414 §3.1 (well-known inserted before the issuer's path), then OpenID Connect Discovery (appended). */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The `jwks_uri` of the issuer's metadata (RFC 8414, then OpenID discovery), which must name the issuer exactly. */
async function discoverJwksUrl(issuer: string, fetchJson: ExternalIssuerDeps['fetchJson']): Promise<string> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let doc: unknown;
    try {
      doc = await fetchJson(url);
    } catch (err) {
      failures.push(`${url}: ${reasonOf(err)}`);
      continue;
    }
    const meta = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>) : {};
    if (meta.issuer !== issuer) {
      throw unauthorized(
        `The token issuer's metadata at ${url} names issuer ${JSON.stringify(meta.issuer ?? null)}, ` +
          `not the configured ${issuer}.`,
      );
    }
    if (typeof meta.jwks_uri === 'string' && URL.canParse(meta.jwks_uri)) return meta.jwks_uri;
    failures.push(`${url}: no valid jwks_uri`);
  }
  throw unauthorized(`The token issuer's metadata could not be read (${failures.join('; ')}).`);
}

/** Reads the key set at `jwksUrl`; a set that cannot be read or is not a JSON Web Key Set is a 401. */
async function fetchKeySet(jwksUrl: string, fetchJson: ExternalIssuerDeps['fetchJson']): Promise<JWTVerifyGetKey> {
  let doc: unknown;
  try {
    doc = await fetchJson(jwksUrl);
  } catch (err) {
    throw unauthorized(`The token issuer's keys could not be read from ${jwksUrl}: ${reasonOf(err)}.`);
  }
  try {
    return createLocalJWKSet(doc as JSONWebKeySet);
  } catch {
    throw unauthorized(`The token issuer's keys at ${jwksUrl} are not a valid JSON Web Key Set.`);
  }
}

/** The provider's key set, kept once read: `current` for a verify, `rotated` for a retry after an unknown `kid`. */
interface KeyCache {
  current(): Promise<JWTVerifyGetKey>;
  /** The key set to retry an unknown `kid` with: the refresh in flight, a new one, or null while cooling down. */
  rotated(): Promise<JWTVerifyGetKey> | null;
}

/**
 * Keeps the provider's key set: discovered and read on first use, one request in flight at a time, the provider
 * contacted at most once per PROVIDER_COOLDOWN_MS; a failed refresh keeps the old set.
 */
function createKeyCache(settings: ExternalIssuerSettings, { clock, fetchJson }: ExternalIssuerDeps): KeyCache {
  let jwksUrl = settings.jwksUrl ?? null;
  let keys: JWTVerifyGetKey | null = null;
  /** When the provider was last contacted, and why that failed (while no key set is loaded). */
  let contactedAt: number | null = null;
  let lastFailure: ApiError | null = null;
  let pending: Promise<JWTVerifyGetKey> | null = null;

  /** Contacts the provider (one request in flight at a time) and keeps the key set; a failure keeps the old one. */
  function refresh(): Promise<JWTVerifyGetKey> {
    pending ??= (async () => {
      contactedAt = clock.now();
      try {
        jwksUrl ??= await discoverJwksUrl(settings.issuer, fetchJson);
        keys = await fetchKeySet(jwksUrl, fetchJson);
        lastFailure = null;
        return keys;
      } catch (err) {
        lastFailure = err instanceof ApiError ? err : unauthorized(`The token issuer could not be reached.`);
        throw lastFailure;
      } finally {
        pending = null;
      }
    })();
    return pending;
  }

  const coolingDown = () => contactedAt !== null && clock.now() - contactedAt < PROVIDER_COOLDOWN_MS;

  return {
    async current() {
      if (keys) return keys;
      if (pending) return pending;
      if (lastFailure && coolingDown()) throw lastFailure;
      return refresh();
    },
    rotated() {
      if (pending) return pending;
      return coolingDown() ? null : refresh();
    },
  };
}

/** Verifies a token with a key set; a token without `kid` that several keys match is tried with each of them. */
async function verifyWith(token: string, getKey: JWTVerifyGetKey, opts: JWTVerifyOptions): Promise<JWTVerifyResult> {
  try {
    return await jwtVerify(token, getKey, opts);
  } catch (err) {
    // A token without `kid` while the set holds several candidate keys: jose hands them out; try each.
    if (!(err instanceof errors.JWKSMultipleMatchingKeys)) throw err;
    for await (const key of err as unknown as AsyncIterable<CryptoKey>) {
      try {
        return await jwtVerify(token, key, opts);
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/** The 401 of a failed verification, its message naming the check that failed. */
function verifyFailure(err: unknown, { issuer, audience }: ExternalIssuerSettings): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof errors.JWTExpired) return unauthorized('The access token has expired.');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') return unauthorized(`The access token has no ${err.claim} claim.`);
    if (err.claim === 'iss') return unauthorized(`The access token was not issued by ${issuer}.`);
    if (err.claim === 'aud') return unauthorized(`The access token is not meant for this server (${audience}).`);
    if (err.claim === 'nbf') return unauthorized('The access token is not valid yet.');
    return unauthorized(`The access token's ${err.claim} claim is not valid.`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) {
    return unauthorized('The access token is not signed with an accepted algorithm (RS*, PS*, ES*, EdDSA).');
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return unauthorized("The access token's signature does not verify with the issuer's keys.");
  }
  if (err instanceof errors.JWKSNoMatchingKey) {
    return unauthorized('The access token was signed with a key the issuer does not publish.');
  }
  return unauthorized('The access token is not a valid signed JWT.');
}

/** Our scopes among the token's (`scope` or `scp`), the operator's prefix stripped; unknown ones are dropped. */
function scopesOf(payload: JWTPayload, scopePrefix: string): Scope[] {
  const raw = typeof payload.scope === 'string' ? payload.scope : payload.scp;
  const names = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  const out = new Set<Scope>();
  for (const name of names) {
    if (typeof name !== 'string' || !name.startsWith(scopePrefix)) continue;
    const ours = name.slice(scopePrefix.length);
    if (isScope(ours)) out.add(ours);
  }
  return [...out];
}

/** The claims of a verified token: an access token's `typ`, a subject and an organisation, or a 401. */
function claimsOf(
  payload: JWTPayload,
  typ: unknown,
  { orgClaim, scopePrefix }: ExternalIssuerSettings,
): ExternalClaims {
  if (typ !== undefined && !(typeof typ === 'string' && ACCESS_TOKEN_TYPES.has(typ.toLowerCase()))) {
    throw unauthorized('The token is not an access token (its typ header names another kind of JWT).');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') {
    throw unauthorized('The access token has no sub claim.');
  }
  const orgId = payload[orgClaim];
  if (typeof orgId !== 'string' || orgId === '') throw unauthorized(`The access token has no ${orgClaim} claim.`);
  const clientId = [payload.client_id, payload.azp].find((v) => typeof v === 'string' && v !== '');
  return {
    subject: payload.sub,
    orgId,
    scopes: scopesOf(payload, scopePrefix),
    clientId: (clientId as string | undefined) ?? null,
    expiresAt: (payload.exp as number) * 1000,
    tokenId: typeof payload.jti === 'string' && payload.jti !== '' ? payload.jti : null,
  };
}

/** The verifier of the operator's JWT access tokens (see the top of this file). */
export function createExternalIssuer(settings: ExternalIssuerSettings, deps: ExternalIssuerDeps): ExternalIssuer {
  const { issuer, audience } = settings;
  const { clock } = deps;
  if (!URL.canParse(issuer)) throw new Error(`The OAuth issuer "${issuer}" is not a URL.`);

  const options: JWTVerifyOptions = {
    issuer,
    audience,
    clockTolerance: 30,
    requiredClaims: ['exp', 'sub'],
    algorithms: ALGORITHMS,
  };
  const keys = createKeyCache(settings, deps);

  return {
    issuer,
    async verify(token) {
      if (!looksLikeJwt(token)) throw unauthorized('The access token is not a JWT.');
      const opts = () => ({ ...options, currentDate: new Date(clock.now()) });
      try {
        let result: JWTVerifyResult;
        try {
          result = await verifyWith(token, await keys.current(), opts());
        } catch (err) {
          // Key rotation: a kid the cached set lacks refetches it, unless the provider was contacted moments ago.
          const retry = err instanceof errors.JWKSNoMatchingKey ? keys.rotated() : null;
          if (!retry) throw err;
          result = await verifyWith(token, await retry, opts());
        }
        return claimsOf(result.payload, result.protectedHeader.typ, settings);
      } catch (err) {
        throw verifyFailure(err, settings);
      }
    },
  };
}
