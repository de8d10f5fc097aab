import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { parseHTML } from 'linkedom';
import type { TestApp } from '../helpers/app.ts';
import { connectHttpClient, connectModernHttpClient, structured } from '../helpers/mcp.ts';
import { chromiumPath, launchChromium } from '../helpers/browser.ts';
import { idem, run, startContentApp, tenant, type Tenant } from '../content/helpers/harness.ts';
import { drain } from '../optimize/helpers/harness.ts';
import { project, scan } from '../tracker/fixture.ts';
import { trendChart, type SvgNode, type TrendChartInput } from '../../src/charts/trend.ts';

/**
 * MCP Apps views: the tools that have one name it in `_meta.ui.resourceUri`; each view is a `ui://` resource of type
 * `text/html;profile=mcp-app` with a CSP that allows no network; and in a real browser (Debian's chromium) each view,
 * handed a real tool result by a host built on the ext-apps AppBridge, shows the score, the chart or the draft, with
 * no console errors and no request leaving the page.
 */
/** The browser side, as the page scripts see it (the test's own types have no DOM). */
interface PageGlobals {
  showView(html: string, args: Record<string, unknown>, result: Record<string, unknown>): Promise<void>;
  viewReady?: boolean;
  document: {
    body: { innerText: string };
    querySelectorAll(selector: string): { length: number };
    querySelector(selector: string): PageElement | null;
  };
}
/** An element as the page scripts see it, for reading a chart back as a tree. */
interface PageElement {
  tagName: string;
  attributes: ArrayLike<{ name: string; value: string }>;
  childNodes: ArrayLike<{ nodeType: number; textContent: string | null }>;
}

const VIEW_OF: Record<string, string> = {
  get_optimization: 'ui://agent-api/optimize-report',
  score_content: 'ui://agent-api/optimize-report',
  get_tracker_trends: 'ui://agent-api/trend-chart',
  get_content_artifacts: 'ui://agent-api/draft',
};

let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t);
});
afterAll(async () => {
  await t?.close();
});

describe('MCP Apps: tools and resources', () => {
  it('the report, trend and draft tools name their view; other tools name none (both eras)', async () => {
    for (const connect of [connectHttpClient, connectModernHttpClient]) {
      const c = await connect(t.url, a.key);
      try {
        const { tools } = await c.client.listTools();
        for (const tool of tools) {
          const uri = (tool._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
          expect(uri, tool.name).toBe(VIEW_OF[tool.name]);
        }
      } finally {
        await c.close();
      }
    }
  });

  it('each view is listed and reads as text/html;profile=mcp-app with no network in its CSP and nothing loaded from outside', async () => {
    const c = await connectHttpClient(t.url, a.key);
    try {
      const { resources } = await c.client.listResources();
      const views = [...new Set(Object.values(VIEW_OF))];
      expect(resources.map((r) => r.uri).sort()).toEqual(views.sort());
      for (const uri of views) {
        const read = await c.client.readResource({ uri });
        const item = read.contents[0] as { mimeType: string; text: string; _meta?: { ui?: { csp?: object } } };
        expect(item.mimeType).toBe('text/html;profile=mcp-app');
        expect(item._meta?.ui?.csp).toEqual({ connectDomains: [], resourceDomains: [] });
        expect(item.text).toMatch(/^<!doctype html>/);
        // Everything inline: no element loads a script, stylesheet, image or frame from anywhere.
        const { document } = parseHTML(item.text);
        expect(document.querySelectorAll('[src], link[href]').length).toBe(0);
        expect(document.querySelectorAll('script').length).toBe(1);
      }
    } finally {
      await c.close();
    }
  });
});

const browserPath = chromiumPath();
if (!browserPath)
  console.warn('\n*** SKIPPING the MCP Apps browser tests: no chromium binary (apt-get install chromium) ***\n');

describe.skipIf(!browserPath)('MCP Apps views in a real browser', () => {
  const shots = mkdtempSync(join(tmpdir(), 'agent-api-apps-'));
  let hostScript: string;

  beforeAll(async () => {
    const out = await build({
      entryPoints: [fileURLToPath(new URL('./apps-host.ts', import.meta.url))],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      write: false,
      logLevel: 'warning',
    });
    hostScript = out.outputFiles[0]!.text;
  });

  /** Renders a view in a host page with a recorded call; answers the view's visible text and what went wrong. */
  async function render(uri: string, args: Record<string, unknown>, result: unknown, shot: string) {
    const c = await connectHttpClient(t.url, a.key);
    const html = ((await c.client.readResource({ uri })).contents[0] as { text: string }).text;
    await c.close();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('dialog', (d) => {
        errors.push(`dialog: ${d.message()}`);
        void d.dismiss();
      });
      await page.setRequestInterception(true);
      page.on('request', (r) => {
        if (!r.url().startsWith('about:') && !r.url().startsWith('data:')) requests.push(r.url());
        void (r.url().startsWith('about:') ? r.continue() : r.abort());
      });
      await page.setContent(`<!doctype html><html><body><script>${hostScript}</script></body></html>`);
      await page.evaluate(
        (h, a2, r) => (globalThis as unknown as PageGlobals).showView(h, a2, r),
        html,
        args,
        result as Record<string, unknown>,
      );
      await page.waitForFunction(() => (globalThis as unknown as PageGlobals).viewReady === true, { timeout: 15_000 });
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      await frame.waitForFunction(
        () => !(globalThis as unknown as PageGlobals).document.body.innerText.includes('Loading…'),
        { timeout: 15_000 },
      );
      const text = await frame.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText);
      // The view's chart (if any) read back as the chart module's tree: tag, attributes, texts.
      const chart = await frame.evaluate(() => {
        const treeOf = (el: PageElement): SvgNode => ({
          tag: el.tagName,
          attrs: Object.fromEntries(Array.from(el.attributes, (a) => [a.name, a.value])),
          children: Array.from(el.childNodes, (c) => (c.nodeType === 3 ? (c.textContent ?? '') : treeOf(c as never))),
        });
        const svg = (globalThis as unknown as PageGlobals).document.querySelector('.chart > svg');
        return svg ? treeOf(svg) : null;
      });
      await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
      return { text, chart, errors, requests };
    } finally {
      await browser.close();
    }
  }

  it('the Optimize report shows the score, recommendations and competitors of a real optimization', async () => {
    const c = await connectHttpClient(t.url, a.key);
    const started = await c.client.callTool({
      name: 'start_optimization',
      arguments: {
        url: 'https://www.rapidflowplumbing.com/emergency-plumbing/',
        keyword: 'emergency plumber austin',
        idempotency_key: idem('apps'),
      },
    });
    const id = structured<{ optimization_id: string }>(started).optimization_id;
    await t.engine.runner.start();
    await drain(t);
    await t.engine.runner.stop(0);
    const args = { optimization_id: id, view: 'full' };
    const result = await c.client.callTool({ name: 'get_optimization', arguments: args });
    await c.close();
    const score = structured<{ result: { rankabilityScore: number } }>(result).result.rankabilityScore;
    const seen = await render('ui://agent-api/optimize-report', args, result, 'optimize-report');
    expect(seen.errors).toEqual([]);
    expect(seen.requests).toEqual([]);
    expect(seen.text).toContain('emergency plumber austin');
    expect(seen.text).toContain(String(Math.round(score * 10) / 10));
    expect(seen.text).toContain('Recommendations');
    expect(seen.text).toContain('Competitors');
  }, 90_000);

  it('the trend chart draws a chart of a real project with a scan; missing days stay gaps', async () => {
    const projectId = await project(t, a.clientId);
    await scan(t, a.key, projectId);
    await run(t);
    const c = await connectHttpClient(t.url, a.key);
    const args = { project_id: projectId, days: 30 };
    const result = await c.client.callTool({ name: 'get_tracker_trends', arguments: args });
    await c.close();
    const seen = await render('ui://agent-api/trend-chart', args, result, 'trend-chart');
    expect(seen.errors).toEqual([]);
    expect(seen.requests).toEqual([]);
    expect(seen.text).toContain('Visibility trend');
    expect(seen.text).toMatch(/1 of 30 days measured/);
    // The chart module's SVG (the console's project page draws the same): overall and organic, each one point on
    // the day scanned and no line through the 29 days without data.
    const body = structured<TrendBody>(result);
    const expected = trendInput(body);
    expect(expected.series.map((x) => x.name)).toEqual(['overall', 'organic']);
    expect(seen.chart).toEqual(withoutXmlns(trendChart(expected)));
    const paths = (seen.chart?.children ?? []).flatMap((g) =>
      typeof g === 'string' ? [] : g.children.filter((c) => typeof c !== 'string' && c.tag === 'path'),
    );
    for (const p of paths) expect((p as SvgNode).attrs.d!.match(/[ML]/g)).toHaveLength(1);

    // A hostile platform name and date from a tool result stay text: no element, no handler, no request.
    const hostile = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const forged = {
      ...(result as object),
      structuredContent: {
        ...body,
        platforms_expected: [...body.platforms_expected, hostile],
        points: body.points.map((p, i) =>
          i === 0 ? { ...p, date: `${p.date}${hostile}`, platforms: { ...p.platforms, [hostile]: 42 } } : p,
        ),
      },
    };
    const bad = await render('ui://agent-api/trend-chart', args, forged, 'trend-chart-hostile');
    expect(bad.errors).toEqual([]);
    expect(bad.requests).toEqual([]);
    expect(bad.text).toContain('Visibility trend');
    expect(bad.chart).toEqual(withoutXmlns(trendChart(trendInput(forged.structuredContent))));
    expect(JSON.stringify(bad.chart)).not.toMatch(/"tag":"(img|script)"|"on[a-z]+":/i);
  }, 90_000);

  it('the draft view lays out a real draft as text, hostile markup included', async () => {
    const c = await connectHttpClient(t.url, a.key);
    const created = await c.client.callTool({
      name: 'create_content_job',
      arguments: {
        client_id: a.clientId,
        topic: 'best espresso machine under 500',
        page_contract: 'article',
        mode: 'stepped',
        idempotency_key: idem('apps-draft'),
      },
    });
    const jobId = structured<{ job_id: string }>(created).job_id;
    await run(t);
    const hostile = '## Espresso <script>alert(1)</script>\n\nA "><img src=x onerror=alert(2)> paragraph.';
    await c.client.callTool({ name: 'approve_content_brief', arguments: { job_id: jobId, draft_body: hostile } });
    await run(t);
    const args = { job_id: jobId };
    const result = await c.client.callTool({ name: 'get_content_artifacts', arguments: args });
    await c.close();
    const seen = await render('ui://agent-api/draft', args, result, 'draft');
    expect(seen.errors).toEqual([]);
    expect(seen.requests).toEqual([]);
    expect(seen.text).toContain('Espresso <script>alert(1)</script>');
    expect(seen.text).toContain('"><img src=x onerror=alert(2)> paragraph.');
  }, 90_000);
});

interface TrendBody {
  from: string;
  to: string;
  platforms_expected: string[];
  points: { date: string; spi: number | null; platforms: Record<string, number> }[];
}

/** What the trend view hands the chart module for a get_tracker_trends result: overall, then each expected platform. */
function trendInput(body: TrendBody): TrendChartInput {
  const measured = body.points.filter((p) => p.spi !== null).length;
  return {
    titleId: 'trend-title',
    title: `SPI over ${body.points.length} days, ${measured} measured: overall and per platform; days without data are gaps in the lines`,
    dates: body.points.map((p) => p.date),
    series: [
      { name: 'overall', label: 'SPI', values: body.points.map((p) => p.spi), width: 3 },
      ...body.platforms_expected.map((name) => ({ name, values: body.points.map((p) => p.platforms[name] ?? null) })),
    ],
  };
}

/** The tree as the browser reads it back: an element made in the SVG namespace carries no `xmlns` attribute. */
function withoutXmlns(node: SvgNode): SvgNode {
  const { xmlns: _, ...attrs } = node.attrs;
  return { ...node, attrs };
}
