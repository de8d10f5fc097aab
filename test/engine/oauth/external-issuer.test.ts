import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors.ts';
import {
  createExternalIssuer,
  looksLikeJwt,
  type ExternalIssuerSettings,
} from '../../../src/engine/oauth/external-issuer.ts';
import { createSafeFetcher, parseAllowList, type SafeFetcher } from '../../../src/providers/web/safe-fetch.ts';
import { createFakeClock, type FakeClock } from '../../helpers/clock.ts';

// A loopback identity provider: each path answers what `routes` holds now; `hits` counts the requests per path.
let server: Server;
let origin: string;
let fetcher: SafeFetcher;
let routes: Map<string, unknown>;
let hits: Map<string, number>;

interface Key {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function makeKey(kid: string, alg: 'RS256' | 'ES256'): Promise<Key> {
  const { publicKey, privateKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

let rsa: Key;
let ec: Key;
let impostor: Key; // not published, signs with kid 'rsa'
let stranger: Key; // not published, own kid
let rotated: Key;
let second: Key;

beforeAll(async () => {
  [rsa, ec, impostor, stranger, rotated, second] = await Promise.all([
    makeKey('rsa', 'RS256'),
    makeKey('ec', 'ES256'),
    makeKey('rsa', 'RS256'),
    makeKey('stranger', 'RS256'),
    makeKey('rotated', 'RS256'),
    makeKey('second', 'RS256'),
  ]);
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const body = routes.get(path);
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  fetcher = createSafeFetcher({ allow: parseAllowList([`127.0.0.1:${port}`]) });
});

afterAll(async () => {
  await fetcher?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

const AUDIENCE = 'https://agent-api.example.com/mcp';
let clock: FakeClock;

beforeEach(() => {
  clock = createFakeClock();
  hits = new Map();
  routes = new Map<string, unknown>([
    ['/.well-known/oauth-authorization-server', { issuer: origin, jwks_uri: `${origin}/jwks` }],
    ['/jwks', { keys: [rsa.jwk, ec.jwk] }],
  ]);
});

async function fetchJson(url: string): Promise<unknown> {
  const page = await fetcher.fetch(url);
  if (page.status !== 200) throw new Error(`HTTP ${page.status}`);
  return JSON.parse(page.body) as unknown;
}

function issuerFor(overrides: Partial<ExternalIssuerSettings> = {}) {
  const settings = { issuer: origin, audience: AUDIENCE, orgClaim: 'agent_api_org', scopePrefix: 'agent-api:' };
  return createExternalIssuer({ ...settings, ...overrides }, { clock, fetchJson });
}

const nowSeconds = () => Math.floor(clock.now() / 1000);

interface SignOptions {
  key?: Key;
  kid?: string | null;
  typ?: string;
  iss?: string;
  exp?: number | null;
}

/** A token signed by `key` (rsa by default) with the standard claims, `claims` merged over them. */
async function sign(claims: JWTPayload = {}, opts: SignOptions = {}): Promise<string> {
  const key = opts.key ?? rsa;
  const kid = opts.kid === undefined ? key.kid : opts.kid;
  const jwt = new SignJWT({ agent_api_org: 'org_1', client_id: 'client-1', jti: 'tok-1', ...claims })
    .setProtectedHeader({ alg: key.alg, ...(kid ? { kid } : {}), ...(opts.typ ? { typ: opts.typ } : {}) })
    .setIssuer(opts.iss ?? origin)
    .setAudience(AUDIENCE)
    .setIssuedAt(nowSeconds());
  if (!('sub' in claims)) jwt.setSubject('user-1');
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? nowSeconds() + 3600);
  return jwt.sign(key.privateKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Expects a 401 whose message matches and never contains the token (nor its signature). */
async function expectRefused(promise: Promise<unknown>, message: RegExp, token: string) {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe('unauthorized');
  expect((err as ApiError).message).toMatch(message);
  expect((err as ApiError).message).not.toContain(token);
  const signature = token.split('.')[2];
  if (signature) expect((err as ApiError).message).not.toContain(signature);
}

describe('external issuer: valid tokens', () => {
  it('maps a token: subject, org, prefixed scopes only (unknown dropped), client id, expiry, token id', async () => {
    const issuer = issuerFor();
    const exp = nowSeconds() + 600;
    const token = await sign(
      {
        scope:
          'agent-api:clients:write agent-api:reporter:read agent-api:content:write other-app:optimize:run copywriter:run openid',
      },
      { exp },
    );
    expect(await issuer.verify(token)).toEqual({
      subject: 'user-1',
      orgId: 'org_1',
      scopes: ['clients:write', 'reporter:read'],
      clientId: 'client-1',
      expiresAt: exp * 1000,
      tokenId: 'tok-1',
    });
    expect(issuer.issuer).toBe(origin);
  });

  it('reads the scp array form, azp as client id, an RFC 9068 typ, an ES256 key; no jti is a null token id', async () => {
    const issuer = issuerFor({ scopePrefix: '' });
    const token = await sign(
      {
        scp: ['prospector:write', 'optimize:run', 'agent-api:clients:write', 'email'],
        client_id: undefined,
        azp: 'app-2',
        jti: undefined,
      },
      { key: ec, typ: 'at+jwt' },
    );
    const claims = await issuer.verify(token);
    expect(claims.scopes).toEqual(['prospector:write', 'optimize:run']);
    expect(claims.clientId).toBe('app-2');
    expect(claims.tokenId).toBeNull();
  });

  it('accepts a token with no scope we know (empty scopes) and one with no scope claim at all', async () => {
    const issuer = issuerFor();
    expect((await issuer.verify(await sign({ scope: 'openid profile clients:write' }))).scopes).toEqual([]);
    expect((await issuer.verify(await sign())).scopes).toEqual([]);
  });

  it('tries each candidate key when a token names no kid and several keys fit', async () => {
    routes.set('/jwks', { keys: [rsa.jwk, second.jwk] });
    const issuer = issuerFor();
    const claims = await issuer.verify(await sign({ scope: 'agent-api:clients:write' }, { key: second, kid: null }));
    expect(claims.scopes).toEqual(['clients:write']);
    const noKid = await sign({}, { key: stranger, kid: null });
    await expectRefused(issuer.verify(noKid), /signature does not verify/, noKid);
  });
});

describe('external issuer: refused tokens', () => {
  it('refuses a token from another issuer', async () => {
    const token = await sign({}, { iss: 'https://evil.example.com' });
    await expectRefused(issuerFor().verify(token), new RegExp(`not issued by ${origin}`), token);
  });

  it('refuses a token for another audience', async () => {
    const token = await new SignJWT({ agent_api_org: 'org_1' })
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa' })
      .setIssuer(origin)
      .setAudience('https://other.example.com/mcp')
      .setSubject('user-1')
      .setExpirationTime(nowSeconds() + 600)
      .sign(rsa.privateKey);
    await expectRefused(issuerFor().verify(token), /not meant for this server/, token);
  });

  it('refuses an expired token once exp plus the 30 s tolerance has passed (by the injected clock)', async () => {
    const issuer = issuerFor();
    const token = await sign({}, { exp: nowSeconds() + 60 });
    clock.advance(60_000 + 29_000);
    await expect(issuer.verify(token)).resolves.toMatchObject({ orgId: 'org_1' });
    clock.advance(2_000);
    await expectRefused(issuer.verify(token), /has expired/, token);
  });

  it('refuses a token signed by another key under a published kid, and one under an unknown kid', async () => {
    const issuer = issuerFor();
    const forged = await sign({}, { key: impostor });
    await expectRefused(issuer.verify(forged), /signature does not verify/, forged);
    const unknown = await sign({}, { key: stranger });
    await expectRefused(issuer.verify(unknown), /key the issuer does not publish/, unknown);
  });

  it('refuses an unsigned alg none token and an HS256 token', async () => {
    const issuer = issuerFor();
    const claims = { iss: origin, aud: AUDIENCE, sub: 'user-1', agent_api_org: 'org_1', exp: nowSeconds() + 600 };
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    await expectRefused(issuer.verify(none), /not signed with an accepted algorithm/, none);
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'rsa' }).sign(new Uint8Array(32));
    await expectRefused(issuer.verify(hs), /not signed with an accepted algorithm/, hs);
  });

  it('refuses a token without the org claim, or with an empty or non-string one', async () => {
    const issuer = issuerFor();
    for (const org of [undefined, '', 42]) {
      const token = await sign({ agent_api_org: org });
      await expectRefused(issuer.verify(token), /has no agent_api_org claim/, token);
    }
    const custom = await sign({ tenant: 'org_9' });
    expect((await issuerFor({ orgClaim: 'tenant' }).verify(custom)).orgId).toBe('org_9');
  });

  it('refuses a token without exp, and one without sub', async () => {
    const issuer = issuerFor();
    const noExp = await sign({}, { exp: null });
    await expectRefused(issuer.verify(noExp), /has no exp claim/, noExp);
    const noSub = await sign({ sub: undefined });
    await expectRefused(issuer.verify(noSub), /has no sub claim/, noSub);
  });

  it('refuses a JWT whose typ names another kind of token', async () => {
    const token = await sign({}, { typ: 'logout+jwt' });
    await expectRefused(issuerFor().verify(token), /not an access token/, token);
  });

  it('refuses what is not a JWT', async () => {
    await expectRefused(issuerFor().verify('aat_notajwt'), /not a JWT/, 'aat_notajwt');
  });
});

describe('external issuer: discovery and keys', () => {
  it('refuses every token when the metadata names another issuer (the message names both)', async () => {
    routes.set('/.well-known/oauth-authorization-server', {
      issuer: 'https://idp.example.com',
      jwks_uri: `${origin}/jwks`,
    });
    const token = await sign();
    const err = await issuerFor()
      .verify(token)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('unauthorized');
    expect((err as ApiError).message).toContain('https://idp.example.com');
    expect((err as ApiError).message).toContain(`configured ${origin}`);
    expect(hits.get('/jwks')).toBeUndefined();
  });

  it('inserts the well-known path before the path of an issuer with a path (RFC 8414)', async () => {
    const iss = `${origin}/realms/x`;
    routes.set('/.well-known/oauth-authorization-server/realms/x', { issuer: iss, jwks_uri: `${origin}/jwks` });
    const claims = await issuerFor({ issuer: iss }).verify(await sign({}, { iss }));
    expect(claims.subject).toBe('user-1');
    expect(hits.get('/.well-known/oauth-authorization-server/realms/x')).toBe(1);
    expect(hits.get('/realms/x/.well-known/openid-configuration')).toBeUndefined();
    expect(hits.get('/.well-known/oauth-authorization-server')).toBeUndefined();
  });

  it('falls back to OpenID discovery (appended well-known path)', async () => {
    const iss = `${origin}/realms/y`;
    routes.set('/realms/y/.well-known/openid-configuration', { issuer: iss, jwks_uri: `${origin}/jwks` });
    const claims = await issuerFor({ issuer: iss }).verify(await sign({}, { iss }));
    expect(claims.orgId).toBe('org_1');
    expect(hits.get('/.well-known/oauth-authorization-server/realms/y')).toBe(1);
    expect(hits.get('/realms/y/.well-known/openid-configuration')).toBe(1);
  });

  it('falls back to OpenID discovery for an issuer without a path', async () => {
    routes.delete('/.well-known/oauth-authorization-server');
    routes.set('/.well-known/openid-configuration', { issuer: origin, jwks_uri: `${origin}/jwks` });
    await expect(issuerFor().verify(await sign())).resolves.toMatchObject({ subject: 'user-1' });
  });

  it('discovers once and keeps the key set across verifies', async () => {
    const issuer = issuerFor();
    await issuer.verify(await sign());
    await issuer.verify(await sign({}, { key: ec }));
    clock.advance(3_600_000);
    await issuer.verify(await sign());
    expect(hits.get('/.well-known/oauth-authorization-server')).toBe(1);
    expect(hits.get('/jwks')).toBe(1);
  });

  it('uses a configured JWKS URL without discovery', async () => {
    routes.delete('/.well-known/oauth-authorization-server');
    routes.set('/keys', { keys: [rsa.jwk] });
    await expect(issuerFor({ jwksUrl: `${origin}/keys` }).verify(await sign())).resolves.toMatchObject({
      orgId: 'org_1',
    });
    expect(hits.get('/keys')).toBe(1);
    expect([...hits.keys()].some((p) => p.includes('well-known'))).toBe(false);
  });

  it('retries a failed discovery on a later verify, at most once per 30 s', async () => {
    routes.delete('/.well-known/oauth-authorization-server');
    const issuer = issuerFor();
    const token = await sign();
    await expectRefused(issuer.verify(token), /metadata could not be read/, token);
    expect(hits.get('/.well-known/oauth-authorization-server')).toBe(1);
    routes.set('/.well-known/oauth-authorization-server', { issuer: origin, jwks_uri: `${origin}/jwks` });
    clock.advance(20_000);
    await expectRefused(issuer.verify(token), /metadata could not be read/, token);
    expect(hits.get('/.well-known/oauth-authorization-server')).toBe(1);
    clock.advance(11_000);
    await expect(issuer.verify(token)).resolves.toMatchObject({ subject: 'user-1' });
    expect(hits.get('/.well-known/oauth-authorization-server')).toBe(2);
  });

  it('follows key rotation: a token under a new kid refetches the key set and verifies', async () => {
    const issuer = issuerFor();
    await issuer.verify(await sign());
    routes.set('/jwks', { keys: [rotated.jwk] });
    clock.advance(31_000);
    const claims = await issuer.verify(await sign({ scope: 'agent-api:optimize:read' }, { key: rotated }));
    expect(claims.scopes).toEqual(['optimize:read']);
    expect(hits.get('/jwks')).toBe(2);
  });

  it('refetches for unknown kids at most once per 30 s', async () => {
    const issuer = issuerFor();
    await issuer.verify(await sign());
    clock.advance(31_000);
    const unknown = await sign({}, { key: stranger });
    await expectRefused(issuer.verify(unknown), /does not publish/, unknown);
    clock.advance(5_000);
    const another = await sign({}, { key: stranger, kid: 'other' });
    await expectRefused(issuer.verify(another), /does not publish/, another);
    expect(hits.get('/jwks')).toBe(2);
    clock.advance(26_000);
    await expectRefused(issuer.verify(unknown), /does not publish/, unknown);
    expect(hits.get('/jwks')).toBe(3);
  });
});

describe('looksLikeJwt', () => {
  it('accepts three base64url parts (an empty signature too) and nothing else', async () => {
    expect(looksLikeJwt(await sign())).toBe(true);
    expect(looksLikeJwt(`${b64({ alg: 'none' })}.${b64({ sub: 'x' })}.`)).toBe(true);
    for (const token of ['aat_abc123', 'a.b', 'a.b.c.d', '', 'a..c', 'a.b.c ', 'a+b.c.d', 'a.b/c.d', '.b.c']) {
      expect(looksLikeJwt(token)).toBe(false);
    }
  });
});
