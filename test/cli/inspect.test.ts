/**
 * `agent-api inspect`: the real command line on fixture pages (an article and a product page, as files and gzipped),
 * on pages served by a loopback HTTP server (allowed through AGENT_API_TEST_FETCH_ALLOW, as the server's tests do,
 * and refused as a private address without it), and on a URL answered from a web archive in offline mode.
 *
 * The command runs from a bundle of the CLI's entry (test/helpers/entry-bundle.ts: the launcher's `main`, started in
 * well under a second instead of compiling the sources at each start); one test runs the launcher itself. Another
 * run starting in the same checkout empties `.test-entries/`, so the bundle is written back before a start that
 * would miss it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extract } from '../../src/engine/analysis/extract/index.ts';
import { classifyPage } from '../../src/engine/analysis/page-type/index.ts';
import { serializeExchange } from '../../src/providers/web/archive/writer.ts';
import { bundledEntry } from '../helpers/entry-bundle.ts';
import { BIN } from '../helpers/mcp.ts';
import { runBin, type Ran } from '../helpers/run-bin.ts';
import { tempDir } from '../helpers/temp.ts';
import { TEST_SERVER_ENV } from '../helpers/test-env.ts';
import { ROOT } from './helpers.ts';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'inspect');
const ARTICLE = join(FIXTURES, 'article.html');
const PRODUCT = join(FIXTURES, 'product.html');
const ARTICLE_URL = 'https://brew-notes.example/guides/descale-espresso-machine';
const PRODUCT_URL = 'https://kettle-and-crema.example/aurora-pro-2';

/**
 * The page type the engine itself gives a fixture at a URL: what the command must report. The fixtures are a plain
 * article and a plain product page; how well the classifier reads such pages is the engine's tests' business.
 */
function engineType(file: string, url = '') {
  const { type, confidence } = classifyPage(extract(readFileSync(file, 'utf8'), { url }));
  return { type, confidence };
}

interface Page {
  input: string;
  source: 'file' | 'live' | 'archive';
  file: string | null;
  url: string | null;
  finalUrl: string | null;
  status: number | null;
  pageType: { type: string; confidence: number; scores: Record<string, number> };
  language: { code: string; from: string; declared: string };
  title: string;
  h1: string;
  headings: { level: number; text: string }[];
  wordCount: number;
  mainText: string;
  found: { terms: number; entities: number };
  terms: { term: string; key: string; weight: number; count: number; headingCount: number; titleCount: number }[];
  entities: { name: string; type: string; kind: string; weight: number; count: number }[];
}
interface Failed {
  input: string;
  error: { code: string; message: string };
}

const tmp = tempDir('agent-api-inspect-');
let entry = '';
let entryCode: Buffer;
let server: Server;
let origin = '';
let allow = '';
const requests: string[] = [];

/** The pages of the loopback web: the article, a 404 and a JSON document. */
function serve(path: string): { status: number; type: string; body: string } {
  if (path === '/article')
    return { status: 200, type: 'text/html; charset=utf-8', body: readFileSync(ARTICLE, 'utf8') };
  if (path === '/data.json') return { status: 200, type: 'application/json', body: '{"espresso":true}' };
  return { status: 404, type: 'text/html', body: '<!doctype html><title>Not found</title><h1>Not found</h1>' };
}

beforeAll(async () => {
  const script = join(tmp.dir, 'inspect-cli.ts');
  writeFileSync(
    script,
    `import { main } from ${JSON.stringify(join(ROOT, 'src', 'cli', 'main.ts'))};\nawait main(process.argv.slice(2));\n`,
  );
  entry = await bundledEntry(script);
  entryCode = readFileSync(entry);
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const { status, type, body } = serve(req.url ?? '/');
    res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  allow = `127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  tmp.cleanup();
});

/** Starts the bundled CLI, first writing the bundle back if another run removed it. */
async function runEntry(args: string[], env: Record<string, string>): Promise<Ran> {
  for (let attempt = 1; ; attempt++) {
    if (!existsSync(entry)) {
      mkdirSync(dirname(entry), { recursive: true });
      writeFileSync(entry, entryCode);
    }
    const r = await runBin(entry, args, ROOT, env);
    if (attempt === 3 || !(r.code !== 0 && r.stderr.includes(`Cannot find module '${entry}'`))) return r;
  }
}

/** Runs `agent-api inspect ...args` with a clean environment (the run's shared archive index, info logs). */
function inspect(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return runEntry(['inspect', ...args], {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    AGENT_API_DB: tmp.dbPath,
    AGENT_API_LOG_LEVEL: 'info',
    ...TEST_SERVER_ENV,
    ...env,
  });
}

/** `--json` output: one JSON object per line, every line, and nothing else on stdout. */
function jsonLines(r: Ran): Array<Page | Failed> {
  expect(r.stdout.endsWith('\n'), r.stderr).toBe(true);
  return r.stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const value: unknown = JSON.parse(line);
      expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
      return value as Page | Failed;
    });
}

const page = (v: Page | Failed | undefined): Page => {
  expect(v && 'error' in v ? v.error : null).toBeNull();
  return v as Page;
};

/** Every stderr line is a pino JSON log line (stdout alone carries the output). */
function logLines(r: Ran): { msg: string; inspect?: { done: number; total: number; ok: boolean } }[] {
  return r.stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { msg: string });
}

describe('agent-api inspect: files', () => {
  it('prints readable sections per page: type, language, title, headings, shortened main text, terms and names', async () => {
    const r = await inspect([ARTICLE, PRODUCT]);
    expect(r.code, r.stderr).toBe(0);
    const [article, product] = r.stdout.split(/\n(?=== )/);
    expect(article).toContain(`== ${ARTICLE}\n`);
    expect(article).toContain(`URL:          ${ARTICLE_URL}`);
    const articleType = engineType(ARTICLE, ARTICLE_URL);
    expect(article).toContain(
      `Page type:    ${articleType.type} (confidence ${articleType.confidence.toFixed(2)}; next: `,
    );
    expect(article).toContain('Language:     en (the page declares "en-GB")');
    expect(article).toContain('Title:        How to Descale an Espresso Machine | Brew Notes');
    expect(article).toContain('H1:           How to Descale an Espresso Machine');
    expect(article).toContain('  h2 Step 3: Rinse the espresso machine\n    h3 How often should you descale?');
    expect(article).toMatch(/^Main text \(the first [\d,]+ of [\d,]+ characters; --json has it all\):$/m);
    expect(article).not.toContain('needs descaling now'); // the end of the main text is only in --json
    expect(article).toMatch(/^Terms \(top 25 of \d+ by weight; uses in text \/ headings \/ title\):$/m);
    expect(article).toMatch(/^ {2}\d\.\d\d {2}espresso machine +8 \/ 1 \/ 1$/m);
    expect(article).toMatch(/^ {2}\d\.\d\d {2}Maria Lindqvist +person, 1 \/ 0 \/ 0$/m);
    expect(product).toMatch(new RegExp(`^Page type: +${engineType(PRODUCT).type} `, 'm'));
    expect(product).toContain('URL:          (the file names no URL)');
    expect(product).toContain('characters, all shown):');
    // Progress: one pino line per page on stderr.
    const progress = logLines(r).filter((l) => l.inspect);
    expect(progress.map((l) => [l.inspect!.done, l.inspect!.total, l.inspect!.ok])).toEqual([
      [1, 2, true],
      [2, 2, true],
    ]);
    expect(progress[1]!.msg).toBe('inspected 2 of 2 pages');
  });

  it('--json: one complete object per page per line; a gzipped file reads as the same page', async () => {
    const gz = join(tmp.dir, 'article.html.gz');
    writeFileSync(gz, gzipSync(readFileSync(ARTICLE)));
    const r = await inspect([ARTICLE, PRODUCT, gz, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [article, product, gzipped] = jsonLines(r).map(page);
    expect(jsonLines(r)).toHaveLength(3);
    expect(article).toMatchObject({
      input: ARTICLE,
      source: 'file',
      url: ARTICLE_URL,
      status: null,
      pageType: engineType(ARTICLE, ARTICLE_URL),
      language: { code: 'en', from: 'page', declared: 'en-GB' },
      title: 'How to Descale an Espresso Machine | Brew Notes',
      h1: 'How to Descale an Espresso Machine',
    });
    expect(article!.file).toMatch(/^file:\/\/.*\/article\.html$/);
    expect(article!.headings).toContainEqual({ level: 3, text: 'How often should you descale?' });
    expect(article!.mainText).toContain('A machine that heats slowly or pulls slow shots needs descaling now.');
    expect(article!.wordCount).toBeGreaterThan(250);
    expect(article!.terms).toHaveLength(25);
    const weights = article!.terms.map((t) => t.weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    expect(article!.terms.slice(0, 5).find((t) => t.term === 'espresso machine')).toMatchObject({
      key: 'espresso machine',
      count: 8,
      headingCount: 1,
      titleCount: 1,
    });
    expect(article!.entities).toContainEqual(
      expect.objectContaining({ name: 'Maria Lindqvist', type: 'person', kind: 'name' }),
    );
    expect(product!.pageType).toMatchObject(engineType(PRODUCT));
    expect(Object.values(product!.pageType.scores).reduce((a, b) => a + b)).toBeCloseTo(1);
    expect(product!.url).toBeNull();
    expect(product!.entities.map((e) => e.name)).toContain('Aurora Pro 2');
    expect(gzipped!.file).toMatch(/article\.html\.gz$/);
    expect({ ...gzipped, input: '', file: '' }).toEqual({ ...article, input: '', file: '' });
  });

  it('--language and --top change the analysis language and the number of terms', async () => {
    const [p] = jsonLines(await inspect([ARTICLE, '--json', '--language', 'de', '--top', '5'])).map(page);
    expect(p!.language).toEqual({ code: 'de', from: 'option', declared: 'en-GB' });
    expect(p!.terms).toHaveLength(5);
    const bad = await inspect([ARTICLE, '--top', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--top.*expected 1 to 100/);
  });

  it('an unknown file, a folder and a non-HTML file each print an error line; the others print; exit 1', async () => {
    const notHtml = join(tmp.dir, 'notes.txt');
    writeFileSync(notHtml, 'espresso notes, no markup at all\n');
    const missing = join(tmp.dir, 'missing.html');
    const human = await inspect([missing, PRODUCT, 'example.com/page', FIXTURES, notHtml]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`Error:        not_found: ${missing}: no such file\n`);
    expect(human.stdout).toContain(
      'Error:        not_found: example.com/page: no such file (a URL needs its http:// or https:// scheme)',
    );
    expect(human.stdout).toContain(`Error:        unreadable: ${FIXTURES}: is a folder, not an HTML file`);
    expect(human.stdout).toContain(`Error:        not_html: ${notHtml}: is not HTML`);
    expect(human.stdout).toMatch(new RegExp(`^Page type: +${engineType(PRODUCT).type} `, 'm'));
    // In argument order.
    expect(human.stdout.indexOf(missing)).toBeLessThan(human.stdout.indexOf(`== ${PRODUCT}`));

    const json = await inspect([missing, PRODUCT, '--json']);
    expect(json.code).toBe(1);
    const [failed, ok] = jsonLines(json);
    expect(failed).toEqual({ input: missing, error: { code: 'not_found', message: 'no such file' } });
    expect(page(ok).pageType).toMatchObject(engineType(PRODUCT));
    expect(logLines(json).find((l) => l.inspect?.done === 1)?.msg).toBe(
      `inspected 1 of 2 pages (${missing} failed: not_found)`,
    );
  });
});

describe('agent-api inspect: URLs', () => {
  it('fetches through the SSRF-safe fetcher when the test allows loopback: a page, a 404, a JSON document', async () => {
    const before = requests.length;
    const r = await inspect([`${origin}/article`, `${origin}/missing`, `${origin}/data.json`, '--json'], {
      AGENT_API_TEST_FETCH_ALLOW: allow,
    });
    expect(r.code).toBe(1);
    const [article, missing, data] = jsonLines(r);
    expect(page(article)).toMatchObject({
      input: `${origin}/article`,
      source: 'live',
      url: `${origin}/article`,
      finalUrl: `${origin}/article`,
      status: 200,
      pageType: engineType(ARTICLE, `${origin}/article`),
      h1: 'How to Descale an Espresso Machine',
    });
    expect(missing).toEqual({
      input: `${origin}/missing`,
      error: { code: 'http_status', message: 'answered HTTP 404' },
    });
    expect(data).toEqual({
      input: `${origin}/data.json`,
      error: { code: 'not_html', message: 'is not HTML (application/json)' },
    });
    expect(requests.slice(before).sort()).toEqual(['/article', '/data.json', '/missing']);
  });

  it('refuses a private address when loopback is not allowed, without connecting', async () => {
    const before = requests.length;
    const r = await inspect([`${origin}/article`, 'http://10.0.0.1/page']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^Error: +blocked: ${origin}/article: .+$`, 'm'));
    expect(r.stdout).toMatch(/^Error: +blocked: http:\/\/10\.0\.0\.1\/page: .+$/m);
    expect(requests.length).toBe(before);
  });

  it('offline, answers a URL from the web archive and refuses one the archive lacks', async () => {
    const warc = join(tmp.dir, 'offline.warc.gz');
    const product = readFileSync(PRODUCT);
    writeFileSync(
      warc,
      await serializeExchange(
        {
          url: PRODUCT_URL,
          date: '2025-04-01T09:00:00Z',
          status: 200,
          statusText: 'OK',
          headers: [['Content-Type', 'text/html; charset=utf-8']],
          payload: product,
        },
        { gzip: true },
      ),
    );
    const before = requests.length;
    const r = await inspect([PRODUCT_URL, `${origin}/article`, '--json'], {
      AGENT_API_OFFLINE: '1',
      AGENT_API_WEB_ARCHIVE: warc,
      AGENT_API_ARCHIVE_INDEX_DIR: join(tmp.dir, 'offline-index'),
      AGENT_API_TEST_FETCH_ALLOW: allow,
    });
    expect(r.code).toBe(1);
    const [archived, live] = jsonLines(r);
    expect(page(archived)).toMatchObject({
      source: 'archive',
      url: PRODUCT_URL,
      status: 200,
      fetchedAt: '2025-04-01T09:00:00.000Z',
      pageType: engineType(PRODUCT, PRODUCT_URL),
      h1: 'Aurora Pro 2 Espresso Machine',
    });
    expect(live).toMatchObject({ input: `${origin}/article`, error: { code: 'not_archived' } });
    expect(requests.length).toBe(before); // offline: nothing went live
  });
});

describe('agent-api inspect: the launcher', () => {
  it('lists inspect in its help and documents the exit status', async () => {
    const copy = join(tmp.dir, 'help.db');
    const r = await runBin(BIN, ['inspect', '--help'], ROOT, {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      AGENT_API_DB: copy,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Usage: agent-api inspect [options] <inputs...>');
    expect(r.stderr).toContain('--json');
    expect(r.stderr).toMatch(/Exit status: 0 when every page was inspected; 1 when any argument failed/);
    const all = await runEntry(['--help'], { PATH: process.env.PATH ?? '', AGENT_API_DB: copy });
    expect(all.stderr).toMatch(/^ {2}inspect \[options\] <inputs\.\.\.>/m);
  }, 60_000);
});
