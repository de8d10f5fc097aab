import { once } from 'node:events';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveAdd, archiveLs, registerArchiveCommands } from '../../../src/cli/commands/archive.ts';
import type { ArchiveAddProgress } from '../../../src/cli/commands/archive.ts';
import { FetchError } from '../../../src/providers/types.ts';
import type { FetchedPage, PageFetcher } from '../../../src/providers/types.ts';
import { createWebArchive } from '../../../src/providers/web/archive/archive.ts';
import { createArchiveFetcher } from '../../../src/providers/web/archive/fetcher.ts';
import { readArchiveRecords } from '../../../src/providers/web/archive/reader.ts';

/** A plain PageFetcher over node's fetch, for loopback tests only (the SSRF-safe fetcher is the real one). */
function loopbackFetcher(now: () => string): PageFetcher {
  return {
    async fetch(url: string): Promise<FetchedPage> {
      let response: Response;
      try {
        response = await fetch(url, { redirect: 'follow' });
      } catch (err) {
        throw new FetchError(url.startsWith('http') ? 'network' : 'invalid_url', url, (err as Error).message);
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const contentType = headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? null;
      const charset = /charset=([^;]+)/i.exec(headers['content-type'] ?? '')?.[1] ?? 'utf-8';
      const text = contentType !== null && contentType.startsWith('text/');
      const decoder = new TextDecoder(charset);
      return {
        requestedUrl: url,
        url: response.url,
        status: response.status,
        headers,
        contentType,
        charset: decoder.encoding,
        body: text ? decoder.decode(bytes) : '',
        bytes: bytes.byteLength,
        fetchedAt: now(),
        source: 'live',
      };
    },
  };
}

describe('archive add and ls round trip through a loopback server', () => {
  let server: Server;
  let base: string;
  let dir: string;
  let visits = 0;
  let clock = Date.parse('2024-06-01T10:00:00.000Z');
  const now = () => new Date((clock += 1000)).toISOString();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'archive-capture-'));
    server = createServer((req, res) => {
      if (req.url === '/page') {
        visits++;
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-visit': String(visits) });
        res.end(
          `<html><head><title>Visit ${visits}</title></head><body><p>Crème brûlée number ${visits}</p></body></html>`,
        );
      } else if (req.url === '/latin') {
        res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' });
        res.end(Buffer.from('<p>Café olé</p>', 'latin1'));
      } else if (req.url === '/old') {
        res.writeHead(301, { location: '/page' });
        res.end();
      } else if (req.url === '/gone') {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<h1>Not here</h1>');
      } else if (req.url === '/logo.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
      } else {
        res.writeHead(500);
        res.end();
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('captures pages, reports each URL, and survives failures', async () => {
    const out = join(dir, 'captures', 'site.warc.gz');
    const events: ArchiveAddProgress[] = [];
    const result = await archiveAdd({
      urls: [
        `${base}/page`,
        `${base}/latin`,
        `${base}/old`,
        `${base}/gone`,
        `${base}/logo.png`,
        'nonsense://x',
        `${base}/page`,
      ],
      out,
      fetcher: loopbackFetcher(now),
      progress: (e) => events.push(e),
      now: () => Date.parse('2024-06-01T09:59:00.000Z'),
    });
    expect(result.captured.map((c) => [c.url.slice(base.length), c.status])).toEqual([
      ['/page', 200],
      ['/latin', 200],
      ['/old', 200],
      ['/gone', 404],
      ['/logo.png', 200],
    ]);
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]?.url).toBe('nonsense://x');
    expect(events.map((e) => [e.done, e.total, e.ok])).toEqual([
      [1, 6, true],
      [2, 6, true],
      [3, 6, true],
      [4, 6, true],
      [5, 6, true],
      [6, 6, false],
    ]);

    const rows = await archiveLs(out);
    expect(rows.map((r) => [r.url.slice(base.length), r.status, r.contentType])).toEqual([
      ['/page', 200, 'text/html'],
      ['/latin', 200, 'text/html'],
      ['/old', 302, null],
      ['/page', 200, 'text/html'],
      ['/gone', 404, 'text/html'],
      ['/logo.png', 200, 'image/png'],
    ]);
    expect(rows[0]?.bytes).toBe(
      Buffer.byteLength(`<html><head><title>Visit 1</title></head><body><p>Crème brûlée number 1</p></body></html>`),
    );
    expect(rows[0]?.date).toBe('2024-06-01T10:00:01.000Z');

    // The file is standard WARC: a warcinfo record, then request/response pairs with digests.
    const { gunzipSync } = await import('node:zlib');
    const text = gunzipSync(await readFile(out)).toString('latin1');
    expect(text.startsWith('WARC/1.1\r\n')).toBe(true);
    expect(text).toContain('WARC-Type: warcinfo');
    expect(text.match(/WARC-Type: request/g)).toHaveLength(6);
    expect(text).toMatch(/WARC-Payload-Digest: sha1:[A-Z2-7]{32}/);
    expect(text).toMatch(/WARC-Block-Digest: sha1:[A-Z2-7]{32}/);
    expect(text).toContain('WARC-Truncated: unspecified'); // the PNG body is not kept by PageFetcher

    const fetcher = createArchiveFetcher({
      archive: createWebArchive({ path: out, indexDir: join(dir, 'index') }),
      offline: true,
    });
    const page = await fetcher.fetch(`${base}/page`);
    expect(page.source).toBe('archive');
    expect(page.body).toContain('Crème brûlée number');
    expect(page.headers['x-visit']).toBeDefined();
    const latin = await fetcher.fetch(`${base}/latin`);
    expect(latin.body).toBe('<p>Café olé</p>');
    // The redirect the live fetcher followed is archived, so the old URL resolves offline too.
    const moved = await fetcher.fetch(`${base}/old`);
    expect(moved.status).toBe(200);
    expect(moved.url).toBe(`${base}/page`);
    expect((await fetcher.fetch(`${base}/gone`)).status).toBe(404);
    const { records } = await readArchiveRecords(out);
    expect(records).toHaveLength(6);
  });

  it('appends on a second run, and the newer capture wins', async () => {
    const out = join(dir, 'append.warc');
    await archiveAdd({ urls: [`${base}/page`], out, fetcher: loopbackFetcher(now) });
    const second = await archiveAdd({ urls: [`${base}/page`], out, fetcher: loopbackFetcher(now) });
    expect(second.captured).toHaveLength(1);
    const rows = await archiveLs(out);
    expect(rows).toHaveLength(2);
    const text = (await readFile(out)).toString('utf8');
    expect(text.match(/WARC-Type: warcinfo/g)).toHaveLength(2);
    const page = await createArchiveFetcher({
      archive: createWebArchive({ path: out, indexDir: join(dir, 'index') }),
      offline: true,
    }).fetch(`${base}/page`);
    expect(page.body).toContain(`Visit ${visits}`);
  });

  it('registers archive add and archive ls on a commander program', async () => {
    const out = join(dir, 'cli.warc.gz');
    const stdout: string[] = [];
    const stderr = new PassThrough();
    let stderrText = '';
    stderr.on('data', (chunk: Buffer) => (stderrText += chunk.toString('utf8')));
    const exitCodes: number[] = [];
    const program = new Command().exitOverride();
    registerArchiveCommands(program, {
      createFetcher: () => loopbackFetcher(now),
      stdout: (line) => stdout.push(line),
      stderr,
      setExitCode: (code) => exitCodes.push(code),
    });

    await program.parseAsync(['archive', 'add', `${base}/page`, `${base}/nope-500`, 'bad://url', '--out', out], {
      from: 'user',
    });
    expect(stdout).toEqual([`captured 2 of 3 URLs into ${out}`]);
    expect(stderrText).toContain('failed bad://url');
    expect(exitCodes).toEqual([1]);

    stdout.length = 0;
    await program.parseAsync(['archive', 'ls', out, '--json'], { from: 'user' });
    const rows = stdout.map((line) => JSON.parse(line) as { url: string; status: number });
    expect(rows.map((r) => [r.url.slice(base.length), r.status])).toEqual([
      ['/page', 200],
      ['/nope-500', 500],
    ]);

    stdout.length = 0;
    await program.parseAsync(['archive', 'ls', out], { from: 'user' });
    expect(stdout[0]).toMatch(/^STATUS\s+TYPE\s+BYTES\s+DATE\s+URL$/);
    expect(stdout).toHaveLength(3);
    expect(stdout[1]).toMatch(/^200\s+text\/html\s+\d+\s+2024-06-01T\S+\s+http:\/\/127\.0\.0\.1:\d+\/page$/);
  });
});
