import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, HTTPResponse, Page } from 'puppeteer-core';
import { generateApiKey } from '../../src/engine/accounts/api-keys.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumPath, launchChromium } from '../helpers/browser.ts';
import { pkceAuthorizeUrl, pkcePair, randomState, registerPublicClient, tokenRequest } from '../helpers/oauth.ts';

/**
 * The OAuth consent page (docs/oauth.md "Authorization and consent") in a real browser (Debian's chromium), with its
 * Content-Security-Policy enforced: a public client registered with a hostile name is shown as text, the page passes
 * axe, and a person who types the API key and clicks Approve lands on the client's loopback callback (Chromium applies
 * `form-action` to the redirect that follows the form's POST, so this proves the policy allows the redirect URI), with
 * `code`, `state` and `iss`; the code exchanges for an `aat_` token. Deny (no key typed) goes back with
 * `error=access_denied`; a wrong key shows the page again with an alert and goes nowhere. No CSP violation is reported.
 */
const HOSTILE_NAME = '<img src=x onerror=alert(1)>Evil';
const SCOPE = 'optimize:read clients:write';

const browserPath = chromiumPath();
if (!browserPath)
  console.warn('\n*** SKIPPING the OAuth consent browser tests: no chromium binary (apt-get install chromium) ***\n');

/** The page's globals, as the test's evaluate callbacks see them (the test's own types have no DOM). */
interface PageGlobals {
  axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null }[] }> };
  document: {
    querySelector(selector: string): {
      textContent: string | null;
      innerText: string;
      checkVisibility(): boolean;
    } | null;
    body: { innerText: string };
  };
}

/** A loopback HTTP server standing in for the client's redirect URI: records each /callback query. */
interface CallbackServer {
  redirectUri: string;
  origin: string;
  /** The query of every request to /callback, in order. */
  hits: URLSearchParams[];
  close(): Promise<void>;
}

async function startCallbackServer(): Promise<CallbackServer> {
  const hits: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    hits.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      '<!doctype html><html lang="en"><head><title>Callback</title><link rel="icon" href="data:,"></head><body><p>Done.</p></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    redirectUri: `${origin}/callback`,
    origin,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!browserPath)('the OAuth consent page in a real browser', () => {
  let t: TestApp;
  let apiKey: string;
  let clientId: string;
  let cb: CallbackServer;
  let browser: Browser;
  const shots = mkdtempSync(join(tmpdir(), 'agent-api-oauth-consent-'));
  const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

  beforeAll(async () => {
    t = await startTestApp();
    apiKey = (await t.tenant()).key;
    cb = await startCallbackServer();
    clientId = (
      await registerPublicClient(
        t.url,
        { client_name: HOSTILE_NAME, token_endpoint_auth_method: 'none' },
        cb.redirectUri,
      )
    ).client_id;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cb?.close();
    await t?.close();
  });

  interface Consent {
    page: Page;
    verifier: string;
    state: string;
    /** The consent page's own response (its status and headers). */
    response: HTTPResponse;
    /** Console messages that name the Content Security Policy (any type), from the page's opening on. */
    csp: string[];
    /** Console errors, page errors and dialogs, from the page's opening on. */
    problems: string[];
  }

  /**
   * Opens a fresh authorization request's consent page in a new tab, with the page's CSP enforced (no bypass: the
   * policy is what is being tested), and fails unless it answers 200 with no CSP message while loading.
   */
  async function openConsent(): Promise<Consent> {
    const page = await browser.newPage();
    const csp: string[] = [];
    const problems: string[] = [];
    page.on('console', (m) => {
      if (/content security policy/i.test(m.text())) csp.push(`${m.type()}: ${m.text()}`);
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${String(e)}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    const { verifier, challenge } = pkcePair();
    const state = randomState();
    const url = pkceAuthorizeUrl(t.url, clientId, challenge, { redirectUri: cb.redirectUri, state, scope: SCOPE });
    const response = await page.goto(url.toString(), { waitUntil: 'load' });
    if (!response) throw new Error('the consent page gave no response');
    expect(response.status(), await response.text()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
    // Let any late report reach the console listener before checking that the load reported none.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    expect(csp, `CSP messages while loading (policy: ${response.headers()['content-security-policy']})`).toEqual([]);
    return { page, verifier, state, response, csp, problems };
  }

  /** axe-core on the page as it is, evaluated over DevTools (the page's CSP allows no script element). */
  async function axe(page: Page, shot: string): Promise<void> {
    await page.evaluate(axeSource);
    const { violations } = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).axe.run((globalThis as unknown as PageGlobals).document, {
        resultTypes: ['violations'],
      }),
    );
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    expect(serious, `${shot}: axe`).toEqual([]);
    await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
  }

  /**
   * Clicks `selector` as a person would and waits for the navigation it starts; answers the final response, or null
   * when none came (a redirect the CSP blocks starts no navigation: the caller's checks then say why, with the policy
   * and the console's message, instead of a bare timeout).
   */
  async function submit(page: Page, selector: string): Promise<HTTPResponse | null> {
    const [response] = await Promise.all([
      page.waitForNavigation({ waitUntil: 'load', timeout: 10_000 }).catch(() => null),
      page.click(selector),
    ]);
    // Let a blocked request's report reach the console listener.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return response;
  }

  /** Why a click did not land on the callback: where the browser is, the policy, and what the console said. */
  function diagnosis(c: Consent): string {
    return [
      `browser at: ${c.page.url()}`,
      `consent page CSP: ${c.response.headers()['content-security-policy']}`,
      `CSP console messages: ${JSON.stringify(c.csp)}`,
      `other problems: ${JSON.stringify(c.problems)}`,
    ].join('\n');
  }

  it('shows the hostile client name as text, the redirect host and the requested scopes; passes axe', async () => {
    const c = await openConsent();
    try {
      const csp = c.response.headers()['content-security-policy'] ?? '';
      expect(csp).toMatch(/form-action 'self' http:\/\/127\.0\.0\.1:\d+/);
      expect(csp).toContain(`form-action 'self' ${cb.origin}`);
      // The name is text: nothing was injected, and it is shown as typed.
      expect(
        await c.page.evaluate(() => (globalThis as unknown as PageGlobals).document.querySelector('main img')),
      ).toBe(null);
      const name = await c.page.evaluate(() => {
        const el = (globalThis as unknown as PageGlobals).document.querySelector('main p strong');
        return el ? { text: el.textContent, visible: el.checkVisibility() } : null;
      });
      expect(name).toEqual({ text: HOSTILE_NAME, visible: true });
      const h1 = await c.page.evaluate(
        () => (globalThis as unknown as PageGlobals).document.querySelector('main h1')?.innerText ?? '',
      );
      expect(h1).toBe(`Authorize ${HOSTILE_NAME}`);
      const text = await c.page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText);
      expect(text).toContain(new URL(cb.redirectUri).host);
      expect(text).toContain(clientId);
      expect(text).toContain('optimize:read: read Optimize results');
      expect(text).toContain("clients:write: create and change your organisation's clients");
      // Only what was asked for.
      expect(text).not.toContain('copywriter:run');
      await axe(c.page, 'consent');
      expect(c.problems).toEqual([]);
    } finally {
      await c.page.close();
    }
  }, 60_000);

  it('Approve with the API key typed in lands on the callback with code, state and iss; the code exchanges for a token', async () => {
    const c = await openConsent();
    try {
      const before = cb.hits.length;
      await c.page.type('#api_key', apiKey);
      const final = await submit(c.page, 'button[name=decision][value=approve]');
      expect(c.page.url().startsWith(cb.redirectUri), diagnosis(c)).toBe(true);
      expect(final?.status(), diagnosis(c)).toBe(200);
      expect(c.csp, diagnosis(c)).toEqual([]);
      expect(cb.hits.length, diagnosis(c)).toBe(before + 1);
      const q = cb.hits.at(-1)!;
      expect(q.get('error')).toBe(null);
      expect(q.get('code')).toMatch(/\S{16,}/);
      expect(q.get('state')).toBe(c.state);
      expect(q.get('iss')).toBe(t.url);
      // The address bar carries the same answer.
      expect(new URL(c.page.url()).searchParams.get('code')).toBe(q.get('code'));

      const token = await tokenRequest(t.url, {
        grant_type: 'authorization_code',
        code: q.get('code')!,
        redirect_uri: cb.redirectUri,
        client_id: clientId,
        code_verifier: c.verifier,
        resource: `${t.url}/mcp`,
      });
      expect(token.status, token.text).toBe(200);
      expect(token.body.access_token).toMatch(/^aat_/);
      expect(token.body.token_type?.toLowerCase()).toBe('bearer');
      expect(token.body.scope?.split(' ').sort()).toEqual(['clients:write', 'optimize:read']);
      expect(c.problems).toEqual([]);
    } finally {
      await c.page.close();
    }
  }, 60_000);

  it('Deny without typing a key (the key field is required; Deny skips validation) goes back with access_denied and the state', async () => {
    const c = await openConsent();
    try {
      expect(await c.page.$eval('#api_key', (el) => el.hasAttribute('required'))).toBe(true);
      expect(await c.page.$eval('button[value=deny]', (el) => el.hasAttribute('formnovalidate'))).toBe(true);
      const before = cb.hits.length;
      const final = await submit(c.page, 'button[name=decision][value=deny]');
      expect(c.page.url().startsWith(cb.redirectUri), diagnosis(c)).toBe(true);
      expect(final?.status(), diagnosis(c)).toBe(200);
      expect(c.csp, diagnosis(c)).toEqual([]);
      expect(cb.hits.length).toBe(before + 1);
      const q = cb.hits.at(-1)!;
      expect(q.get('error')).toBe('access_denied');
      expect(q.get('code')).toBe(null);
      expect(q.get('state')).toBe(c.state);
      expect(q.get('iss')).toBe(t.url);
      expect(c.problems).toEqual([]);
    } finally {
      await c.page.close();
    }
  }, 60_000);

  it('Approve with a wrong key shows the consent page again with an alert, and nothing reaches the callback', async () => {
    const c = await openConsent();
    try {
      const before = cb.hits.length;
      // Well formed, never issued: it reaches the key lookup, as a mistyped or revoked key does.
      await c.page.type('#api_key', generateApiKey());
      const final = await submit(c.page, 'button[name=decision][value=approve]');
      expect(final?.status()).toBe(401);
      expect(new URL(c.page.url()).origin).toBe(t.url);
      expect(new URL(c.page.url()).pathname).toBe('/oauth/authorize');
      const alert = await c.page.evaluate(
        () => (globalThis as unknown as PageGlobals).document.querySelector('[role=alert]')?.innerText ?? null,
      );
      expect(alert).toBe('That is not a valid, active API key.');
      expect(cb.hits.length).toBe(before);
      // The page again, still able to go on: the form, its key field empty, with the same request.
      expect(await c.page.$eval('#api_key', (el) => (el as unknown as { value: string }).value)).toBe('');
      expect(await c.page.$eval('input[name=state]', (el) => (el as unknown as { value: string }).value)).toBe(c.state);
      expect(c.csp).toEqual([]);
      await axe(c.page, 'consent-wrong-key');
      // The console's 401 for the form's POST is the one error Chromium reports for this page.
      expect(c.problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
    } finally {
      await c.page.close();
    }
  }, 60_000);
});
