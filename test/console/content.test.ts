import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { consoleClient } from './helpers.ts';
import {
  createdJob,
  ESPRESSO,
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
 * approve_content_brief as the signed-in key; drafts are hostile input and come out escaped.
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
