/**
 * The web console at `/` (docs/console.md): sign in with an API key, then pages over the same operations as REST
 * and MCP (scopes, rate limits, organisation checks: every read goes through `invokeOperation`). Sessions are
 * HttpOnly, SameSite=Strict cookies (Secure over TLS) holding a random id; every form that changes something carries
 * the session's CSRF token; every page answers a strict Content-Security-Policy (no script at all).
 */
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { ApiError, toApiError } from '../../../errors.ts';
import type { Principal } from '../../../engine/auth.ts';
import { isWellFormedApiKey } from '../../../engine/api-keys.ts';
import {
  consolePrincipal,
  csrfToken,
  endConsoleSession,
  SESSION_TTL_MS,
  startConsoleSession,
  validCsrf,
} from '../../../engine/console-sessions.ts';
import type { Engine } from '../../../engine/engine.ts';
import type { AnyOperation } from '../../../tools/define.ts';
import { invokeOperation, takeRateLimit } from '../../../tools/invoke.ts';
import type { HttpEnv } from '../guards.ts';
import type { FailedAuthLimiter } from '../request-auth.ts';
import { CONSOLE_CSS, page, type Html } from './layout.ts';

export const SESSION_COOKIE = 'agent_api_session';

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** One window of get_usage's answer. */
interface UsageWindow {
  limit: number;
  used: number;
  reserved: number;
  remaining_percent: number;
  recovers_at: string | null;
}

export function mountConsole(
  app: Hono<HttpEnv>,
  deps: { engine: Engine; operations: readonly AnyOperation[]; failedAuth: FailedAuthLimiter },
): void {
  const { engine } = deps;
  const op = (name: string) => deps.operations.find((o) => o.name === name)!;

  app.use('/console/*', async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
  });

  const secure = (c: Context<HttpEnv>) => new URL(c.req.url).protocol === 'https:';
  const render = (c: Context<HttpEnv>, body: Html, status: 200 | 400 | 401 | 403 | 429 = 200) =>
    c.html(body as Parameters<typeof c.html>[0], status);

  /** The signed-in session of a request, or null (no cookie, ended, expired, or its key revoked). */
  async function session(c: Context<HttpEnv>): Promise<{ id: string; principal: Principal } | null> {
    const id = getCookie(c, SESSION_COOKIE);
    try {
      return { id: id!, principal: await consolePrincipal(engine.db, engine.clock, id) };
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unauthorized') return null;
      throw err;
    }
  }

  /** Runs one operation as the session's key, with the rate limit and checks REST applies. */
  async function run(principal: Principal, name: string, input: Record<string, unknown>) {
    takeRateLimit(engine.services, principal);
    const result = await invokeOperation(engine, op(name), {
      principal,
      input,
      idempotencyKeys: null,
      requestId: randomUUID(),
    });
    return result.body;
  }

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

  app.get('/', (c) => c.redirect('/console', 303));
  app.get('/console/assets/console.css', (c) =>
    c.body(CONSOLE_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }),
  );
  app.get('/console/sign-in', (c) => render(c, signInPage(null)));

  app.post('/console/sign-in', async (c) => {
    const address = deps.failedAuth.clientOf(c);
    const form = await c.req.parseBody();
    const key = typeof form.api_key === 'string' ? form.api_key.trim() : '';
    // As for the API: a key that matches always signs in; a malformed one from an address over its allowance is
    // refused without a database read.
    if (!isWellFormedApiKey(key) && !deps.failedAuth.allows(address))
      return render(c, signInPage('Too many failed attempts; wait a minute.'), 429);
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
      const refused = deps.failedAuth.fail(address, err);
      return refused.code === 'rate_limit_exceeded'
        ? render(c, signInPage('Too many failed attempts; wait a minute.'), 429)
        : render(c, signInPage('That is not a valid, active API key.'), 401);
    }
  });

  app.post('/console/sign-out', async (c) => {
    const s = await session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await c.req.parseBody();
    if (!validCsrf(s.id, form.csrf))
      return render(c, page('Refused', html`<p class="error">The form is stale; reload the page.</p>`), 403);
    await endConsoleSession(engine.db, s.id);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/console/sign-in', 303);
  });

  app.get('/console', async (c) => {
    const s = await session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    let usage: { plan: string; rate_limit_per_minute: number; windows: Record<string, UsageWindow> };
    try {
      usage = (await run(s.principal, 'get_usage', {})) as typeof usage;
    } catch (err) {
      const e = toApiError(err);
      return render(
        c,
        page('Usage', html`<p class="error" role="alert">${e.code}: ${e.message}</p>`, { csrf: csrfToken(s.id) }),
        400,
      );
    }
    const rows = Object.entries(usage.windows).map(
      ([name, w]) =>
        html`<tr>
          <th scope="row">${name}</th>
          <td>${w.used}</td>
          <td>${w.reserved}</td>
          <td>${w.limit}</td>
          <td>${w.remaining_percent}%</td>
          <td>${w.recovers_at ?? '–'}</td>
        </tr>`,
    );
    return render(
      c,
      page(
        'Usage',
        html`<h1>Usage</h1>
          <p>Plan <strong>${usage.plan}</strong>, ${usage.rate_limit_per_minute} requests a minute per key.</p>
          <table>
            <caption class="muted">
              Units in each pooled window
            </caption>
            <thead>
              <tr>
                <th scope="col">window</th>
                <th scope="col">charged</th>
                <th scope="col">reserved</th>
                <th scope="col">limit</th>
                <th scope="col">free</th>
                <th scope="col">room again at</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`,
        { csrf: csrfToken(s.id) },
      ),
    );
  });
}
