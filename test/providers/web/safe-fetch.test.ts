import type { ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSafeFetcher,
  DEFAULT_USER_AGENT,
  parseAllowList,
  type SafeFetcher,
} from '../../../src/providers/web/safe-fetch.ts';
import { FetchError } from '../../../src/providers/types.ts';
import { startPageServer, type PageServer } from '../../helpers/canary.ts';
import { stubLookup } from '../../helpers/ssrf-cases.ts';

const HTML = '<!doctype html><html><head><title>Café</title></head><body><p>naïve – “quotes”</p></body></html>';

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer | string) {
  res.writeHead(status, headers);
  res.end(body);
}

const routes: Record<string, (res: ServerResponse, origin: string, url: URL) => void> = {
  '/html': (res) => send(res, 200, { 'content-type': 'text/html; charset=utf-8' }, HTML),
  '/gzip': (res) => send(res, 200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }, gzipSync(HTML)),
  '/br': (res) => send(res, 200, { 'content-type': 'text/html', 'content-encoding': 'br' }, brotliCompressSync(HTML)),
  '/deflate': (res) =>
    send(res, 200, { 'content-type': 'text/html', 'content-encoding': 'deflate' }, deflateSync(HTML)),
  '/deflate-raw': (res) =>
    send(res, 200, { 'content-type': 'text/html', 'content-encoding': 'deflate' }, deflateRawSync(HTML)),
  '/gzip-br': (res) =>
    send(res, 200, { 'content-type': 'text/html', 'content-encoding': 'gzip, br' }, brotliCompressSync(gzipSync(HTML))),
  '/cp1252-gzip': (res) =>
    send(
      res,
      200,
      { 'content-type': 'text/html', 'content-encoding': 'gzip' },
      gzipSync(
        Buffer.from(
          '<html><head><meta charset="windows-1252"><title>Caf\xe9 \x93ok\x94</title></head></html>',
          'latin1',
        ),
      ),
    ),
  '/png': (res) => send(res, 200, { 'content-type': 'image/png' }, Buffer.alloc(4096, 0x89)),
  '/json': (res) => send(res, 200, { 'content-type': 'application/json' }, '{"a":"é"}'),
  '/missing': (res) => send(res, 404, { 'content-type': 'text/html' }, '<h1>Not here</h1>'),
  '/no-type': (res) => send(res, 200, {}, '<p>untyped</p>'),
  '/redirect-a': (res) => send(res, 302, { location: '/redirect-b' }, 'moved'),
  '/redirect-b': (res, origin) => send(res, 301, { location: `${origin}/html` }, ''),
  '/chain': (res, _origin, url) => {
    const n = Number(url.searchParams.get('n'));
    const end = Number(url.searchParams.get('end'));
    if (n >= end) return send(res, 200, { 'content-type': 'text/plain' }, `end ${n}`);
    send(res, 307, { location: `/chain?n=${n + 1}&end=${end}` }, '');
  },
  '/big': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('x'.repeat(800));
    res.end('y'.repeat(800));
  },
  '/declared-big': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(50 * 1024 * 1024) });
    res.write('x'.repeat(100));
  },
  '/bomb': (res) => send(res, 200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }, BOMB),
  '/corrupt-gzip': (res) =>
    send(res, 200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }, 'definitely not gzip'),
  '/zstd': (res) => send(res, 200, { 'content-type': 'text/html', 'content-encoding': 'zstd' }, 'whatever'),
  '/slow-body': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('.'), 20);
    res.on('close', () => clearInterval(timer));
  },
  '/hang': () => undefined,
};

// 20 MiB of zeros compresses to about 20 KiB: a decompression bomb against the 5 MiB default cap.
const BOMB = gzipSync(Buffer.alloc(20 * 1024 * 1024));

let server: PageServer;
let fetcher: SafeFetcher;
let onHang: (() => void) | undefined;
const lookup = stubLookup({});

beforeAll(async () => {
  server = await startPageServer((req, res) => {
    const url = new URL(req.url ?? '/', server.origin);
    if (url.pathname === '/hang') onHang?.();
    const route = routes[url.pathname];
    if (route) route(res, server.origin, url);
    else send(res, 404, { 'content-type': 'text/plain' }, 'no route');
  });
  fetcher = createSafeFetcher({ lookup, allow: parseAllowList([`127.0.0.1:${server.port}`]), bodyTimeoutMs: 5_000 });
});

afterAll(async () => {
  await fetcher.close();
  await server.close();
});

const at = (path: string) => `${server.origin}${path}`;

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe('safe fetcher: pages from an allow-listed loopback server', () => {
  it('returns a decoded HTML page with status, headers and metadata', async () => {
    const page = await fetcher.fetch(at('/html'));
    expect(page).toMatchObject({
      requestedUrl: at('/html'),
      url: at('/html'),
      status: 200,
      contentType: 'text/html',
      charset: 'utf-8',
      body: HTML,
      bytes: Buffer.byteLength(HTML),
      source: 'live',
    });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Date.parse(page.fetchedAt)).not.toBeNaN();
    expect(lookup.calls).toEqual([]);
  });

  it('sends a User-Agent naming the product and asks for compressed bodies', async () => {
    await fetcher.fetch(at('/html'));
    const headers = server.headers.at(-1);
    expect(headers?.['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(DEFAULT_USER_AGENT).toMatch(/^agent-api\//);
    expect(headers?.['accept-encoding']).toBe('gzip, deflate, br');
    expect(headers?.host).toBe(`127.0.0.1:${server.port}`);
  });

  it.each(['/gzip', '/br', '/deflate', '/deflate-raw', '/gzip-br'])('decodes %s', async (path) => {
    const page = await fetcher.fetch(at(path));
    expect(page.body).toBe(HTML);
    expect(page.bytes).toBe(Buffer.byteLength(HTML));
  });

  it('decodes windows-1252 declared by <meta charset> inside a gzip body', async () => {
    const page = await fetcher.fetch(at('/cp1252-gzip'));
    expect(page.charset).toBe('windows-1252');
    expect(page.body).toContain('<title>Café “ok”</title>');
  });

  it('returns status and headers but no body for binary types, without downloading it', async () => {
    const page = await fetcher.fetch(at('/png'));
    expect(page).toMatchObject({ status: 200, contentType: 'image/png', body: '', bytes: 0 });
  });

  it('decodes JSON and untyped bodies as text', async () => {
    expect((await fetcher.fetch(at('/json'))).body).toBe('{"a":"é"}');
    const untyped = await fetcher.fetch(at('/no-type'));
    expect(untyped).toMatchObject({ contentType: null, body: '<p>untyped</p>' });
  });

  it('returns error statuses as pages', async () => {
    const page = await fetcher.fetch(at('/missing'));
    expect(page).toMatchObject({ status: 404, body: '<h1>Not here</h1>' });
  });

  it('follows relative and absolute redirects inside the allow-list, re-checking each hop', async () => {
    const page = await fetcher.fetch(at('/redirect-a'));
    expect(page).toMatchObject({ requestedUrl: at('/redirect-a'), url: at('/html'), status: 200, body: HTML });
  });

  it('E.57 follows a chain of exactly 5 redirects', async () => {
    const page = await fetcher.fetch(at('/chain?n=1&end=6'));
    expect(page).toMatchObject({ status: 200, body: 'end 6', url: at('/chain?n=6&end=6') });
  });

  it('E.57 a 6-redirect chain fails with too_many_redirects', async () => {
    const before = server.requests.length;
    const err = await failure(fetcher.fetch(at('/chain?n=1&end=7')));
    expect(err.code).toBe('too_many_redirects');
    expect(err.url).toBe(at('/chain?n=1&end=7'));
    expect(server.requests.length - before).toBe(6);
  });

  it('caps the body while streaming (no Content-Length)', async () => {
    const small = createSafeFetcher({ lookup, allow: parseAllowList([`127.0.0.1:${server.port}`]), maxBytes: 1000 });
    try {
      expect((await failure(small.fetch(at('/big')))).code).toBe('too_large');
      expect((await small.fetch(at('/html'))).body).toBe(HTML);
    } finally {
      await small.close();
    }
  });

  it('refuses a declared Content-Length over the cap before reading', async () => {
    expect((await failure(fetcher.fetch(at('/declared-big')))).code).toBe('too_large');
  });

  it('counts decompressed bytes against the cap (gzip bomb)', async () => {
    const err = await failure(fetcher.fetch(at('/bomb')));
    expect(err.code).toBe('too_large');
    expect(err.message).toMatch(/5242880/);
  });

  it('reports corrupt and unsupported encodings as network errors', async () => {
    expect(await failure(fetcher.fetch(at('/corrupt-gzip')))).toMatchObject({
      code: 'network',
      message: expect.stringMatching(/gzip/),
    });
    expect(await failure(fetcher.fetch(at('/zstd')))).toMatchObject({
      code: 'network',
      message: expect.stringMatching(/zstd/),
    });
  });

  it('limits total body time even when bytes keep trickling', async () => {
    const slow = createSafeFetcher({ lookup, allow: parseAllowList([`127.0.0.1:${server.port}`]), bodyTimeoutMs: 150 });
    try {
      const started = Date.now();
      expect((await failure(slow.fetch(at('/slow-body')))).code).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await slow.close();
    }
  });

  it('gives up on connecting when resolution never answers', async () => {
    const hanging = createSafeFetcher({
      lookup: () => undefined,
      allow: parseAllowList([`hang.example:${server.port}`]),
      connectTimeoutMs: 150,
    });
    try {
      const started = Date.now();
      expect(await failure(hanging.fetch(`http://hang.example:${server.port}/html`))).toMatchObject({
        code: 'timeout',
        message: expect.stringMatching(/DNS/),
      });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await failure(hanging.check(`http://hang.example:${server.port}/html`))).toMatchObject({
        code: 'timeout',
      });
    } finally {
      await hanging.close();
    }
  });

  it("rejects with the caller's abort reason when the signal fires", async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    onHang = () => controller.abort(reason);
    try {
      await expect(fetcher.fetch(at('/hang'), { signal: controller.signal })).rejects.toBe(reason);
      await expect(fetcher.fetch(at('/html'), { signal: controller.signal })).rejects.toBe(reason);
    } finally {
      onHang = undefined;
    }
  });

  it('check() resolves an allowed URL without connecting', async () => {
    const before = server.requests.length;
    const { url, addresses } = await fetcher.check(at('/html'));
    expect(url.href).toBe(at('/html'));
    expect(addresses).toEqual(['127.0.0.1']);
    expect(server.requests.length).toBe(before);
  });

  it('throws FetchError codes for URLs checkUrl refuses', async () => {
    expect((await failure(fetcher.fetch('not a url'))).code).toBe('invalid_url');
    expect((await failure(fetcher.fetch('file:///etc/passwd'))).code).toBe('unsupported_scheme');
    expect((await failure(fetcher.fetch('http://localhost/'))).code).toBe('blocked');
  });
});
