import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { consoleClient } from './helpers.ts';
import {
  createdJob,
  ESPRESSO,
  getAutopilot,
  getJob,
  listJobs,
  run,
  startContentApp,
  startedAutopilot,
  tenant,
  type Tenant,
} from '../content/helpers/harness.ts';

/**
 * The console's content pages: the list of content jobs and Autopilot runs; a job's page with its status (refreshing
 * itself while it works), its brief and the edit-and-approve forms at brief_ready, its draft (rendered by the
 * escaping draft renderer), review figures, score and export links once completed. Approving runs
 * approve_content_brief as the signed-in key; drafts are hostile input and come out escaped. The list's two forms
 * create a content job and start an Autopilot run (create_content_job, create_content_autopilot), each with the CSRF
 * token and an idempotency key made when the page is rendered.
 */
let t: TestApp;
let a: Tenant;
let edited: string;
let pasted: string;
let browser: Awaited<ReturnType<typeof consoleClient>>;

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t, 'agency', { name: 'Bean There Coffee', domain: 'beanthere.example' });
  const body = { topic: ESPRESSO, client_id: a.clientId, page_contract: 'article', mode: 'stepped' };
  edited = (await createdJob(t, a.key, { ...body, word_count_target: 400 })).job_id;
  pasted = (await createdJob(t, a.key, body)).job_id;
  await run(t);
  browser = await consoleClient(t, a.key);
});
afterAll(async () => {
  await t?.close();
});

const HEADINGS = ['Espresso machines under 500 dollars compared', 'How to pick an espresso machine', 'Daily upkeep'];

/** The H2s of the rendered draft on a job page (its own section), as text. */
const draftH2s = (page: string) => {
  const draft = /<div class="draft">([\s\S]*?)<!-- \/draft -->/.exec(page)?.[1] ?? '';
  return [...draft.matchAll(/<h2[^>]*>([\s\S]*?)<\/h2>/g)].map((m) => m[1]!.trim());
};

describe('console content pages', () => {
  it('the list shows both jobs with topic, kind and status, linking to each; filters narrow it', async () => {
    const page = await browser.get('/console/jobs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Content</h1>');
    expect(page.text).toContain(ESPRESSO);
    expect(page.text).toContain('brief_ready');
    expect(page.text).toContain(`href="/console/jobs/${edited}"`);
    expect(page.text).toContain(`href="/console/jobs/${pasted}"`);
    const autopilots = await browser.get('/console/jobs?kind=autopilot');
    expect(autopilots.status).toBe(200);
    expect(autopilots.text).not.toContain(`href="/console/jobs/${edited}"`);
    expect((await browser.get('/console/jobs?status=bogus')).status).toBe(400);
  });

  it('a job at brief_ready shows its brief and both approve forms with the CSRF token; no refresh', async () => {
    const page = await browser.get(`/console/jobs/${edited}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('brief_ready');
    expect(page.text).not.toContain('http-equiv="refresh"');
    expect(page.text).toMatch(/<h2[^>]*>Brief<\/h2>/);
    expect(page.text).toContain('name="headings"');
    expect(page.text).toContain('name="seo_title"');
    expect(page.text).toContain('name="meta_description"');
    expect(page.text).toContain('name="custom_instructions"');
    expect(page.text).toContain('name="draft_body"');
    const forms = page.text.match(new RegExp(`<form method="post" action="/console/jobs/${edited}/approve"`, 'g'));
    expect(forms).toHaveLength(2);
    const csrf = await browser.csrf();
    expect(page.text.split(`name="csrf" value="${csrf}"`).length - 1).toBe(3); // both forms and sign-out
  });

  it('approving with edited headings moves the job; completed, the draft follows them, with review, score and exports', async () => {
    const posted = await browser.post(`/console/jobs/${edited}/approve`, {
      headings: HEADINGS.join('\r\n'),
      seo_title: 'Espresso under 500',
      meta_description: 'Our picks.',
      custom_instructions: '',
    });
    expect(posted.status, posted.text).toBe(303);
    expect(posted.headers.get('location')).toBe(`/console/jobs/${edited}`);
    const working = await browser.get(`/console/jobs/${edited}`);
    expect(working.text).toContain('generating_draft');
    expect(working.text).toContain('<meta http-equiv="refresh" content="5" />');

    await run(t);
    const done = await browser.get(`/console/jobs/${edited}`);
    expect(done.status).toBe(200);
    expect(done.text).toContain('completed');
    expect(done.text).not.toContain('http-equiv="refresh"');
    expect(draftH2s(done.text)).toEqual(HEADINGS);
    expect(done.text).toContain('class="footnotes"');
    expect(done.text).toMatch(/Rankability score <strong>\d+(\.\d+)?<\/strong>/);
    expect(done.text).toContain(`href="/console/jobs/${edited}/export.md"`);
    expect(done.text).toContain(`href="/console/jobs/${edited}/export.html"`);

    const md = await browser.get(`/console/jobs/${edited}/export.md`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.headers.get('content-disposition')).toMatch(/^attachment; filename="[\w.-]+\.md"$/);
    expect(md.text).toContain(`## ${HEADINGS[0]}`);
    const doc = await browser.get(`/console/jobs/${edited}/export.html`);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(doc.headers.get('content-disposition')).toMatch(/^attachment; filename="[\w.-]+\.html"$/);
    expect(doc.text).toMatch(/^<!doctype html>/);
    expect(doc.text).toContain('<title>Espresso under 500</title>');

    // Approving again: the job is no longer at brief_ready.
    const again = await browser.post(`/console/jobs/${edited}/approve`, { draft_body: '# Again' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('invalid_state');
  });

  it('a POST without the CSRF token is 403 and changes nothing', async () => {
    const r = await browser.post(`/console/jobs/${pasted}/approve`, { draft_body: '# x' }, { csrf: null });
    expect(r.status).toBe(403);
    const wrong = await browser.post(
      `/console/jobs/${pasted}/approve`,
      { draft_body: '# x' },
      { csrf: '0'.repeat(64) },
    );
    expect(wrong.status).toBe(403);
    expect((await browser.get(`/console/jobs/${pasted}`)).text).toContain('name="draft_body"');
  });

  it('approving with a pasted hostile draft completes; the page shows it escaped, never as markup', async () => {
    const draft = [
      '# Espresso at home <script>alert(1)</script>',
      '',
      'A good espresso machine needs a stable boiler temperature. "><img src=x onerror=alert(1)>',
      '',
      '## Grinders',
      '',
      '<script>alert(1)</script>',
      '',
      'A burr grinder matters more than the machine.',
      '',
    ].join('\n');
    const posted = await browser.post(`/console/jobs/${pasted}/approve`, { draft_body: draft });
    expect(posted.status, posted.text).toBe(303);
    await run(t);
    const page = await browser.get(`/console/jobs/${pasted}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('completed');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).not.toMatch(/<img/i);
    expect(draftH2s(page.text)).toEqual(['Grinders']);
    // A supplied draft is fact-checked: the review's figures, the flagged claims escaped as well.
    expect(page.text).toMatch(/Claims checked<\/th>\s*<td>\d+<\/td>/);
    expect(page.text).toMatch(/Rankability score <strong>/);
  });

  it("another organisation's job is 404 to read, approve or export", async () => {
    const b = await tenant(t, 'agency');
    const other = await consoleClient(t, b.key);
    expect((await other.get(`/console/jobs/${edited}`)).status).toBe(404);
    expect((await other.get(`/console/jobs/${edited}/export.md`)).status).toBe(404);
    expect((await other.post(`/console/jobs/${pasted}/approve`, { draft_body: '# x' })).status).toBe(404);
    const list = await other.get('/console/jobs');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(edited);
  });

  it('an Autopilot run (last: nothing runs it) is listed by kind; its page shows its stage and refreshes itself', async () => {
    const autopilot = await startedAutopilot(t, a.key, {
      topic: ESPRESSO,
      client_id: a.clientId,
      page_contract: 'article',
    });
    const list = await browser.get('/console/jobs?kind=autopilot');
    expect(list.text).toContain(`href="/console/jobs/${autopilot.job_id}"`);
    expect(list.text).not.toContain(`href="/console/jobs/${edited}"`);
    const page = await browser.get(`/console/jobs/${autopilot.job_id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Autopilot run');
    expect(page.text).toMatch(/optimize passes 0 of\s+3/);
    expect(page.text).toContain('<meta http-equiv="refresh" content="5" />');
    expect(page.text).not.toContain('name="headings"');
  });

  it('without a session the pages send to sign-in', async () => {
    const r = await fetch(new URL('/console/jobs', t.url), { redirect: 'manual' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/console/sign-in');
  });
});

/** The create forms of the list page, on a tenant of their own (so its jobs can be counted) with a hostile name. */
describe('console content create forms', () => {
  const HOSTILE = 'Roasters <script>alert(1)</script> "><img src=x onerror=alert(2)>';
  let f: Tenant;
  let forms: Awaited<ReturnType<typeof consoleClient>>;

  beforeAll(async () => {
    f = await tenant(t, 'agency', { name: HOSTILE });
    forms = await consoleClient(t, f.key);
  });

  /** The jobs and runs of the forms' tenant, over REST. */
  const total = async () => {
    const r = await listJobs(t, f.key, { limit: 100 });
    expect(r.status, r.text).toBe(200);
    return r.body.pagination.total;
  };

  /** The HTML of the form posting to `action` on the list page. */
  const formOf = (page: string, action: string) =>
    new RegExp(`<form method="post" action="${action}"[^>]*>([\\s\\S]*?)</form>`).exec(page)?.[1] ?? '';

  /** The idempotency key a fresh list page gives the form posting to `action`. */
  const keyOf = async (action: string) => {
    const page = await forms.get('/console/jobs');
    return /name="idempotency_key" value="([0-9a-f-]{36})"/.exec(formOf(page.text, action))![1]!;
  };

  it('the list shows both forms with the CSRF token, an idempotency key, the clients escaped and a label per field', async () => {
    const page = await forms.get('/console/jobs');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<h2[^>]*>New content job<\/h2>/);
    expect(page.text).toMatch(/<h2[^>]*>New Autopilot run<\/h2>/);
    expect(page.text).not.toMatch(/<script|<img|style=/i);
    expect(page.text).toContain('Roasters &lt;script&gt;alert(1)&lt;/script&gt;');
    const csrf = await forms.csrf();
    const keys = new Set<string>();
    for (const [action, fields] of [
      [
        '/console/jobs',
        ['topic', 'client_id', 'page_contract', 'mode', 'word_count_target', 'tone', 'custom_instructions'],
      ],
      [
        '/console/autopilot',
        ['topic', 'client_id', 'page_contract', 'word_count_target', 'tone', 'custom_instructions'],
      ],
    ] as const) {
      const form = formOf(page.text, action);
      expect(form, action).toContain(`name="csrf" value="${csrf}"`);
      keys.add(/name="idempotency_key" value="([0-9a-f-]{36})"/.exec(form)![1]!);
      expect(form).toContain(`<option value="${f.clientId}"`);
      const named = [...form.matchAll(/<(input|select|textarea) id="([^"]+)" name="([^"]+)"/g)];
      expect(named.map((m) => m[3])).toEqual(fields);
      for (const m of named) expect(page.text, m[2]).toContain(`<label for="${m[2]}"`);
    }
    expect(keys.size).toBe(2);
    const ids = [...page.text.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the job form creates a stepped job with what was filled in and redirects to its page, which refreshes', async () => {
    const before = await total();
    const posted = await forms.post('/console/jobs', {
      idempotency_key: await keyOf('/console/jobs'),
      topic: ESPRESSO,
      client_id: f.clientId,
      page_contract: 'article',
      mode: 'stepped',
      word_count_target: '600',
      tone: 'friendly_simple',
      custom_instructions: 'Mention the grinder.\r\nKeep it short.',
    });
    expect(posted.status, posted.text).toBe(303);
    const id = /^\/console\/jobs\/([^/]+)$/.exec(posted.headers.get('location') ?? '')?.[1];
    expect(id).toBeTruthy();
    const job = await getJob(t, f.key, id!);
    expect(job.status, job.text).toBe(200);
    expect(job.body).toMatchObject({
      kind: 'job',
      mode: 'stepped',
      client_id: f.clientId,
      topic: ESPRESSO,
      page_contract: 'article',
      word_count_target: 600,
      tone: 'friendly_simple',
      custom_instructions: 'Mention the grinder.\nKeep it short.',
    });
    expect(await total()).toBe(before + 1);
    const page = await forms.get(`/console/jobs/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('content job (stepped)');
    expect(page.text).toContain('<meta http-equiv="refresh" content="5" />');
  });

  it('the Autopilot form starts a run; optional fields left empty are not sent (defaults apply)', async () => {
    const before = await total();
    const posted = await forms.post('/console/autopilot', {
      idempotency_key: await keyOf('/console/autopilot'),
      topic: ESPRESSO,
      client_id: f.clientId,
      page_contract: 'commercial_service',
      word_count_target: '  ',
      tone: '',
      custom_instructions: ' \r\n ',
    });
    expect(posted.status, posted.text).toBe(303);
    const id = /^\/console\/jobs\/([^/]+)$/.exec(posted.headers.get('location') ?? '')?.[1];
    const status = await getAutopilot(t, f.key, id!);
    expect(status.status, status.text).toBe(200);
    const job = await getJob(t, f.key, id!);
    expect(job.body).toMatchObject({
      kind: 'autopilot',
      topic: ESPRESSO,
      page_contract: 'commercial_service',
      word_count_target: 800,
      custom_instructions: null,
    });
    expect(await total()).toBe(before + 1);
    const page = await forms.get(`/console/jobs/${id}`);
    expect(page.text).toContain('Autopilot run');
    expect(page.text).toContain('<meta http-equiv="refresh" content="5" />');
  });

  it('the same form posted twice creates one job, and both answers lead to it', async () => {
    for (const action of ['/console/jobs', '/console/autopilot']) {
      const before = await total();
      const form = {
        idempotency_key: await keyOf(action),
        topic: `${ESPRESSO} twice`,
        client_id: f.clientId,
        page_contract: 'article',
      };
      const first = await forms.post(action, form);
      const second = await forms.post(action, form);
      expect(first.status, first.text).toBe(303);
      expect(second.status, second.text).toBe(303);
      expect(second.headers.get('location')).toBe(first.headers.get('location'));
      expect(await total(), action).toBe(before + 1);
    }
  });

  it('a POST without the CSRF token, or with a wrong one, is 403 and creates nothing', async () => {
    const before = await total();
    for (const action of ['/console/jobs', '/console/autopilot']) {
      const form = { topic: ESPRESSO, client_id: f.clientId, page_contract: 'article' };
      expect((await forms.post(action, form, { csrf: null })).status).toBe(403);
      expect((await forms.post(action, form, { csrf: '0'.repeat(64) })).status).toBe(403);
    }
    expect(await total()).toBe(before);
  });

  it('an empty topic or a bad word count shows the error and creates nothing; the form key is not spent', async () => {
    for (const action of ['/console/jobs', '/console/autopilot']) {
      const before = await total();
      const form = {
        idempotency_key: await keyOf(action),
        topic: ESPRESSO,
        client_id: f.clientId,
        page_contract: 'article',
      };
      const empty = await forms.post(action, { ...form, topic: '   ' });
      expect(empty.status, action).toBe(400);
      expect(empty.text).toContain('role="alert"');
      expect(empty.text).toMatch(/invalid_input: Invalid input: topic\./);
      for (const words of ['abc', '50', '12.5', '-300', '99999']) {
        const bad = await forms.post(action, { ...form, word_count_target: words });
        expect(bad.status, `${action} ${words}`).toBe(400);
        expect(bad.text).toMatch(/invalid_input: Invalid input: word_count_target\./);
      }
      expect(await total(), action).toBe(before);
      // Corrected and sent with the same form's key (twice): created once, as corrected.
      const fixed = await forms.post(action, { ...form, word_count_target: '700' });
      expect(fixed.status, fixed.text).toBe(303);
      const again = await forms.post(action, { ...form, word_count_target: '700' });
      expect(again.headers.get('location')).toBe(fixed.headers.get('location'));
      const id = /^\/console\/jobs\/([^/]+)$/.exec(fixed.headers.get('location') ?? '')?.[1];
      expect((await getJob(t, f.key, id!)).body.word_count_target).toBe(700);
      expect(await total(), action).toBe(before + 1);
    }
  });
});
