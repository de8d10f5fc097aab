/**
 * The web console at `/` (docs/console.md): sign in with an API key, then pages over the same operations as REST
 * and MCP (scopes, rate limits, organisation checks: every read goes through `invokeOperation`). Sessions are
 * HttpOnly, SameSite=Strict cookies (Secure over TLS) holding a random id; every form that changes something carries
 * the session's CSRF token; every page answers a strict Content-Security-Policy (no script at all).
 */
import type { Context, Hono } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { compress } from 'hono/compress';
import { html } from 'hono/html';
import { ApiError } from '../../../errors.ts';
import { isWellFormedApiKey } from '../../../engine/accounts/api-keys.ts';
import { endConsoleSession, SESSION_TTL_MS, startConsoleSession } from '../../../engine/accounts/console-sessions.ts';
import type { Engine } from '../../../engine/engine.ts';
import type { AnyOperation } from '../../../tools/define.ts';
import type { HttpEnv } from '../guards.ts';
import type { FailedAuthLimiter } from '../request-auth.ts';
import { createKit, SESSION_COOKIE } from './kit.ts';
import { CONSOLE_CSS, page } from './layout.ts';
import { PAGES } from './pages/index.ts';

export { SESSION_COOKIE };

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // Not no-referrer: with it a browser sends `Origin: null` on form posts, which the Origin guard refuses.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function mountConsole(
  app: Hono<HttpEnv>,
  deps: { engine: Engine; operations: readonly AnyOperation[]; failedAuth: FailedAuthLimiter },
): void {
  const { engine } = deps;
  const kit = createKit(deps);

  app.use('/console/*', async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
  });
  // Pages are compressed for a browser that accepts it (a 90-day tracker page is 156 KB of HTML, 9 KB gzipped).
  app.use('/console/*', compress());
  app.use('/console', compress());
  app.use('/console', async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
  });

  const secure = (c: Context<HttpEnv>) => new URL(c.req.url).protocol === 'https:';

  const signInPage = (message: string | null) =>
    page(
      'Sign in',
      html`<h1>Sign in</h1>
        <p class="muted">
          Paste an API key (from <code>npm start</code> or <code>agent-api keys create</code>). It is exchanged for a
          session; the key itself is not kept in the browser.
        </p>
        ${message ? html`<p class="error" role="alert">${message}</p>` : ''}
        <form method="post" action="/console/sign-in">
          <label for="api_key">API key</label>
          <input id="api_key" name="api_key" type="password" autocomplete="off" required />
          <button type="submit">Sign in</button>
        </form>`,
    );
  const signIn = (c: Context<HttpEnv>, message: string | null, status: 200 | 401 | 429 = 200) =>
    c.html(signInPage(message) as Parameters<typeof c.html>[0], status);

  app.get('/', (c) => c.redirect('/console', 303));
  app.get('/console/assets/console.css', (c) =>
    c.body(CONSOLE_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }),
  );
  app.get('/console/sign-in', (c) => signIn(c, null));

  app.post('/console/sign-in', async (c) => {
    const address = deps.failedAuth.clientOf(c);
    const body = await c.req.parseBody();
    const key = typeof body.api_key === 'string' ? body.api_key.trim() : '';
    // As for the API: a key that matches always signs in; a malformed one from an address over its allowance is
    // refused without a database read.
    if (!isWellFormedApiKey(key) && !(await deps.failedAuth.allows(address)))
      return signIn(c, 'Too many failed attempts; wait a minute.', 429);
    try {
      const started = await startConsoleSession(engine.db, engine.clock, key);
      setCookie(c, SESSION_COOKIE, started.id, {
        httpOnly: true,
        sameSite: 'Strict',
        secure: secure(c),
        path: '/',
        maxAge: Math.floor(SESSION_TTL_MS / 1000),
      });
      return c.redirect('/console', 303);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'unauthorized')) throw err;
      const refused = await deps.failedAuth.fail(address, err);
      return refused.code === 'rate_limit_exceeded'
        ? signIn(c, 'Too many failed attempts; wait a minute.', 429)
        : signIn(c, 'That is not a valid, active API key.', 401);
    }
  });

  app.post('/console/sign-out', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    if (!(await kit.form(c, s))) return kit.refused(c, s);
    await endConsoleSession(engine.db, s.id);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/console/sign-in', 303);
  });

  for (const register of PAGES) register(app, kit);
}
