import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { revokeApiKey } from '../../src/store/repos/api-keys.ts';
import { SESSION_TTL_MS } from '../../src/engine/accounts/console-sessions.ts';

/**
 * The web console's sign-in: an API key is exchanged for a session cookie (HttpOnly, SameSite=Strict, a random id
 * stored hashed); pages need the session; the session ends with sign-out (CSRF-protected), its expiry, or its key's
 * revocation; a cross-site form post is refused; every page answers a strict CSP; failed sign-ins count against the
 * failed-authentication limit.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { AGENT_API_FAILED_AUTH_PER_MINUTE: '5' } });
});
afterAll(async () => {
  await t?.close();
});

const url = (path: string) => new URL(path, t.url).toString();

async function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url(path), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}
const get = (path: string, cookie = '') => fetch(url(path), { redirect: 'manual', headers: cookie ? { cookie } : {} });

async function signIn(key: string) {
  const r = await post('/console/sign-in', { api_key: key });
  expect(r.status).toBe(303);
  expect(r.headers.get('location')).toBe('/console');
  const set = r.headers.get('set-cookie')!;
  expect(set).toMatch(/^agent_api_session=[A-Za-z0-9_-]{43};/);
  expect(set).toMatch(/HttpOnly/);
  expect(set).toMatch(/SameSite=Strict/);
  return { cookie: set.split(';')[0]!, raw: set };
}

const csrfOf = async (cookie: string) =>
  /name="csrf" value="([0-9a-f]{64})"/.exec(await (await get('/console', cookie)).text())![1]!;

describe('console sign-in', () => {
  it('the root and the console redirect to sign-in without a session; the sign-in page has a strict CSP', async () => {
    expect((await get('/')).headers.get('location')).toBe('/console');
    const r = await get('/console');
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/console/sign-in');
    const form = await get('/console/sign-in');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(form.headers.get('content-security-policy')).not.toContain('script-src');
    expect(await form.text()).toContain('name="api_key"');
  });

  it('a key signs in; the usage page shows both windows; the key is not in the cookie and the id is stored hashed', async () => {
    const { key } = await t.tenant('agency');
    const { cookie } = await signIn(key);
    expect(cookie).not.toContain(key);
    const page = await get('/console', cookie);
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('<h1>Usage</h1>');
    expect(body).toContain('24h');
    expect(body).toContain('7d');
    expect(body).toContain('agency');
    // Compressed for a browser that accepts it.
    const gz = await fetch(url('/console'), { headers: { cookie, 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toContain('<h1>Usage</h1>');
    const rows = await t.db.selectFrom('console_sessions').selectAll().execute();
    const id = cookie.split('=')[1]!;
    expect(rows.some((r) => r.id_hash === id)).toBe(false);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('a wrong key is 401 with a message; failed attempts count against the failed-authentication limit (429)', async () => {
    const wrong = await post('/console/sign-in', { api_key: 'aapi_not_a_key' }, { 'x-forwarded-for': '203.0.113.9' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('not a valid, active API key');
    let last = 0;
    for (let i = 0; i < 6; i++) last = (await post('/console/sign-in', { api_key: 'nope' })).status;
    expect(last).toBe(429);
    // A valid key still signs in from that address.
    const { key } = await t.tenant('agency');
    await signIn(key);
    t.clock.advance(61_000);
  });

  it('sign-out needs the CSRF token of the session; with it the session ends', async () => {
    const { key } = await t.tenant('agency');
    const { cookie } = await signIn(key);
    const refused = await post('/console/sign-out', { csrf: '0'.repeat(64) }, { cookie });
    expect(refused.status).toBe(403);
    expect((await get('/console', cookie)).status).toBe(200);
    const out = await post('/console/sign-out', { csrf: await csrfOf(cookie) }, { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/console/sign-in');
    expect((await get('/console', cookie)).headers.get('location')).toBe('/console/sign-in');
  });

  it('a cross-site form post is refused before it reaches the console', async () => {
    const { key } = await t.tenant('agency');
    const { cookie } = await signIn(key);
    const r = await post(
      '/console/sign-out',
      { csrf: await csrfOf(cookie) },
      { cookie, origin: 'https://evil.example' },
    );
    expect(r.status).toBe(403);
    expect((await get('/console', cookie)).status).toBe(200);
  });

  it('a session ends with its key (revoked) and with its expiry: back to sign-in', async () => {
    const { key, keyId } = await t.tenant('agency');
    const { cookie } = await signIn(key);
    await revokeApiKey(t.db, keyId, t.clock.now());
    expect((await get('/console', cookie)).headers.get('location')).toBe('/console/sign-in');

    const other = await t.tenant('agency');
    const second = await signIn(other.key);
    expect((await get('/console', second.cookie)).status).toBe(200);
    t.clock.advance(SESSION_TTL_MS + 1);
    expect((await get('/console', second.cookie)).headers.get('location')).toBe('/console/sign-in');
  });
});
