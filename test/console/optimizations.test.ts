import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { idem, RAPIDFLOW_EMERGENCY, run, startContentApp, tenant, type Tenant } from '../content/helpers/harness.ts';
import { consoleClient } from './helpers.ts';

/**
 * The console's Optimize pages: the list with its filters, a report (score, category bars, recommendations by
 * points, terms, competitors and the excluded ones), a queued one refreshing itself, the score_content editor
 * (CSRF-checked), another organisation's report as 404, and hostile titles and drafts always escaped. The list's
 * "Optimize a page" form starts an optimization (start_optimization) with the CSRF token and an idempotency key made
 * when the page is rendered.
 */
let t: TestApp;
let key: string;
let otherKey: string;
let id: string;
let queuedId: string;
let full: Full;

interface Full {
  keyword: string;
  result: {
    rankabilityScore: number;
    categoryScores: Record<string, number>;
    recommendations: { recommendation: string; points: number }[];
    entities: { term: string }[];
    competitors: { url: string; title: string }[];
    excluded_competitors: { url: string; reason: string }[];
  };
}

const HOSTILE_SCRIPT = '<script>alert(1)</script>';
const HOSTILE_ATTR = '"><img src=x onerror=alert(1)>';

/** What hono/html makes of a value. */
const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

async function optimize(apiKey: string) {
  const r = await t.request<{ optimization_id: string }>('POST', '/optimize', {
    key: apiKey,
    body: { url: RAPIDFLOW_EMERGENCY, keyword: 'emergency plumber austin' },
    headers: { 'idempotency-key': idem('console-opt'), connection: 'close' },
  });
  expect(r.status).toBe(202);
  return r.body.optimization_id;
}

beforeAll(async () => {
  t = await startContentApp();
  key = (await t.tenant('agency')).key;
  otherKey = (await t.tenant('agency')).key;
  id = await optimize(key);
  await run(t);
  // Created after the run: stays queued (the runner is held).
  queuedId = await optimize(key);
  const r = await t.request<Full>('GET', `/optimizations/${id}`, { key, query: { view: 'full' } });
  expect(r.body).toMatchObject({ status: 'complete' });
  full = r.body;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('console optimizations', () => {
  it('lists the organisation’s optimizations, linking each report; filters by status', async () => {
    const c = await consoleClient(t, key);
    const all = await c.get('/console/optimizations');
    expect(all.status).toBe(200);
    expect(all.text).toContain(`href="/console/optimizations/${id}"`);
    expect(all.text).toContain(`href="/console/optimizations/${queuedId}"`);
    expect(all.text).toContain('emergency plumber austin');
    expect(all.text).toContain(esc(RAPIDFLOW_EMERGENCY));
    expect(all.text).toContain(String(Math.round(full.result.rankabilityScore * 10) / 10));
    expect(all.text).toContain('name="status"');

    const queued = await c.get('/console/optimizations?status=queued&client_id=&limit=10');
    expect(queued.status).toBe(200);
    expect(queued.text).toContain(`/console/optimizations/${queuedId}"`);
    expect(queued.text).not.toContain(`/console/optimizations/${id}"`);

    expect((await c.get('/console/optimizations?limit=500')).status).toBe(400);
    // Another organisation sees none of them.
    const other = await (await consoleClient(t, otherKey)).get('/console/optimizations');
    expect(other.status).toBe(200);
    expect(other.text).not.toContain(id);
  });

  it('a report shows the score, category bars, recommendations by points, terms and competitors', async () => {
    const c = await consoleClient(t, key);
    const r = await c.get(`/console/optimizations/${id}`);
    expect(r.status).toBe(200);
    const page = r.text;
    expect(page).toContain(String(Math.round(full.result.rankabilityScore * 10) / 10));
    for (const [category, percent] of Object.entries(full.result.categoryScores)) {
      expect(page).toContain(esc(category));
      expect(page).toContain(`<meter min="0" max="100" value="${Math.round(percent)}"`);
    }
    const recs = [...full.result.recommendations].sort((a, b) => b.points - a.points);
    expect(recs.length).toBeGreaterThan(0);
    const at = recs.map((x) => page.indexOf(esc(x.recommendation)));
    expect(at.every((i) => i > 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(page).toContain(esc(full.result.entities[0]!.term));
    for (const comp of full.result.competitors) expect(page).toContain(esc(comp.url));
    for (const ex of full.result.excluded_competitors ?? []) expect(page).toContain(esc(ex.reason));
    expect(page).not.toContain('http-equiv="refresh"');
    expect(page).not.toMatch(/ style=|<script/i);
    // The editor: a textarea, the format and the CSRF token.
    expect(page).toContain(`action="/console/optimizations/${id}/score"`);
    expect(page).toContain('<textarea');
    expect(page).toContain('name="content"');
    expect(page).toContain('name="format"');
    expect(page).toContain(`name="csrf" value="${await c.csrf()}"`);
  });

  it('a queued optimization shows its status and refreshes itself', async () => {
    const c = await consoleClient(t, key);
    const r = await c.get(`/console/optimizations/${queuedId}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('queued');
    expect(r.text).toContain('<meta http-equiv="refresh" content="5"');
    expect(r.text).not.toContain('<textarea');
    // Scoring against it is not possible yet.
    expect((await c.post(`/console/optimizations/${queuedId}/score`, { content: 'x', format: 'text' })).status).toBe(
      409,
    );
  });

  it('the editor scores a draft and shows its score and recommendations; bad input is a 400 page', async () => {
    const c = await consoleClient(t, key);
    const draft = [
      '# Emergency plumber in Austin',
      '',
      'Our emergency plumber team in Austin fixes burst pipes, leaks and clogged drains around the clock.',
      '',
      '## Call us any time',
      '',
      'A licensed plumber answers 24/7 and arrives fast.',
    ].join('\n');
    const r = await c.post(`/console/optimizations/${id}/score`, { content: draft, format: 'markdown' });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/Draft score/);
    expect(r.text).toMatch(/<strong>\d+(\.\d)?<\/strong> \/ 100/);
    expect(r.text).toContain('<meter');
    expect(r.text).toContain('Recommendations');
    // The draft stays in the editor for the next pass.
    expect(r.text).toContain(esc(draft));

    const empty = await c.post(`/console/optimizations/${id}/score`, { content: '', format: 'markdown' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('validation_error');
    const badFormat = await c.post(`/console/optimizations/${id}/score`, { content: 'x', format: 'pdf' });
    expect(badFormat.status).toBe(400);
  });

  it('a score post without (or with a wrong) CSRF token is 403', async () => {
    const c = await consoleClient(t, key);
    const path = `/console/optimizations/${id}/score`;
    expect((await c.post(path, { content: 'x', format: 'text' }, { csrf: null })).status).toBe(403);
    expect((await c.post(path, { content: 'x', format: 'text' }, { csrf: '0'.repeat(64) })).status).toBe(403);
  });

  it('another organisation’s report and editor are 404; so is an unknown id', async () => {
    const c = await consoleClient(t, otherKey);
    expect((await c.get(`/console/optimizations/${id}`)).status).toBe(404);
    expect((await c.post(`/console/optimizations/${id}/score`, { content: 'x', format: 'text' })).status).toBe(404);
    expect((await c.get('/console/optimizations/opt_00000000000000000000000000')).status).toBe(404);
  });

  it('hostile drafts, titles and keywords are shown escaped, never raw', async () => {
    const c = await consoleClient(t, key);
    const scored = await c.post(`/console/optimizations/${id}/score`, {
      content: `# Plumber ${HOSTILE_SCRIPT}\n\nText ${HOSTILE_ATTR}`,
      format: 'markdown',
      title: `Title ${HOSTILE_ATTR}`,
    });
    expect(scored.status).toBe(200);
    expect(scored.text).toContain(esc(HOSTILE_SCRIPT));
    expect(scored.text).toContain(esc(`Title ${HOSTILE_ATTR}`));

    // A competitor's title and the keyword, as a crawl could have stored them.
    const row = await t.db.selectFrom('optimizations').select('result').where('id', '=', id).executeTakeFirstOrThrow();
    const result = JSON.parse(row.result!) as Full['result'];
    result.competitors[0]!.title = `Best ${HOSTILE_SCRIPT} ${HOSTILE_ATTR}`;
    await t.db
      .updateTable('optimizations')
      .set({ result: JSON.stringify(result), keyword: `plumber ${HOSTILE_ATTR}` })
      .where('id', '=', id)
      .execute();
    const report = await c.get(`/console/optimizations/${id}`);
    expect(report.status).toBe(200);
    expect(report.text).toContain(esc(`Best ${HOSTILE_SCRIPT} ${HOSTILE_ATTR}`));
    const list = await c.get('/console/optimizations');
    expect(list.text).toContain(esc(`plumber ${HOSTILE_ATTR}`));

    for (const page of [scored.text, report.text, list.text]) {
      expect(page).not.toContain(HOSTILE_SCRIPT);
      expect(page).not.toContain(HOSTILE_ATTR);
      expect(page).not.toMatch(/<script|<img/i);
    }
  });
});

/** The list's "Optimize a page" form, on a tenant of its own (so its optimizations can be counted) with a hostile client. */
describe('console optimization start form', () => {
  const HOSTILE_CLIENT = `Pipes ${HOSTILE_SCRIPT} ${HOSTILE_ATTR}`;
  let f: Tenant;
  let c: Awaited<ReturnType<typeof consoleClient>>;

  beforeAll(async () => {
    f = await tenant(t, 'agency', { name: HOSTILE_CLIENT });
    c = await consoleClient(t, f.key);
  });

  /** The tenant's optimizations, over REST. */
  const total = async () => {
    const r = await t.request<{ pagination: { total: number } }>('GET', '/optimizations', {
      key: f.key,
      query: { limit: 100 },
    });
    expect(r.status).toBe(200);
    return r.body.pagination.total;
  };

  /** The HTML of the start form on a list page. */
  const formOf = (page: string) =>
    /<form method="post" action="\/console\/optimizations"[^>]*>([\s\S]*?)<\/form>/.exec(page)?.[1] ?? '';

  /** The idempotency key a fresh list page gives the start form. */
  const keyOf = async () => {
    const page = await c.get('/console/optimizations');
    return /name="idempotency_key" value="([0-9a-f-]{36})"/.exec(formOf(page.text))![1]!;
  };

  const reportId = (location: string | null) => /^\/console\/optimizations\/([^/]+)$/.exec(location ?? '')?.[1];

  it('the list shows the form with the CSRF token, an idempotency key, the clients escaped and a label per field', async () => {
    const page = await c.get('/console/optimizations');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<h2[^>]*>Optimize a page<\/h2>/);
    const form = formOf(page.text);
    expect(form).toContain(`name="csrf" value="${await c.csrf()}"`);
    expect(form).toMatch(/name="idempotency_key" value="[0-9a-f-]{36}"/);
    expect(form).toContain(`<option value="${f.clientId}"`);
    expect(form).toContain(esc(HOSTILE_CLIENT));
    const named = [...form.matchAll(/<(input|select|textarea) id="([^"]+)" name="([^"]+)"/g)];
    expect(named.map((m) => m[3])).toEqual(['url', 'keyword', 'client_id', 'language']);
    for (const m of named) expect(page.text, m[2]).toContain(`<label for="${m[2]}"`);
    const ids = [...page.text.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(page.text).not.toContain(HOSTILE_SCRIPT);
    expect(page.text).not.toContain(HOSTILE_ATTR);
    expect(page.text).not.toMatch(/ style=|<script|<img/i);
    // Each rendering has a key of its own.
    expect(await keyOf()).not.toBe(await keyOf());
  });

  it('posting the form starts an optimization and redirects to its report, which refreshes while it runs', async () => {
    const before = await total();
    const posted = await c.post('/console/optimizations', {
      idempotency_key: await keyOf(),
      url: RAPIDFLOW_EMERGENCY,
      keyword: 'emergency plumber round rock',
      client_id: f.clientId,
      language: 'en-GB',
    });
    expect(posted.status, posted.text).toBe(303);
    const newId = reportId(posted.headers.get('location'));
    expect(newId).toBeTruthy();
    const rest = await t.request<Record<string, unknown>>('GET', `/optimizations/${newId}`, { key: f.key });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({
      optimization_id: newId,
      url: RAPIDFLOW_EMERGENCY,
      keyword: 'emergency plumber round rock',
      client_id: f.clientId,
      language: 'en-GB',
      status: 'queued',
    });
    expect(await total()).toBe(before + 1);
    const report = await c.get(posted.headers.get('location')!);
    expect(report.status).toBe(200);
    expect(report.text).toContain('emergency plumber round rock');
    expect(report.text).toContain('<meta http-equiv="refresh" content="5"');
  });

  it('optional fields left empty are not sent: no client, language en-US', async () => {
    const posted = await c.post('/console/optimizations', {
      idempotency_key: await keyOf(),
      url: RAPIDFLOW_EMERGENCY,
      keyword: 'plumber no client',
      client_id: '',
      language: '  ',
    });
    expect(posted.status, posted.text).toBe(303);
    const rest = await t.request<Record<string, unknown>>(
      'GET',
      `/optimizations/${reportId(posted.headers.get('location'))}`,
      {
        key: f.key,
      },
    );
    expect(rest.body).toMatchObject({ keyword: 'plumber no client', client_id: null, language: 'en-US' });
  });

  it('the same form posted twice starts one optimization, and both answers lead to it', async () => {
    const before = await total();
    const form = { idempotency_key: await keyOf(), url: RAPIDFLOW_EMERGENCY, keyword: 'plumber twice', client_id: '' };
    const first = await c.post('/console/optimizations', form);
    const second = await c.post('/console/optimizations', form);
    expect(first.status, first.text).toBe(303);
    expect(second.status, second.text).toBe(303);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(await total()).toBe(before + 1);
  });

  it('a POST without the CSRF token, or with a wrong one, is 403 and starts nothing', async () => {
    const before = await total();
    const form = { idempotency_key: await keyOf(), url: RAPIDFLOW_EMERGENCY, keyword: 'plumber no csrf' };
    expect((await c.post('/console/optimizations', form, { csrf: null })).status).toBe(403);
    expect((await c.post('/console/optimizations', form, { csrf: '0'.repeat(64) })).status).toBe(403);
    expect(await total()).toBe(before);
  });

  it('an invalid url shows the error and starts nothing; the form key is not spent', async () => {
    const before = await total();
    const form = { idempotency_key: await keyOf(), keyword: 'plumber bad url' };
    for (const url of ['http://127.0.0.1/', 'not a url', 'ftp://example.com/x']) {
      const bad = await c.post('/console/optimizations', { ...form, url });
      expect(bad.status, url).toBe(400);
      expect(bad.text).toContain('role="alert"');
      expect(bad.text).toContain('<strong>url</strong>');
    }
    const emptyKeyword = await c.post('/console/optimizations', { ...form, url: RAPIDFLOW_EMERGENCY, keyword: ' ' });
    expect(emptyKeyword.status).toBe(400);
    expect(emptyKeyword.text).toContain('<strong>keyword</strong>');
    expect(await total()).toBe(before);
    // Corrected and sent with the same form's key: started once, as corrected.
    const fixed = await c.post('/console/optimizations', { ...form, url: RAPIDFLOW_EMERGENCY });
    expect(fixed.status, fixed.text).toBe(303);
    const rest = await t.request<Record<string, unknown>>(
      'GET',
      `/optimizations/${reportId(fixed.headers.get('location'))}`,
      {
        key: f.key,
      },
    );
    expect(rest.body).toMatchObject({ url: RAPIDFLOW_EMERGENCY, keyword: 'plumber bad url' });
    expect(await total()).toBe(before + 1);
  });

  it('another organisation’s client is refused and starts nothing', async () => {
    const before = await total();
    const other = await tenant(t, 'agency');
    const r = await c.post('/console/optimizations', {
      idempotency_key: await keyOf(),
      url: RAPIDFLOW_EMERGENCY,
      keyword: 'plumber other client',
      client_id: other.clientId,
    });
    expect(r.status).toBe(404);
    expect(r.text).toContain('role="alert"');
    expect(await total()).toBe(before);
  });

  it('without a session the form post sends to sign-in and starts nothing', async () => {
    const before = await total();
    const r = await fetch(new URL('/console/optimizations', t.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url: RAPIDFLOW_EMERGENCY, keyword: 'plumber signed out' }).toString(),
    });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/console/sign-in');
    expect(await total()).toBe(before);
  });
});
