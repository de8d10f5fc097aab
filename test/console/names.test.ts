import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import {
  ASYNCIO,
  createdJob,
  ESPRESSO,
  idem,
  RAPIDFLOW_EMERGENCY,
  run,
  startContentApp,
  startedAutopilot,
  tenant,
  type Tenant,
} from '../content/helpers/harness.ts';
import { project } from '../tracker/fixture.ts';
import { consoleClient } from './helpers.ts';

/**
 * The console speaks names: clients, content jobs, Autopilot runs and optimizations are shown by name, topic or
 * keyword, their ids only in links, filter values and a read-only field to copy; every list that filters by client
 * offers the organisation's clients by name in a `<select>`; job lists show the score when there is one. A client
 * name is hostile input and comes out escaped wherever it is shown.
 */
const HOSTILE = 'Hill Country <script>alert(1)</script> "><img src=x onerror=alert(2)>';
const BEAN = 'Bean There Coffee';

/** What hono/html makes of a value. */
const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** A page's text as a reader sees it: no tags, so no attribute (href, option value, copy field) counts. */
const textOf = (page: string) => page.replace(/<[^>]*>/g, ' ');

/** The table row (`<tr>…</tr>`) that links to `href`. */
function rowOf(page: string, href: string): string {
  const at = page.indexOf(`href="${href}"`);
  expect(at, href).toBeGreaterThan(-1);
  return page.slice(page.lastIndexOf('<tr', at), page.indexOf('</tr>', at));
}

/** The cells of a table row, as text. */
const cells = (row: string) => [...row.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((m) => textOf(m[1]!).trim());

/** The `<select name="client_id">` of the page's GET filter form, with its options (value, label, selected). */
function clientFilter(page: string, action: string) {
  const form = /<form method="get" action="([^"]*)">([\s\S]*?)<\/form>/.exec(page);
  expect(form?.[1]).toBe(action);
  const select = /<select id="([^"]*)" name="client_id">([\s\S]*?)<\/select>/.exec(form![2]!);
  expect(select, `a client select in the filter of ${action}`).not.toBeNull();
  expect(form![2]).toContain(`<label for="${select![1]}">Client</label>`);
  const options = [...select![2]!.matchAll(/<option value="([^"]*)"\s*(selected)?\s*>([\s\S]*?)<\/option>/g)].map(
    (m) => ({ value: m[1]!, selected: m[2] === 'selected', label: m[3]!.trim() }),
  );
  return { form: form![2]!, options };
}

/** One decimal, as the console shows a score. */
const score1 = (n: number) => String(Math.round(n * 10) / 10);

let t: TestApp;
let a: Tenant;
let bean: string;
let browser: Awaited<ReturnType<typeof consoleClient>>;
const ids = { auto: '', autopilot: '', stepped: '', optA: '', optB: '', projectA: '', projectB: '' };
const scores = { auto: 0, autopilot: 0 };

async function optimize(clientId: string, keyword: string) {
  const r = await t.request<{ optimization_id: string }>('POST', '/optimize', {
    key: a.key,
    body: { url: RAPIDFLOW_EMERGENCY, keyword, client_id: clientId },
    headers: { 'idempotency-key': idem('names-opt'), connection: 'close' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body.optimization_id;
}

/** A job's draft score as REST answers it: a content job's scored draft, an Autopilot run's score after optimizing. */
async function draftScore(jobId: string): Promise<number> {
  const r = await t.request<{
    status: string;
    score: { rankabilityScore?: unknown } | null;
    review: { score_after?: unknown; score_before?: unknown } | null;
  }>('GET', `/copywriter/jobs/${jobId}/artifacts`, { key: a.key, query: { include: 'score,review' } });
  expect(r.body.status).toBe('completed');
  const value = r.body.score?.rankabilityScore ?? r.body.review?.score_after ?? r.body.review?.score_before;
  expect(typeof value, `${jobId}: a draft score`).toBe('number');
  return value as number;
}

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t, 'agency', { name: HOSTILE });
  t.clock.advance(1_000); // Bean is the newer client: list_clients answers it first.
  bean = (await t.client(a.orgId, { name: BEAN })).id;
  const body = { client_id: a.clientId, page_contract: 'article' };
  ids.auto = (await createdJob(t, a.key, { ...body, topic: ESPRESSO, mode: 'auto' })).job_id;
  ids.stepped = (await createdJob(t, a.key, { ...body, topic: ASYNCIO, mode: 'stepped' })).job_id;
  ids.autopilot = (await startedAutopilot(t, a.key, { ...body, client_id: bean, topic: ESPRESSO })).job_id;
  ids.optA = await optimize(a.clientId, 'emergency plumber austin');
  ids.optB = await optimize(bean, 'plumber for bean');
  await run(t);
  scores.auto = await draftScore(ids.auto);
  scores.autopilot = await draftScore(ids.autopilot);
  ids.projectA = await project(t, a.clientId, { name: 'Hill visibility' });
  ids.projectB = await project(t, bean, { name: 'Bean visibility' });
  browser = await consoleClient(t, a.key);
}, 180_000);
afterAll(async () => {
  await t?.close();
});
// Each page runs several operations against the key's per-minute limit: each test starts with it refilled.
beforeEach(() => {
  t.clock.advance(61_000);
});

describe('the console shows names, not ids', () => {
  it('the content list shows each job by topic with its client by name; no id is shown as text', async () => {
    const page = await browser.get('/console/jobs');
    expect(page.status).toBe(200);
    const auto = cells(rowOf(page.text, `/console/jobs/${ids.auto}`));
    expect(auto.slice(0, 2)).toEqual([ESPRESSO, esc(HOSTILE)]);
    expect(cells(rowOf(page.text, `/console/jobs/${ids.autopilot}`)).slice(0, 3)).toEqual([
      ESPRESSO,
      BEAN,
      'Autopilot run',
    ]);
    for (const id of [...Object.values(ids), a.clientId, bean]) expect(textOf(page.text)).not.toContain(id);
  });

  it('the content list shows the score of a job with one (content job and Autopilot), none for the others', async () => {
    const page = await browser.get('/console/jobs');
    expect(page.text).toMatch(/<th scope="col">score<\/th>/);
    const scoreOf = (id: string) => {
      const row = cells(rowOf(page.text, `/console/jobs/${id}`));
      return row[row.length - 2];
    };
    expect(scoreOf(ids.auto)).toBe(score1(scores.auto));
    expect(scoreOf(ids.autopilot)).toBe(score1(scores.autopilot));
    expect(scoreOf(ids.stepped)).toBe('–');
  });

  it('names cost no request of the key’s limit, and a page’s scores one together, however many rows have one', async () => {
    const remaining = async () =>
      Number((await t.request('GET', '/usage', { key: a.key })).headers.get('x-ratelimit-remaining'));
    let before = await remaining();
    await browser.get('/console/jobs');
    // list_content_jobs, the two completed rows' scores together, and the second GET /usage; list_clients is free.
    expect(before - (await remaining())).toBe(3);
    before = await remaining();
    await browser.get(`/console/jobs/${ids.stepped}`);
    // get_content_job and the brief (get_content_artifacts), as before the page named its client, and GET /usage.
    expect(before - (await remaining())).toBe(3);
  });

  it('a job page names its client; the ids are in read-only fields to copy', async () => {
    const page = await browser.get(`/console/jobs/${ids.autopilot}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(new RegExp(`<th scope="row">Client</th>\\s*<td>\\s*${BEAN}`));
    expect(page.text).toMatch(copyField('Run id', ids.autopilot));
    expect(page.text).toMatch(copyField('Client id', bean));
    expect(textOf(page.text)).not.toContain(bean);
    expect(textOf(page.text)).not.toContain(ids.autopilot);
  });

  it('the optimization list shows keyword, client name and score; the report names its client', async () => {
    const list = await browser.get('/console/optimizations');
    expect(list.status).toBe(200);
    const optA = cells(rowOf(list.text, `/console/optimizations/${ids.optA}`));
    expect(optA.slice(0, 2)).toEqual(['emergency plumber austin', esc(HOSTILE)]);
    expect(optA[4]).toMatch(/^\d+(\.\d)?$/);
    expect(cells(rowOf(list.text, `/console/optimizations/${ids.optB}`)).slice(0, 2)).toEqual([
      'plumber for bean',
      BEAN,
    ]);
    for (const id of [ids.optA, ids.optB, a.clientId, bean]) expect(textOf(list.text)).not.toContain(id);

    const report = await browser.get(`/console/optimizations/${ids.optB}`);
    expect(report.status).toBe(200);
    expect(report.text).toMatch(new RegExp(`<dt>client</dt>\\s*<dd>\\s*${BEAN}`));
    expect(report.text).toMatch(copyField('Optimization id', ids.optB));
    expect(report.text).toMatch(copyField('Client id', bean));
    expect(textOf(report.text)).not.toContain(bean);
  });

  it('the tracker list and a project name the client', async () => {
    const list = await browser.get('/console/tracker');
    expect(list.status).toBe(200);
    expect(cells(rowOf(list.text, `/console/tracker/${ids.projectB}`)).slice(0, 2)).toEqual(['Bean visibility', BEAN]);
    expect(cells(rowOf(list.text, `/console/tracker/${ids.projectA}`)).slice(0, 2)).toEqual([
      'Hill visibility',
      esc(HOSTILE),
    ]);
    for (const id of [a.clientId, bean]) expect(textOf(list.text)).not.toContain(id);
    const page = await browser.get(`/console/tracker/${ids.projectB}`);
    expect(page.text).toContain(`for ${BEAN}`);
    expect(page.text).toMatch(copyField('Project id', ids.projectB));
  });
});

/** A read-only `<input>` holding an id to copy, labelled (the CSP allows no script, so no copy button). */
function copyField(label: string, id: string): RegExp {
  return new RegExp(`<label class="copy">\\s*${label}\\s*<input type="text" readonly value="${id}"`);
}

describe('every client filter is a select of the organisation’s clients, by name', () => {
  for (const [path, rowHref] of [
    ['/console/jobs', (id: string) => `/console/jobs/${id}`],
    ['/console/optimizations', (id: string) => `/console/optimizations/${id}`],
    ['/console/tracker', (id: string) => `/console/tracker/${id}`],
  ] as const) {
    it(`${path}: any client or one by name; choosing one lists only its rows`, async () => {
      const page = await browser.get(path);
      const { form, options } = clientFilter(page.text, path);
      expect(form).not.toMatch(/<input[^>]*name="client_id"/);
      expect(options).toEqual([
        { value: '', selected: true, label: 'any client' },
        // Newest first, as list_clients answers.
        { value: bean, selected: false, label: BEAN },
        { value: a.clientId, selected: false, label: esc(HOSTILE) },
      ]);

      const filtered = await browser.get(`${path}?client_id=${bean}`);
      expect(filtered.status).toBe(200);
      expect(clientFilter(filtered.text, path).options.find((o) => o.selected)).toEqual({
        value: bean,
        selected: true,
        label: BEAN,
      });
      const theirs =
        path === '/console/jobs' ? [ids.autopilot] : path === '/console/tracker' ? [ids.projectB] : [ids.optB];
      const others =
        path === '/console/jobs' ? [ids.auto, ids.stepped] : path === '/console/tracker' ? [ids.projectA] : [ids.optA];
      for (const id of theirs) expect(filtered.text).toContain(`href="${rowHref(id)}"`);
      for (const id of others) expect(filtered.text).not.toContain(`href="${rowHref(id)}"`);
    });
  }

  it('a hostile client name is escaped in every select and cell: no markup of it reaches the page', async () => {
    for (const path of ['/console/jobs', '/console/optimizations', '/console/tracker', `/console/jobs/${ids.auto}`]) {
      const page = await browser.get(path);
      expect(page.text, path).toContain(esc(HOSTILE));
      expect(page.text, path).not.toContain('<script>');
      expect(page.text, path).not.toContain('<img src=x');
    }
  });
});
