import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';

/**
 * A browser-like client of the web console for the page tests: signs in with a key, keeps the session cookie, reads
 * pages and posts forms (with the page's CSRF token). Redirects are not followed, so tests see them.
 */
export async function consoleClient(t: TestApp, key: string) {
  const url = (path: string) => new URL(path, t.url).toString();
  const signIn = await fetch(url('/console/sign-in'), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ api_key: key }).toString(),
  });
  expect(signIn.status).toBe(303);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;

  async function get(path: string) {
    const r = await fetch(url(path), { redirect: 'manual', headers: { cookie } });
    return { status: r.status, headers: r.headers, text: await r.text() };
  }

  /** The CSRF token of the session (every signed-in page carries it in the sign-out form). */
  async function csrf(): Promise<string> {
    const page = await get('/console');
    return /name="csrf" value="([0-9a-f]{64})"/.exec(page.text)![1]!;
  }

  /** Posts a form; the session's CSRF token is added unless `csrf` is given (null: sent without one). */
  async function post(path: string, form: Record<string, string>, opts: { csrf?: string | null } = {}) {
    const token = opts.csrf === undefined ? await csrf() : opts.csrf;
    const body = new URLSearchParams({ ...form, ...(token === null ? {} : { csrf: token }) });
    const r = await fetch(url(path), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    return { status: r.status, headers: r.headers, text: await r.text() };
  }

  return { cookie, get, post, csrf };
}
