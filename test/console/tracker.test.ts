import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { call, DAY, KEYWORDS, project, scan } from '../tracker/fixture.ts';
import { consoleClient } from './helpers.ts';

/**
 * The console's tracker pages: projects with their latest SPI, and a project's SPI, per-platform results and the
 * 90-day trend as a server-drawn SVG whose lines break at days without data (never a zero), with a table of the
 * points; another organisation's project is a 404.
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
