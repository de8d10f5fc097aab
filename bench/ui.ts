/**
 * `npm run bench -- ui [--requests N] [--real-scans N]`: the web console and the MCP Apps views, on loopback.
 *  1. Page weight: for every console page, the JavaScript and CSS its HTML loads (`<link rel=stylesheet>`,
 *     `<script src>`, and anything inline), gzip-compressed, and the HTML itself compressed; for every MCP Apps view
 *     in dist/apps/*.html (JS and CSS inline) its compressed size. Goal: at most 200 KB of JS + CSS per page.
 *  2. Server render time of a page against the JSON reads of the same data, side by side: the Optimize report page
 *     against `GET /optimizations/:id?view=full`, and the tracker project page (200 keywords x 3 platforms, 90 days
 *     of scans) against the three reads it shows (project, results, trends?days=90) one after another. N sequential
 *     requests of each after a warm-up, page and JSON alternating (which goes first alternates too), keys rotating
 *     (120 requests per key per minute). Goal: page at most 2x the JSON (medians).
 * The data is built in-process with a fake clock (bench/lib/ui-seed.ts); the app then serves the file from a child
 * process (bench/lib/app-server.ts) so the load generator does not share its event loop.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { table } from './lib/harness.ts';
import { loadLine, processCpuMs, spawnApp, type ChildApp } from './lib/optimize-app.ts';
import { KEYWORDS, PLATFORMS, seedUiWorld, TREND_DAYS, type UiWorld } from './lib/ui-seed.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GOAL_KB = 200;
const RATIO_GOAL = 2;
const WARMUP = 10;
/** Keys the timed requests rotate over: a tracker iteration spends 6 requests of a key's 120 a minute. */
const KEYS = 40;

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const gz = (text: string | Buffer) => gzipSync(text).length;
const f2 = (n: number) => n.toFixed(2);

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A keep-alive client of the child app: plain GETs and POSTs, bodies read whole, no decompression. */
function client(port: number) {
  const dispatcher = new Agent({ connections: 4, pipelining: 1 });
  const base = `http://127.0.0.1:${port}`;
  async function send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string) {
    const res = await request(`${base}${path}`, { method, dispatcher, headers, ...(body ? { body } : {}) });
    const buf = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, headers: res.headers, body: buf } satisfies Reply;
  }
  return {
    get: (path: string, headers: Record<string, string> = {}) => send('GET', path, headers),
    post: (path: string, headers: Record<string, string>, body: string) => send('POST', path, headers, body),
    close: () => dispatcher.close(),
  };
}
type Client = ReturnType<typeof client>;

/** Signs a key in to the console; answers the `cookie` header value of its session. */
async function signIn(http: Client, key: string): Promise<string> {
  const r = await http.post(
    '/console/sign-in',
    { 'content-type': 'application/x-www-form-urlencoded' },
    new URLSearchParams({ api_key: key }).toString(),
  );
  const set = r.headers['set-cookie'];
  const cookie = (Array.isArray(set) ? set : [set ?? '']).find((c) => c.startsWith('agent_api_session='));
  if (r.status !== 303 || !cookie) throw new Error(`sign-in answered ${r.status}: ${String(r.body)}`);
  return cookie.split(';')[0]!;
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Page weight

interface Assets {
  /** URLs of external stylesheets and scripts, in document order. */
  css: string[];
  js: string[];
  inlineCss: string;
  inlineJs: string;
}

/** What a page's HTML loads: `<link rel=stylesheet href>`, `<script src>`, and inline `<style>` / `<script>`. */
function assetsOf(html: string): Assets {
  const out: Assets = { css: [], js: [], inlineCss: '', inlineJs: '' };
  const attr = (tag: string, name: string) =>
    new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i')
      .exec(tag)
      ?.slice(1)
      .find((v) => v);
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = (attr(tag, 'rel') ?? '').toLowerCase().split(/\s+/);
    const href = attr(tag, 'href');
    if (rel.includes('stylesheet') && href) out.css.push(href);
  }
  for (const [, attrs, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const src = attr(attrs ?? '', 'src');
    if (src) out.js.push(src);
    else out.inlineJs += body ?? '';
  }
  for (const [, body] of html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)) out.inlineCss += body ?? '';
  return out;
}

interface PageWeight {
  name: string;
  path: string;
  status: number;
  htmlBytes: number;
  htmlGzip: number;
  /** External and inline JS + CSS, each file compressed on its own. */
  cssGzip: number;
  jsGzip: number;
  files: number;
  encoding: string;
}

async function pageWeights(http: Client, cookie: string, world: UiWorld): Promise<PageWeight[]> {
  const pages: [string, string, boolean][] = [
    ['sign-in', '/console/sign-in', false],
    ['usage', '/console', true],
    ['optimizations list', '/console/optimizations', true],
    ['optimization report', `/console/optimizations/${world.optimizationId}`, true],
    ['jobs list', '/console/jobs', true],
    ['job (completed)', `/console/jobs/${world.jobId}`, true],
    ['tracker list', '/console/tracker', true],
    ['tracker project', `/console/tracker/${world.projectId}`, true],
    ['prospects list', '/console/prospects', true],
    ['prospect list', `/console/prospects/${world.listId}?client_id=${world.clientId}`, true],
  ];
  const out: PageWeight[] = [];
  for (const [name, path, signedIn] of pages) {
    // Asked as a browser asks, to see whether the server compresses; sizes are measured on the identity body.
    const probe = await http.get(path, { 'accept-encoding': 'gzip, deflate, br', ...(signedIn ? { cookie } : {}) });
    const encoding = String(probe.headers['content-encoding'] ?? 'identity');
    const r = await http.get(path, signedIn ? { cookie } : {});
    const html = r.body.toString('utf8');
    const a = assetsOf(html);
    let cssGzip = a.inlineCss ? gz(a.inlineCss) : 0;
    let jsGzip = a.inlineJs ? gz(a.inlineJs) : 0;
    for (const [urls, add] of [
      [a.css, (n: number) => (cssGzip += n)],
      [a.js, (n: number) => (jsGzip += n)],
    ] as const) {
      for (const url of new Set(urls)) {
        const asset = await http.get(new URL(url, 'http://x').pathname, signedIn ? { cookie } : {});
        if (asset.status !== 200) throw new Error(`${name}: ${url} answered ${asset.status}`);
        add(gz(asset.body));
      }
    }
    out.push({
      name,
      path,
      status: r.status,
      htmlBytes: r.body.length,
      htmlGzip: gz(r.body),
      cssGzip,
      jsGzip,
      files: new Set(a.css).size + new Set(a.js).size,
      encoding,
    });
  }
  return out;
}

interface ViewWeight {
  name: string;
  bytes: number;
  gzip: number;
  jsGzip: number;
  cssGzip: number;
}

/** The MCP Apps views as built: whole file and inline JS / CSS, each compressed. */
function viewWeights(): { views: ViewWeight[]; note: string } {
  const dir = join(ROOT, 'dist/apps');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.html'));
  } catch {
    return { views: [], note: 'dist/apps is missing: run `node scripts/build.mjs`' };
  }
  const newest = (d: string): number =>
    Math.max(
      0,
      ...readdirSync(d, { withFileTypes: true }).map((e) =>
        e.isDirectory() ? newest(join(d, e.name)) : statSync(join(d, e.name)).mtimeMs,
      ),
    );
  const built = Math.min(...files.map((f) => statSync(join(dir, f)).mtimeMs));
  const stale = built < newest(join(ROOT, 'src/ui/apps'));
  const views = files.sort().map((f) => {
    const html = readFileSync(join(dir, f));
    const a = assetsOf(html.toString('utf8'));
    return { name: f, bytes: html.length, gzip: gz(html), jsGzip: gz(a.inlineJs), cssGzip: gz(a.inlineCss) };
  });
  return {
    views,
    note: stale
      ? 'dist/apps is OLDER than src/ui/apps: figures are of the last build (`node scripts/build.mjs` rebuilds)'
      : 'dist/apps is newer than src/ui/apps',
  };
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Page against JSON

interface Side {
  ms: number[];
  cpuMs: number;
  bytes: number;
}

/** One timed side of a comparison: answers the wall ms of its requests (run one after another) and their bytes. */
type Probe = (k: number) => Promise<{ ms: number; bytes: number; parts?: number[] }>;

async function timed(
  http: Client,
  path: string,
  headers: Record<string, string>,
): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const r = await http.get(path, headers);
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status} ${r.body.toString('utf8').slice(0, 300)}`);
  return { ms, bytes: r.body.length };
}

/**
 * `n` iterations after WARMUP: each runs the page and the JSON side once, which goes first alternating, on key
 * `k` (rotating). The child's CPU time is read around each side (10 ms ticks, so a per-request figure is an average).
 */
async function compare(app: ChildApp, n: number, page: Probe, json: Probe) {
  const sides = { page: { ms: [], cpuMs: 0, bytes: 0 } as Side, json: { ms: [], cpuMs: 0, bytes: 0 } as Side };
  const parts: number[][] = [];
  let k = 0;
  for (let i = 0; i < WARMUP + n; i++) {
    const order = i % 2 ? (['json', 'page'] as const) : (['page', 'json'] as const);
    for (const which of order) {
      const cpu0 = processCpuMs(app.pid) ?? 0;
      const r = await (which === 'page' ? page : json)(k++);
      const cpu = (processCpuMs(app.pid) ?? 0) - cpu0;
      if (i < WARMUP) continue;
      const s = sides[which];
      s.ms.push(r.ms);
      s.cpuMs += cpu;
      s.bytes = r.bytes;
      if (which === 'json' && r.parts) parts.push(r.parts);
    }
  }
  return { ...sides, parts };
}

export async function run(args: string[]): Promise<void> {
  const began = performance.now();
  const n = option(args, 'requests', Number(process.env.BENCH_UI_REQUESTS ?? 200));
  const realScans = Math.min(TREND_DAYS, option(args, 'real-scans', Number(process.env.BENCH_UI_REAL_SCANS ?? 3)));
  const notes = [`before: ${loadLine(cpus().length)}`];

  const world = await seedUiWorld({ keys: KEYS, realScans });
  const h = world.history;
  notes.push(
    `seeded in ${f2(world.seedMs / 1000)} s: tracker project of ${KEYWORDS.length} keywords x ${PLATFORMS.length} platforms ` +
      `(${PLATFORMS.join(', ')}; chatgpt and perplexity through loopback fakes), ${h.realScans} real daily scans ` +
      `(${f2(h.scanMs / 1000)} s, fake clock a day apart) and ${h.copiedDays} earlier days COPIED from their rows ` +
      `(${Math.round(h.copyMs)} ms): ${TREND_DAYS} days, ${h.resultRows.toLocaleString('en-US')} per-query rows`,
  );
  let app: ChildApp | null = null;
  let http: Client | null = null;
  try {
    app = await spawnApp(world.env);
    http = client(app.port);
    const cookies: string[] = [];
    for (const key of world.keys) cookies.push(await signIn(http, key));

    // 1. Page weight.
    const weights = await pageWeights(http, cookies[0]!, world);
    const rows = weights.map((w) => {
      const assets = w.cssGzip + w.jsGzip;
      return [
        w.name,
        String(w.status),
        kb(w.htmlBytes),
        kb(w.htmlGzip),
        kb(w.cssGzip),
        kb(w.jsGzip),
        String(w.files),
        kb(assets),
        w.encoding,
        w.status !== 200 ? 'NOT 200' : assets <= GOAL_KB * 1024 ? 'ok' : 'OVER',
      ];
    });
    process.stdout.write(
      `\n1. Page weight (KB = 1,024 bytes; gzip level 6 of each file on its own; "served" is the Content-Encoding the ` +
        `server answered to Accept-Encoding: gzip, deflate, br)\n`,
    );
    process.stdout.write(
      table(
        [
          'console page',
          'status',
          'HTML KB',
          'HTML gz',
          'CSS gz',
          'JS gz',
          'files',
          'JS+CSS gz',
          'served',
          `goal <= ${GOAL_KB} KB`,
        ],
        rows,
      ),
    );
    const { views, note } = viewWeights();
    process.stdout.write('\n');
    process.stdout.write(
      table(
        ['MCP Apps view', 'file KB', 'file gz', 'inline CSS gz', 'inline JS gz', `goal <= ${GOAL_KB} KB`],
        views.map((v) => [
          v.name,
          kb(v.bytes),
          kb(v.gzip),
          kb(v.cssGzip),
          kb(v.jsGzip),
          v.gzip <= GOAL_KB * 1024 ? 'ok' : 'OVER',
        ]),
      ),
    );
    process.stdout.write(`(${note}; the whole file is its JS and CSS, so the verdict is on "file gz")\n`);

    // 2. Page against JSON.
    const bearer = (k: number) => ({ authorization: `Bearer ${world.keys[k % world.keys.length]!}` });
    const cookie = (k: number) => ({ cookie: cookies[k % cookies.length]! });
    const api = '/api/agent/v1';
    const opt = await compare(
      app,
      n,
      (k) => timed(http!, `/console/optimizations/${world.optimizationId}`, cookie(k)),
      (k) => timed(http!, `${api}/optimizations/${world.optimizationId}?view=full`, bearer(k)),
    );
    const p = `${api}/reporter/projects/${world.projectId}`;
    const jsonReads = [p, `${p}/results`, `${p}/trends?days=${TREND_DAYS}`];
    const trk = await compare(
      app,
      n,
      (k) => timed(http!, `/console/tracker/${world.projectId}`, cookie(k)),
      async (k) => {
        const parts: number[] = [];
        let bytes = 0;
        for (const path of jsonReads) {
          const r = await timed(http!, path, bearer(k));
          parts.push(r.ms);
          bytes += r.bytes;
        }
        return { ms: parts.reduce((a, b) => a + b, 0), bytes, parts };
      },
    );

    const out: string[][] = [];
    const side = (label: string, what: string, s: Side) => [
      label,
      what,
      f2(quantile(s.ms, 0.5)),
      f2(quantile(s.ms, 0.9)),
      f2(s.cpuMs / s.ms.length),
      kb(s.bytes),
    ];
    for (const [label, c, pageWhat, jsonWhat] of [
      ['Optimize report', opt, 'page /console/optimizations/:id', 'JSON GET /optimizations/:id?view=full'],
      ['tracker project', trk, 'page /console/tracker/:id', 'JSON project + results + trends?days=90'],
    ] as const) {
      const r50 = quantile(c.page.ms, 0.5) / quantile(c.json.ms, 0.5);
      const r90 = quantile(c.page.ms, 0.9) / quantile(c.json.ms, 0.9);
      out.push([...side(label, pageWhat, c.page), `${f2(r50)}x`, `${f2(r90)}x`, r50 <= RATIO_GOAL ? 'ok' : 'OVER']);
      out.push([...side('', jsonWhat, c.json), '', '', '']);
    }
    for (const [i, path] of jsonReads.entries()) {
      const ms = trk.parts.map((x) => x[i]!);
      out.push([
        '',
        `  of which ${path.replace(p, '…/projects/:id') || '…/projects/:id'}`,
        f2(quantile(ms, 0.5)),
        f2(quantile(ms, 0.9)),
        '',
        '',
        '',
        '',
        '',
      ]);
    }
    process.stdout.write(
      `\n2. Server render against the JSON read of the same data: ${n} sequential requests of each after ${WARMUP} ` +
        `warm-up, alternating, ${KEYS} keys rotating; ms per request (the JSON side of the tracker is its three ` +
        `reads one after another); server CPU from /proc in 10 ms ticks, averaged\n`,
    );
    process.stdout.write(
      table(
        [
          'data',
          'request',
          'median ms',
          'p90 ms',
          'server CPU ms',
          'body KB',
          'ratio median',
          'ratio p90',
          `goal <= ${RATIO_GOAL}x`,
        ],
        out,
      ),
    );
  } finally {
    await http?.close();
    await app?.stop();
    await world.close();
  }
  notes.push(`after: ${loadLine(cpus().length)}; total ${f2((performance.now() - began) / 1000)} s`);
  process.stdout.write(`\n${notes.join('\n')}\n`);
}
