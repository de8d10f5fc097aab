import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { svgMarkup, trendChart } from '../../src/charts/trend.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { call, DAY, DOMAIN, KEYWORDS, project, scan } from '../tracker/fixture.ts';
import { consoleClient } from './helpers.ts';

/**
 * The console's tracker pages: projects with their latest SPI, and a project's SPI, per-platform results and the
 * 90-day trend as a server-drawn SVG whose lines break at days without data (never a zero), with a table of the
 * points; another organisation's project is a 404. The actions: "New project" (create_tracker_project) on the list
 * and "Scan now" (start_tracker_scan) on a project, each CSRF-checked, 303 back, and acting once on a double submit.
 */

const NAME = 'Visibility <script>alert(1)</script>';

let t: TestApp;
let tenant: Awaited<ReturnType<TestApp['tenant']>>;
let projectId: string;
let spi: number;

beforeAll(async () => {
  t = await startTestApp({ clock: createFakeClock(Date.parse('2026-11-10T12:00:00.000Z')) });
  tenant = await t.tenant('agency');
  projectId = await project(t, tenant.clientId, { name: NAME });
  // Scans on Nov 10 and 11, none on Nov 12, one on Nov 13: two runs of the line with a gap between them.
  for (const advance of [0, DAY, 2 * DAY]) {
    t.clock.advance(advance);
    await scan(t, tenant.key, projectId);
  }
  const read = await call(t, 'GET', `/reporter/projects/${projectId}`, tenant.key);
  spi = read.body.spi.overall.spi;
  expect(typeof spi).toBe('number');
});
afterAll(async () => {
  await t?.close();
});
// Console pages run several operations each against the key's per-minute limit: each test starts with it refilled.
beforeEach(() => {
  t.clock.advance(61_000);
});

/** The `d` of every path of a chart's series (class "series"). */
const seriesPaths = (page: string) =>
  [...page.matchAll(/<path\s+class="series[^"]*"\s+d="([^"]*)"/g)].map((m) => m[1]!);

describe('console tracker pages', () => {
  it('without a session the pages redirect to sign-in', async () => {
    const r = await fetch(new URL(`/console/tracker/${projectId}`, t.url), { redirect: 'manual' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/console/sign-in');
  });

  it('the index lists the projects with their latest SPI, names escaped, linking to each project', async () => {
    const empty = await project(t, tenant.clientId, { name: 'Never scanned' });
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.get('/console/tracker');
    expect(r.status).toBe(200);
    expect(r.text).toContain('<h1>Tracker projects</h1>');
    expect(r.text).toContain(`href="/console/tracker/${projectId}"`);
    expect(r.text).toContain(`href="/console/tracker/${empty}"`);
    expect(r.text).toContain('Visibility &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(r.text).not.toContain('<script>');
    const row = r.text.slice(r.text.indexOf(`href="/console/tracker/${projectId}"`));
    expect(row.slice(0, row.indexOf('</tr>'))).toContain(`>${spi}<`);
    const emptyRow = r.text.slice(r.text.indexOf(`href="/console/tracker/${empty}"`));
    expect(emptyRow.slice(0, emptyRow.indexOf('</tr>'))).toContain('no data');
  });

  it('a project shows its SPI, per-platform results and the 90-day trend as an SVG whose line breaks at a day without data', async () => {
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.get(`/console/tracker/${projectId}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('Visibility &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(r.text).not.toContain('<script>');
    expect(r.text).toContain(`>${spi}<`);
    for (const keyword of KEYWORDS) expect(r.text).toContain(keyword);
    expect(r.text).toContain('organic');

    expect(r.text).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="trend-title"/);
    expect(r.text).toMatch(/<title id="trend-title">[^<]*90 days[^<]*<\/title>/);
    expect(r.text).toContain('<title id="trend-title">SPI of Visibility &lt;script&gt;alert(1)&lt;/script&gt; per');
    // The chart is the shared chart module's (the MCP Apps view draws the same) of the trend's points, per platform.
    const trend = (await call(t, 'GET', `/reporter/projects/${projectId}/trends`, tenant.key, { query: { days: 90 } }))
      .body as { days: number; from: string; to: string; points: { date: string; platforms: { organic?: number } }[] };
    const chart = trendChart({
      titleId: 'trend-title',
      title: `SPI of ${NAME} per platform over the last ${trend.days} days (${trend.from} to ${trend.to}, UTC); days without data are gaps in the lines`,
      dates: trend.points.map((p) => p.date),
      series: [{ name: 'organic', values: trend.points.map((p) => p.platforms.organic) }],
    });
    expect(r.text).toContain(svgMarkup(chart));
    const paths = seriesPaths(r.text);
    expect(paths).toHaveLength(1); // one platform: organic
    const d = paths[0]!;
    // Two runs of the line: Nov 10-11, then Nov 13 alone; the gap on Nov 12 is a move, not a point at zero.
    expect(d.match(/M/g)).toHaveLength(2);
    expect(d.match(/[ML]/g)).toHaveLength(3);
    // Every drawn point sits at the SPI's height, none at the chart's zero line.
    const ys = [...d.matchAll(/[ML]\s*[\d.]+[\s,]+([\d.]+)/g)].map((m) => Number(m[1]));
    expect(new Set(ys).size).toBe(1);
    const zero = /<line class="axis" x1="[\d.]+" y1="([\d.]+)"/.exec(r.text);
    expect(zero).not.toBeNull();
    if (spi > 0) expect(ys[0]).not.toBe(Number(zero![1]));

    // The table of points: 90 days, the gap day says no data rather than 0.
    const table = r.text.slice(r.text.indexOf('id="trend-points"'));
    expect(table.match(/<tr>\s*<th scope="row">/g)).toHaveLength(90);
    const gap = table.slice(table.indexOf('>2026-11-12</th>'));
    expect(gap.slice(0, gap.indexOf('</tr>'))).toContain('no data');
    const day = table.slice(table.indexOf('>2026-11-13</th>'));
    expect(day.slice(0, day.indexOf('</tr>'))).toContain(`>${spi}<`);
  });

  it('a project never scanned says so and draws no line', async () => {
    const id = await project(t, tenant.clientId, { name: 'Fresh' });
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.get(`/console/tracker/${id}`);
    expect(r.status).toBe(200);
    expect(seriesPaths(r.text)).toEqual([]);
    expect(r.text).toContain('no data');
  });

  it("another organisation's project is 404, a malformed id 400", async () => {
    const other = await t.tenant('agency');
    const theirs = await project(t, other.clientId, { name: 'Theirs' });
    const cc = await consoleClient(t, tenant.key);
    expect((await cc.get(`/console/tracker/${theirs}`)).status).toBe(404);
    expect((await cc.get('/console/tracker/not-a-uuid')).status).toBe(400);
    expect((await cc.get('/console/tracker')).text).not.toContain(theirs);
  });
});

/** The POST form of a page whose action is `action`, from `<form` to `</form>`. */
function formOf(page: string, action: string): string {
  const start = page.indexOf(`<form method="post" action="${action}"`);
  expect(start, action).toBeGreaterThan(-1);
  return page.slice(start, page.indexOf('</form>', start) + '</form>'.length);
}

/** The hidden idempotency key a form was rendered with. */
const idempotencyKeyOf = (form: string) => /name="idempotency_key" value="([0-9a-f-]{36})"/.exec(form)![1]!;

/** What every action form must be: CSRF token, idempotency key, a label for every field, no inline style or script. */
function expectWellFormed(page: string, form: string) {
  expect(form).toMatch(/name="csrf" value="[0-9a-f]{64}"/);
  expect(form).toMatch(/name="idempotency_key" value="[0-9a-f-]{36}"/);
  const fields = [...form.matchAll(/<(input|select|textarea)\b([^>]*)>/g)].filter((m) => !/type="hidden"/.test(m[2]!));
  for (const [tag, , attrs] of fields) {
    const id = /\bid="([^"]+)"/.exec(attrs!)?.[1];
    expect(id, tag).toBeDefined();
    expect(form).toContain(`<label for="${id}"`);
  }
  expect(page).not.toMatch(/\sstyle=/);
  expect(page).not.toContain('<script');
}

async function projectsOverRest() {
  const r = await call(t, 'GET', '/reporter/projects', tenant.key, { query: { limit: 100 } });
  expect(r.status).toBe(200);
  return r.body as { data: { project_id: string; name: string }[]; pagination: { total: number } };
}

describe('console tracker actions: New project', () => {
  const form = (extra: Record<string, string> = {}) => ({
    name: 'Console project',
    client_id: tenant.clientId,
    domain: DOMAIN,
    brand_names: 'RapidFlow\r\n\r\n  RapidFlow Plumbing  \r\n',
    query_kind: 'keywords',
    queries: 'emergency plumber\r\nwater heater repair\r\n',
    platform_organic: 'organic',
    location: '',
    language: '',
    ...extra,
  });

  it('the list page has a "New project" form: client select, one-per-line textareas, a checkbox per platform', async () => {
    const cc = await consoleClient(t, tenant.key);
    const page = (await cc.get('/console/tracker')).text;
    const f = formOf(page, '/console/tracker');
    expectWellFormed(page, f);
    expect(f).toMatch(/<select id="new-project-client" name="client_id"/);
    expect(f).toContain(`<option value="${tenant.clientId}">`);
    expect(f).toMatch(/<textarea id="new-project-queries" name="queries"/);
    expect(f).toMatch(/<textarea id="new-project-brand-names" name="brand_names"/);
    for (const p of ['organic', 'chatgpt', 'perplexity', 'claude', 'google_ai_overview'])
      expect(f).toMatch(
        new RegExp(`<input\\s+id="new-project-platform-${p}"\\s+name="platform_${p}"\\s+type="checkbox"`),
      );
    // Each render has its own idempotency key.
    const again = formOf((await cc.get('/console/tracker')).text, '/console/tracker');
    expect(idempotencyKeyOf(again)).not.toBe(idempotencyKeyOf(f));
  });

  it('creates the project: 303 to its page, and over REST it has the fields given and the defaults for the rest', async () => {
    const cc = await consoleClient(t, tenant.key);
    const f = formOf((await cc.get('/console/tracker')).text, '/console/tracker');
    const r = await cc.post('/console/tracker', {
      ...form({ name: 'Console project <b>', platform_perplexity: 'perplexity' }),
      idempotency_key: idempotencyKeyOf(f),
    });
    expect(r.status, r.text).toBe(303);
    const id = /^\/console\/tracker\/([0-9a-f-]{36})$/.exec(r.headers.get('location') ?? '')?.[1];
    expect(id).toBeDefined();
    const rest = await call(t, 'GET', `/reporter/projects/${id}`, tenant.key);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({
      client_id: tenant.clientId,
      name: 'Console project <b>',
      domain: DOMAIN,
      brand_names: ['RapidFlow', 'RapidFlow Plumbing'],
      query_kind: 'keywords',
      queries: ['emergency plumber', 'water heater repair'],
      platforms: ['organic', 'perplexity'],
      location: null,
      language: 'en',
    });
    const page = await cc.get(`/console/tracker/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Console project &lt;b&gt;');
  });

  it('optional fields are sent only when filled: no platform checked is organic, location and language as typed', async () => {
    const cc = await consoleClient(t, tenant.key);
    const { platform_organic: _, ...rest } = form({ name: 'Prompts', query_kind: 'prompts' });
    const r = await cc.post('/console/tracker', {
      ...rest,
      brand_names: '',
      location: ' Austin, TX ',
      language: 'en-US',
    });
    expect(r.status, r.text).toBe(303);
    const id = r.headers.get('location')!.split('/').pop()!;
    expect((await call(t, 'GET', `/reporter/projects/${id}`, tenant.key)).body).toMatchObject({
      name: 'Prompts',
      query_kind: 'prompts',
      platforms: ['organic'],
      brand_names: [DOMAIN], // the operation's default when none is sent
      location: 'Austin, TX',
      language: 'en-US',
    });
  });

  it('a double submit of one form creates one project', async () => {
    const cc = await consoleClient(t, tenant.key);
    const before = (await projectsOverRest()).pagination.total;
    const f = { ...form({ name: 'Twice' }), idempotency_key: 'console-double-create' };
    const first = await cc.post('/console/tracker', f);
    const second = await cc.post('/console/tracker', f);
    expect(first.status).toBe(303);
    expect(second.status).toBe(303);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    const after = await projectsOverRest();
    expect(after.pagination.total).toBe(before + 1);
    expect(after.data.filter((p) => p.name === 'Twice')).toHaveLength(1);
  });

  it('without the CSRF token (or with a wrong one) it is 403 and creates nothing', async () => {
    const cc = await consoleClient(t, tenant.key);
    const before = (await projectsOverRest()).pagination.total;
    for (const csrf of [null, '0'.repeat(64)]) {
      expect((await cc.post('/console/tracker', form({ name: 'Forged' }), { csrf })).status).toBe(403);
    }
    expect((await projectsOverRest()).pagination.total).toBe(before);
  });

  it('an empty name or no queries shows the error by field and creates nothing', async () => {
    const cc = await consoleClient(t, tenant.key);
    const before = (await projectsOverRest()).pagination.total;
    for (const [extra, field] of [
      [{ name: '   ' }, 'name'],
      [{ queries: '\r\n  \r\n' }, 'queries'],
      [{ platform_organic: 'organic', platform_chatgpt: 'chatgpt', language: 'not a language' }, 'language'],
    ] as const) {
      const r = await cc.post('/console/tracker', form(extra));
      expect(r.status).toBe(400);
      expect(r.text).toContain('invalid_input');
      expect(r.text).toContain(`<strong>${field}</strong>`);
    }
    expect((await projectsOverRest()).pagination.total).toBe(before);
  });

  it("another organisation's client is refused and gets no project", async () => {
    const other = await t.tenant('agency');
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.post('/console/tracker', form({ name: 'Not mine', client_id: other.clientId }));
    expect(r.status).toBe(404);
    expect(r.text).toContain('not_found');
    const theirs = await call(t, 'GET', '/reporter/projects', other.key);
    expect(theirs.body.pagination.total).toBe(0);
  });
});

describe('console tracker actions: Scan now', () => {
  const latestRun = async (key: string, id: string) => {
    const r = await call(t, 'GET', `/reporter/projects/${id}`, key);
    expect(r.status).toBe(200);
    return r.body.latest_run as { run_id: string; status: string } | null;
  };

  it('the project page has a "Scan now" form; it starts a scan: 303 back to the project, the run visible over REST', async () => {
    const id = await project(t, tenant.clientId, { name: 'Scan me' });
    const cc = await consoleClient(t, tenant.key);
    const page = (await cc.get(`/console/tracker/${id}`)).text;
    const f = formOf(page, `/console/tracker/${id}/scans`);
    expectWellFormed(page, f);
    expect(f).toContain('Scan now');
    const r = await cc.post(`/console/tracker/${id}/scans`, { idempotency_key: idempotencyKeyOf(f) });
    expect(r.status, r.text).toBe(303);
    expect(r.headers.get('location')).toBe(`/console/tracker/${id}`);
    const run = await latestRun(tenant.key, id);
    expect(run).not.toBeNull();
    // While the run waits, the page refreshes itself; once it has finished, it shows the result.
    expect((await cc.get(`/console/tracker/${id}`)).text).toContain('<meta http-equiv="refresh" content="5" />');
    await t.engine.runner.runUntilIdle();
    expect((await latestRun(tenant.key, id))!.status).toBe('complete');
    const done = (await cc.get(`/console/tracker/${id}`)).text;
    expect(done).not.toContain('http-equiv="refresh"');
    expect(done).toContain('Latest run complete');
  });

  it('a double submit of the form starts one scan', async () => {
    const id = await project(t, tenant.clientId, { name: 'Scan once' });
    const cc = await consoleClient(t, tenant.key);
    const f = { idempotency_key: 'console-double-scan' };
    expect((await cc.post(`/console/tracker/${id}/scans`, f)).status).toBe(303);
    await t.engine.runner.runUntilIdle();
    const first = await latestRun(tenant.key, id);
    t.clock.advance(5_000);
    expect((await cc.post(`/console/tracker/${id}/scans`, f)).status).toBe(303);
    await t.engine.runner.runUntilIdle();
    expect(await latestRun(tenant.key, id)).toEqual(first);
    // A fresh form (a new key) does start another.
    const page = (await cc.get(`/console/tracker/${id}`)).text;
    const key = idempotencyKeyOf(formOf(page, `/console/tracker/${id}/scans`));
    expect((await cc.post(`/console/tracker/${id}/scans`, { idempotency_key: key })).status).toBe(303);
    expect((await latestRun(tenant.key, id))!.run_id).not.toBe(first!.run_id);
    await t.engine.runner.runUntilIdle();
  });

  it('without the CSRF token it is 403 and starts nothing', async () => {
    const id = await project(t, tenant.clientId, { name: 'No scan' });
    const cc = await consoleClient(t, tenant.key);
    for (const csrf of [null, '0'.repeat(64)]) {
      expect((await cc.post(`/console/tracker/${id}/scans`, {}, { csrf })).status).toBe(403);
    }
    expect(await latestRun(tenant.key, id)).toBeNull();
  });

  it("another organisation's project is 404 and not scanned; a malformed id 400", async () => {
    const other = await t.tenant('agency');
    const theirs = await project(t, other.clientId, { name: 'Theirs to scan' });
    const cc = await consoleClient(t, tenant.key);
    const r = await cc.post(`/console/tracker/${theirs}/scans`, {});
    expect(r.status).toBe(404);
    expect(r.text).toContain('not_found');
    expect(await latestRun(other.key, theirs)).toBeNull();
    expect((await cc.post('/console/tracker/not-a-uuid/scans', {})).status).toBe(400);
  });
});
