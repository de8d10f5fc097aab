import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import type { TestApp } from '../helpers/app.ts';
import { chromiumPath, launchChromium } from '../helpers/browser.ts';
import { createdJob, idem, run, startContentApp, tenant, type Tenant } from '../content/helpers/harness.ts';
import { caller } from '../prospects/fixture.ts';
import { project, scan } from '../tracker/fixture.ts';

/**
 * The web console in a real browser (Debian's chromium): sign in with a key, open every page on data made by the test
 * (an optimization, a stepped job, a tracker project with a scan, a prospect list), check what is shown, approve a
 * brief and change a prospect's status from the pages, and on every page: no console error, no dialog, no request to
 * another host, hostile names and notes shown as text, and no serious or critical axe-core violation. Screenshots go to
 * the test's temp folder.
 */
const SCRIPT = '<script>alert(1)</script>';
const BREAKOUT = '"><img src=x onerror=alert(2)>';

const browserPath = chromiumPath();
if (!browserPath)
  console.warn('\n*** SKIPPING the console browser tests: no chromium binary (apt-get install chromium) ***\n');

interface PageGlobals {
  axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null }[] }> };
  document: { body: { innerText: string } };
}

describe.skipIf(!browserPath)('the web console in a real browser', () => {
  let t: TestApp;
  let a: Tenant;
  let browser: Browser;
  let page: Page;
  const shots = mkdtempSync(join(tmpdir(), 'agent-api-console-'));
  const problems: string[] = [];
  const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
  let ids: { optimization: string; job: string; project: string; list: string; item: string; beanJob: string };
  let bean: string;

  beforeAll(async () => {
    t = await startContentApp();
    a = await tenant(t, 'agency', { name: `Hill Country ${SCRIPT}` });
    // An optimization, complete.
    const opt = await t.request('POST', '/api/agent/v1/optimize', {
      key: a.key,
      body: { url: 'https://www.rapidflowplumbing.com/emergency-plumbing/', keyword: 'emergency plumber austin' },
      headers: { 'idempotency-key': idem('console-opt') },
    });
    // A stepped job, at brief_ready.
    const job = await createdJob(
      t,
      a.key,
      { client_id: a.clientId, topic: 'best espresso machine under 500', page_contract: 'article', mode: 'stepped' },
      idem('console-job'),
    );
    // A second client with a job of its own: the lists filter by client.
    t.clock.advance(1_000);
    bean = (await t.client(a.orgId, { name: 'Bean There Coffee' })).id;
    const beanJob = await createdJob(
      t,
      a.key,
      { client_id: bean, topic: 'sourdough bread recipe', page_contract: 'article', mode: 'stepped' },
      idem('console-bean-job'),
    );
    await run(t);
    // A tracker project with a scan.
    const projectId = await project(t, a.clientId, { name: `Visibility ${BREAKOUT}` });
    await scan(t, a.key, projectId);
    await run(t);
    // A prospect list with a hostile note.
    const c = caller(t, a.key);
    const list = await c.createList(a.clientId, { name: `Guest posts ${SCRIPT}` });
    const item = await c.save(a.clientId, list.body.list_id, {
      url: 'https://blog.example.com/write-for-us',
      target_name: `Blog ${BREAKOUT}`,
      notes: `Asked ${SCRIPT} ${BREAKOUT}`,
    });
    ids = {
      optimization: (opt.body as { optimization_id: string }).optimization_id,
      job: job.job_id,
      project: projectId,
      list: list.body.list_id,
      item: item.body.item_id,
      beanJob: beanJob.job_id,
    };

    browser = await launchChromium();
    page = await browser.newPage();
    // axe-core is injected by the test; the console's own CSP allows no script at all.
    await page.setBypassCSP(true);
    const origin = new URL(t.url).origin;
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`pageerror: ${String(e)}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(origin) && !u.startsWith('data:')) problems.push(`request: ${u}`);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Opens a console page: no problem on it, no serious axe violation, a screenshot; answers its visible text. */
  async function visit(path: string, shot: string): Promise<string> {
    const r = await page.goto(new URL(path, t.url).toString(), { waitUntil: 'load' });
    expect(r?.status(), path).toBe(200);
    return check(shot);
  }

  async function check(shot: string): Promise<string> {
    await page.addScriptTag({ content: axeSource });
    const { violations } = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).axe.run((globalThis as unknown as PageGlobals).document, {
        resultTypes: ['violations'],
      }),
    );
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    expect(serious, `${shot}: axe`).toEqual([]);
    await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
    expect(problems, shot).toEqual([]);
    problems.length = 0;
    return page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText);
  }

  it('signs in with a key and shows the usage page, with every page in the navigation', async () => {
    await page.goto(new URL('/', t.url).toString());
    expect(page.url()).toMatch(/\/console\/sign-in$/);
    await check('sign-in');
    await page.type('#api_key', a.key);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(page.url()).toMatch(/\/console$/);
    const text = await check('usage');
    expect(text).toContain('Usage');
    expect(text).toContain('24h');
    for (const label of ['Optimizations', 'Content', 'Tracker', 'Prospects']) expect(text).toContain(label);
  }, 60_000);

  it('shows the optimization list and report', async () => {
    expect(await visit('/console/optimizations', 'optimizations')).toContain('emergency plumber austin');
    const report = await visit(`/console/optimizations/${ids.optimization}`, 'optimization-report');
    expect(report).toContain('Recommendations');
    expect(await page.$$eval('meter', (m) => m.length)).toBeGreaterThan(0);
  }, 60_000);

  it('approves a brief from the job page, then shows the draft', async () => {
    expect(await visit('/console/jobs', 'jobs')).toContain('best espresso machine under 500');
    const job = await visit(`/console/jobs/${ids.job}`, 'job-brief');
    expect(job).toContain('brief_ready');
    // The first form of the brief approves it as it is (or with the edits made in it).
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/approve"] button[type=submit]')]);
    await run(t);
    const done = await visit(`/console/jobs/${ids.job}`, 'job-draft');
    expect(done).toContain('completed');
  }, 60_000);

  it("shows a client's name where it showed its id; choosing a client in the select filters the list", async () => {
    const job = await visit(`/console/jobs/${ids.job}`, 'job-client');
    expect(job).toMatch(new RegExp(`Client\\s+Hill Country <script>alert\\(1\\)</script>`));
    // The id is no text of the page: only the value of a read-only field to copy.
    expect(job).not.toContain(a.clientId);
    const copy = await page.$eval('label.copy input[readonly]', (el) => (el as unknown as { value: string }).value);
    expect(copy).toBe(a.clientId);

    const rows = async () =>
      page.$$eval('main table tbody tr', (trs) =>
        trs.map((tr) => ({
          href: tr.querySelector('a')?.getAttribute('href') ?? '',
          client: (tr.querySelectorAll('td')[1] as unknown as { innerText: string } | undefined)?.innerText ?? '',
        })),
      );
    await visit('/console/jobs', 'jobs-all');
    expect(await rows()).toEqual(
      expect.arrayContaining([
        { href: `/console/jobs/${ids.job}`, client: `Hill Country ${SCRIPT}` },
        { href: `/console/jobs/${ids.beanJob}`, client: 'Bean There Coffee' },
      ]),
    );
    // The filter's client is a select of the clients by name; choosing one and filtering lists only its jobs.
    const choices = await page.$$eval('#client_id option', (os) =>
      os.map((o) => (o as unknown as { textContent: string }).textContent.trim()),
    );
    expect(choices).toEqual(['any client', 'Bean There Coffee', `Hill Country ${SCRIPT}`]);
    await page.select('#client_id', bean);
    await Promise.all([page.waitForNavigation(), page.click('form[method=get] button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('client_id')).toBe(bean);
    await check('jobs-filtered');
    expect(await rows()).toEqual([{ href: `/console/jobs/${ids.beanJob}`, client: 'Bean There Coffee' }]);
  }, 60_000);

  it('shows the tracker project with its chart', async () => {
    expect(await visit('/console/tracker', 'tracker')).toContain(`Visibility ${BREAKOUT}`);
    const projectPage = await visit(`/console/tracker/${ids.project}`, 'tracker-project');
    expect(projectPage).toContain('SPI');
    expect(await page.$$eval('svg', (s) => s.length)).toBeGreaterThan(0);
  }, 60_000);

  it("changes a prospect's status from the list page; hostile names and notes are shown as text", async () => {
    const listPath = `/console/prospects/${ids.list}?client_id=${a.clientId}`;
    expect(await visit('/console/prospects', 'prospects')).toContain(`Guest posts ${SCRIPT}`);
    const list = await visit(listPath, 'prospect-list');
    expect(list).toContain(`Blog ${BREAKOUT}`);
    // The notes are the value of the item's textarea: text, not markup.
    expect(
      await page.$eval(
        `form[action$="/items/${ids.item}"] textarea[name=notes]`,
        (el) => (el as unknown as { value: string }).value,
      ),
    ).toBe(`Asked ${SCRIPT} ${BREAKOUT}`);
    await page.select(`form[action$="/items/${ids.item}"] select[name=status]`, 'contacted');
    await Promise.all([page.waitForNavigation(), page.click(`form[action$="/items/${ids.item}"] button[type=submit]`)]);
    await check('prospect-list-after');
    const items = await caller(t, a.key).items(a.clientId, ids.list, { limit: 10 });
    expect((items.body as { data: { item_id: string; status: string }[] }).data).toContainEqual(
      expect.objectContaining({ item_id: ids.item, status: 'contacted' }),
    );
  }, 60_000);
});
