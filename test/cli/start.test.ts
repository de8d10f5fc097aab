import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeOfflineWeb, formatOfflineWeb, topicsFromReadme } from '../../src/cli/offline-web.ts';
import { loadConfig, SAMPLE_ARCHIVE_PATH } from '../../src/config.ts';
import { serializeExchange, type HttpCapture } from '../../src/providers/web/archive/writer.ts';
import { BIN } from '../helpers/mcp.ts';
import { printedStdioEntry } from '../helpers/snippet.ts';
import { tempDir } from '../helpers/temp.ts';
import { cli, cliEnv, failed, newDb, ROOT, terminate, waitForStderr } from './helpers.ts';

/**
 * `agent-api start` and `serve`: --host/--port (defaults AGENT_API_HOST/AGENT_API_PORT), what `npm start`'s first
 * screen says about the offline web, and clear errors for bad ports.
 */

const temps: Array<() => void> = [];
afterAll(() => temps.forEach((c) => c()));

/** A port nothing listens on right now (bound to 0, read, released). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Spawns `node bin/agent-api.js ...args`, waits for the "serving" line (bounded), and answers its URL, what stdout
 * said by then, and a stop function (SIGTERM, exit code).
 */
async function startServer(db: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: cliEnv(db, { AGENT_API_LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += String(d)));
  try {
    const m = await waitForStderr(child, /serving REST at (http:\/\/\S+?)\/api\/agent\/v1/, 120_000);
    return { child, url: m[1]!, stdout: () => stdout, stop: () => terminate(child) };
  } catch (err) {
    await terminate(child);
    throw err;
  }
}

/** A WARC file of HTTP exchanges: per host, `pages` HTML pages (200), plus a 404 and an image that are not pages. */
async function writeWarc(file: string, hosts: Record<string, number>): Promise<void> {
  const parts: Uint8Array[] = [];
  const capture = (url: string, status: number, type: string): HttpCapture => ({
    url,
    date: '2024-05-20T14:00:00Z',
    status,
    statusText: status === 200 ? 'OK' : 'Not Found',
    headers: [['Content-Type', type]],
    payload: new TextEncoder().encode(type.startsWith('text/html') ? `<html><title>${url}</title></html>` : 'x'),
  });
  for (const [host, pages] of Object.entries(hosts)) {
    for (let i = 0; i < pages; i++)
      parts.push(
        await serializeExchange(capture(`https://${host}/p${i}`, 200, 'text/html; charset=utf-8'), { gzip: true }),
      );
    parts.push(await serializeExchange(capture(`https://${host}/missing`, 404, 'text/html'), { gzip: true }));
    parts.push(await serializeExchange(capture(`https://${host}/logo.png`, 200, 'image/png'), { gzip: true }));
  }
  writeFileSync(file, Buffer.concat(parts));
}

// Servers one at a time (each waits on its own start-up line); the quick failures below run side by side.
describe('agent-api start and serve', { timeout: 420_000 }, () => {
  it('start --port P serves /healthz on P (over AGENT_API_PORT) and its first screen prints that URL and the offline web', async () => {
    const db = newDb(temps);
    const [port, other] = [await freePort(), await freePort()];
    const s = await startServer(db, ['start', '--port', String(port), '--host', '127.0.0.1'], {
      AGENT_API_PORT: String(other),
    });
    try {
      expect(s.url).toBe(`http://127.0.0.1:${port}`);
      const res = await fetch(`${s.url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok' });
      const out = s.stdout();
      // The key and the connection snippets, with the port actually served.
      expect(out).toMatch(/aapi_[0-9A-Za-z]{36}/);
      expect(out).toContain(`"url": "http://127.0.0.1:${port}/mcp"`);
      expect(out).toContain(`http://127.0.0.1:${port}/api/agent/v1/usage`);
      expect(out).not.toContain(`:${other}`);
      // The stdio entry names this Node and this checkout's launcher (test/cli/snippet.test.ts starts it as printed).
      expect(printedStdioEntry(out)).toEqual({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: { AGENT_API_KEY: expect.stringMatching(/^aapi_/) as unknown, AGENT_API_DB: db },
      });
      // What the offline web covers: the sample archive, its size, its topics, and how to go further.
      expect(out).toContain(`Offline web: the sample archive at ${SAMPLE_ARCHIVE_PATH.replace(/\/$/, '')}`);
      expect(out).toMatch(/1 WARC file, 64 pages on 33 sites/);
      expect(out).toContain('Emergency plumbing / water heaters (Austin, TX): "emergency plumber"');
      expect(out).toContain('Python asyncio');
      expect(out).toContain('npx agent-api archive add URL... --out FILE.warc.gz');
      expect(out).toContain('AGENT_API_WEB_ARCHIVE');
      expect(out).toMatch(/SERP_PROVIDER=dataforseo or serpapi, LLM_PROVIDER=openai or anthropic/);
      expect(out).toContain('Now: SERP_PROVIDER=archive, LLM_PROVIDER=extractive.');
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('start and serve default to AGENT_API_HOST and AGENT_API_PORT; a user WARC without a manifest shows its top hosts', async () => {
    const tmp = tempDir('agent-api-start-');
    temps.push(tmp.cleanup);
    const warc = join(tmp.dir, 'mine.warc.gz');
    await writeWarc(warc, { 'docs.example.org': 3, 'blog.example.net': 1 });
    const port = await freePort();
    const env = { AGENT_API_HOST: 'localhost', AGENT_API_PORT: String(port), AGENT_API_WEB_ARCHIVE: warc };
    const s = await startServer(tmp.dbPath, ['start'], env);
    try {
      expect(s.url).toBe(`http://localhost:${port}`);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
      const out = s.stdout();
      expect(out).toContain(`"url": "http://localhost:${port}/mcp"`);
      expect(out).toContain(`Offline web: AGENT_API_WEB_ARCHIVE=${warc} (1 WARC file, 4 pages on 2 sites).`);
      expect(out).toContain('Top hosts: docs.example.org (3), blog.example.net (1)');
      expect(out).not.toContain('Topics');
    } finally {
      expect(await s.stop()).toBe(0);
    }

    // A second start on the same database creates nothing and says so; serve honours the same variables.
    const again = await startServer(tmp.dbPath, ['start'], env);
    try {
      expect(again.stdout()).toMatch(/using organisation [0-9a-f-]{36}/);
      expect(again.stdout()).not.toMatch(/aapi_[0-9A-Za-z]{36}/);
    } finally {
      expect(await again.stop()).toBe(0);
    }
    const served = await startServer(tmp.dbPath, ['serve'], env);
    try {
      expect(served.url).toBe(`http://localhost:${port}`);
      expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });
});

describe.concurrent('agent-api start and serve: bad listen options', { timeout: 120_000 }, () => {
  it('bad ports and hosts exit non-zero naming --port, --host or the variable, before anything is created', async () => {
    const db = newDb(temps);
    const [serveAbc, startHigh, startNegative, startFraction, emptyHost, envPort] = await Promise.all([
      cli(db, ['serve', '--port', 'abc']),
      cli(db, ['start', '--port', '65536']),
      cli(db, ['start', '--port', '-1']),
      cli(db, ['start', '--port', '80.5']),
      cli(db, ['start', '--host', '']),
      cli(db, ['start'], { AGENT_API_PORT: 'abc' }),
    ]);
    failed(serveAbc, /--port <port>' argument 'abc' is invalid\. expected an integer from 0 to 65535/);
    failed(startHigh, /--port .*'65536'.*0 to 65535/);
    failed(startNegative, /--port .*'-1'/);
    failed(startFraction, /--port .*'80\.5'/);
    failed(emptyHost, /--host/);
    failed(envPort, /AGENT_API_PORT/);
    expect(envPort.code).toBe(2);
    const { existsSync } = await import('node:fs');
    expect(existsSync(db)).toBe(false);
  });

  it('a port in use is a clear error naming the address, not a stack trace', async () => {
    const db = newDb(temps);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await cli(db, ['serve', '--port', String(port)], { AGENT_API_LOG_LEVEL: 'silent' });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} .*EADDRINUSE`));
      expect(r.stderr).not.toMatch(/\n\s+at .*\.ts:\d+/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('what the offline web covers (the start screen)', () => {
  const providers = loadConfig({});

  it('the sample archive: page and site counts from its WARC, topics with queries from its README table', async () => {
    const s = await describeOfflineWeb({ AGENT_API_WEB_ARCHIVE: undefined });
    expect(s).toMatchObject({ sample: true, files: 1, pages: 64, sites: 33, other: null });
    expect(s.topics.map((t) => t.name)).toEqual([
      'Emergency plumbing / water heaters (Austin, TX)',
      'Espresso machines',
      'Sourdough baking',
      'Home solar and heat pumps',
      'Python asyncio',
    ]);
    expect(s.topics[0]!.queries.slice(0, 2)).toEqual(['emergency plumber', 'emergency plumber austin']);
    const lines = formatOfflineWeb(s, providers);
    expect(lines[0]).toMatch(/every site invented for demos/);
  });

  it('a folder with the sample and another WARC: topics for the sample, top hosts for the rest', async () => {
    const tmp = tempDir('agent-api-archive-');
    temps.push(tmp.cleanup);
    mkdirSync(join(tmp.dir, 'pages'));
    copyFileSync(join(SAMPLE_ARCHIVE_PATH, 'sample.warc.gz'), join(tmp.dir, 'sample.warc.gz'));
    copyFileSync(join(SAMPLE_ARCHIVE_PATH, 'pages', 'manifest.json'), join(tmp.dir, 'pages', 'manifest.json'));
    copyFileSync(join(SAMPLE_ARCHIVE_PATH, 'README.md'), join(tmp.dir, 'README.md'));
    await writeWarc(join(tmp.dir, 'added.warc.gz'), { 'shop.example.com': 2 });
    const s = await describeOfflineWeb({ AGENT_API_WEB_ARCHIVE: tmp.dir });
    expect(s).toMatchObject({ sample: false, files: 2, pages: 66, sites: 34 });
    expect(s.topics).toHaveLength(5);
    expect(s.other).toEqual({ pages: 2, hosts: [{ host: 'shop.example.com', pages: 2 }] });
    const lines = formatOfflineWeb(s, providers).join('\n');
    expect(lines).toContain('Also 2 pages from other files; top hosts: shop.example.com (2)');
    expect(lines).not.toContain('invented');

    // A manifest's own `topics` win over the README.
    writeFileSync(
      join(tmp.dir, 'pages', 'manifest.json'),
      JSON.stringify({ topics: [{ name: 'Plumbing', queries: ['plumber'] }, 'Coffee'] }),
    );
    const own = await describeOfflineWeb({ AGENT_API_WEB_ARCHIVE: tmp.dir });
    expect(own.topics).toEqual([
      { name: 'Plumbing', queries: ['plumber'] },
      { name: 'Coffee', queries: [] },
    ]);
  });

  it('a missing path, an empty folder and an archive over the counting limit are described, never thrown', async () => {
    const tmp = tempDir('agent-api-archive-');
    temps.push(tmp.cleanup);
    const missing = await describeOfflineWeb({ AGENT_API_WEB_ARCHIVE: join(tmp.dir, 'nope.warc.gz') });
    expect(missing.error).toMatch(/ENOENT/);
    expect(formatOfflineWeb(missing, providers)[0]).toMatch(/nope\.warc\.gz cannot be read \(ENOENT/);
    const empty = await describeOfflineWeb({ AGENT_API_WEB_ARCHIVE: tmp.dir });
    expect(formatOfflineWeb(empty, providers)[0]).toMatch(/holds no \.warc or \.warc\.gz files/);
    const large = await describeOfflineWeb({ AGENT_API_WEB_ARCHIVE: undefined }, { countLimitBytes: 1 });
    expect(large).toMatchObject({ files: 1, pages: null, topics: [] });
    expect(formatOfflineWeb(large, providers)[0]).toMatch(
      /1 WARC file, 0\.\d MB; too large to count its pages at start/,
    );
  });

  it('names the configured providers and whether fetches may go live', () => {
    const s = { path: '/a', sample: false, files: 0, bytes: 0, pages: null, sites: null, topics: [], other: null };
    const real = loadConfig({
      SERP_PROVIDER: 'serpapi',
      SERPAPI_API_KEY: 'k',
      LLM_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'k',
      AGENT_API_OFFLINE: '1',
    });
    const text = formatOfflineWeb(s, real).join('\n');
    expect(text).toContain('Organic search results come from SERP_PROVIDER=serpapi');
    expect(text).toContain('never go live (AGENT_API_OFFLINE=1)');
    expect(text).toContain('Now: SERP_PROVIDER=serpapi, LLM_PROVIDER=anthropic.');
  });

  it('reads topic tables from markdown, escaped pipes included, and ignores documents without one', () => {
    const md = [
      '# x',
      '',
      '| Topic | sites | demo queries |',
      '|---|---|---|',
      '| A \\| B | a.com | `q1`, `q2` |',
      '| C | c.com | |',
      '',
      'after',
    ];
    expect(topicsFromReadme(md.join('\n'))).toEqual([
      { name: 'A | B', queries: ['q1', 'q2'] },
      { name: 'C', queries: [] },
    ]);
    expect(topicsFromReadme('# no table\n| a | b |\n|---|---|\n| 1 | 2 |')).toEqual([]);
  });
});
