import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { Agent, ProxyAgent, getGlobalDispatcher, request, setGlobalDispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createSafeFetcher,
  parseAllowList,
  type AllowList,
  type SafeFetcher,
} from '../../../src/providers/web/safe-fetch.ts';
import { nextHop } from '../../../src/providers/web/safe-redirect.ts';
import { FetchError } from '../../../src/providers/types.ts';
import { startCanary, startPageServer, type Canary, type PageServer } from '../../helpers/canary.ts';
import { SSRF_DNS_CASES, ssrfDnsTable, ssrfUrlCases, stubLookup, type StubLookup } from '../../helpers/ssrf-cases.ts';

/**
 * docs/reliability.md section E through the fetcher. The canary listens on 127.0.0.1 and ::1; every URL that would
 * reach it if a guard failed carries its port, and the canary must never see a connection. The page server stands
 * in for "a public site": it is reachable only because its host:port is on the allow-list.
 */

let canary: Canary;
let server: PageServer;
const fetchers: SafeFetcher[] = [];

function fetcherWith(options: { allow?: string[]; lookup?: StubLookup; autoSelectFamily?: boolean } = {}): SafeFetcher {
  const allow: AllowList = parseAllowList([`127.0.0.1:${server.port}`, ...(options.allow ?? [])]);
  const f = createSafeFetcher({
    allow,
    lookup: options.lookup ?? stubLookup(ssrfDnsTable()),
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 5_000,
    ...(options.autoSelectFamily === undefined ? {} : { autoSelectFamily: options.autoSelectFamily }),
  });
  fetchers.push(f);
  return f;
}

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

function redirect(res: ServerResponse, location: string) {
  res.writeHead(302, { location, 'content-type': 'text/plain' });
  res.end('moved');
}

let fiftyMbWritten = 0;

beforeAll(async () => {
  canary = await startCanary();
  server = await startPageServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const c = canary.port;
    const routes: Record<string, () => void> = {
      '/to-canary': () => redirect(res, `http://127.0.0.1:${c}/`),
      '/to-canary-v6': () => redirect(res, `http://[::1]:${c}/`),
      '/to-canary-decimal': () => redirect(res, `http://2130706433:${c}/`),
      '/protocol-relative': () => redirect(res, '//127.0.0.1/'),
      '/protocol-relative-port': () => redirect(res, `//127.0.0.1:${c}/`),
      '/to-metadata': () => redirect(res, 'http://169.254.169.254/latest/meta-data/'),
      '/to-file': () => redirect(res, 'file:///etc/passwd'),
      '/to-userinfo': () => redirect(res, `http://user:pass@127.0.0.1:${server.port}/html`),
      '/fifty-mb': () => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (fiftyMbWritten < 50 * 1024 * 1024 && !res.destroyed) {
            fiftyMbWritten += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        pump();
      },
    };
    const route = routes[path];
    if (route) return route();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<p>page ${path}</p>`);
  });
});

afterEach(() => {
  expect(canary.targets).toEqual([]);
});

afterAll(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await server.close();
  await canary.close();
});

describe('E: URL-level cases through the fetcher (no DNS query, no connection)', () => {
  const ids = ['E.43', 'E.44', 'E.45', 'E.46', 'E.47', 'E.48', 'E.49', 'E.50', 'E.51', 'E.52', 'E.58', 'E.59'];
  it.each(ids)('%s every URL is refused before any I/O and the canary sees nothing', async (id) => {
    const lookup = stubLookup(ssrfDnsTable());
    const fetcher = fetcherWith({ lookup });
    const cases = ssrfUrlCases(canary.port).filter((c) => c.id === id);
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const err = await failure(fetcher.fetch(c.url));
      expect(err.code, c.url).toBe(c.code);
    }
    expect(lookup.calls).toEqual([]);
    expect(canary.connections).toBe(0);
  });
});

describe('E: DNS-time cases', () => {
  it('E.53 a public-looking name resolving to 127.0.0.1 is blocked at connect; canary untouched', async () => {
    const lookup = stubLookup(ssrfDnsTable());
    // The URL itself is allow-listed so only the DNS check stands between the request and the canary.
    const fetcher = fetcherWith({ lookup, allow: [`loopback.example.com:${canary.port}`] });
    const err = await failure(fetcher.fetch(`http://loopback.example.com:${canary.port}/`));
    expect(err.code).toBe('blocked');
    expect(err.message).toMatch(/loopback/);
    expect(lookup.calls).toEqual(['loopback.example.com']);
    expect(canary.connections).toBe(0);
  });

  it('E.53 a name resolving to the metadata address is blocked (check without connecting)', async () => {
    const fetcher = fetcherWith();
    expect((await failure(fetcher.check('http://metadata.example.com/'))).code).toBe('blocked');
    expect((await failure(fetcher.fetch('http://metadata.example.com/latest/meta-data/'))).code).toBe('blocked');
  });

  it('E.54 one private answer among public ones rejects the whole name', async () => {
    const fetcher = fetcherWith();
    for (const host of ['mixed.example.com', 'mixed6.example.com']) {
      const err = await failure(fetcher.check(`https://${host}/`));
      expect(err.code, host).toBe('blocked');
    }
  });

  it('E.54 a mixed answer never connects, not even to the good address', async () => {
    // 127.0.0.1:P (allowed, the page server) plays the public answer; 127.0.0.2:P (a canary) the private one.
    const inside = await startCanary({ hosts: ['127.0.0.2'], port: server.port });
    try {
      const lookup = stubLookup({
        'mixed.example.com': [
          { address: '127.0.0.1', family: 4 },
          { address: '127.0.0.2', family: 4 },
        ],
      });
      const fetcher = fetcherWith({ lookup, allow: [`mixed.example.com:${server.port}`] });
      const before = server.requests.length;
      const err = await failure(fetcher.fetch(`http://mixed.example.com:${server.port}/`));
      expect(err.code).toBe('blocked');
      expect(server.requests.length).toBe(before);
      expect(inside.connections).toBe(0);
    } finally {
      await inside.close();
    }
  });

  it('E.55 DNS rebinding: the connection goes to the address that was checked, from a single query', async () => {
    // First answer 127.0.0.1 (allowed: the "public" page server), every later answer 127.0.0.2 (a canary).
    const inside = await startCanary({ hosts: ['127.0.0.2'], port: server.port });
    try {
      const table = {
        'rebind.example.com': [[{ address: '127.0.0.1', family: 4 }], [{ address: '127.0.0.2', family: 4 }]],
      };
      const lookup = stubLookup(table);
      const allow = [`rebind.example.com:${server.port}`];
      const fetcher = fetcherWith({ lookup, allow });
      const page = await fetcher.fetch(`http://rebind.example.com:${server.port}/rebound`);
      expect(page).toMatchObject({ status: 200, body: '<p>page /rebound</p>' });
      expect(lookup.calls).toEqual(['rebind.example.com']);
      expect(server.headers.at(-1)?.host).toBe(`rebind.example.com:${server.port}`);
      expect(inside.connections).toBe(0);

      // A new connection asks again, gets the rebound answer, and is refused.
      const fresh = fetcherWith({ lookup, allow });
      expect((await failure(fresh.fetch(`http://rebind.example.com:${server.port}/rebound`))).code).toBe('blocked');
      expect(lookup.calls).toEqual(['rebind.example.com', 'rebind.example.com']);
      expect(inside.connections).toBe(0);
    } finally {
      await inside.close();
    }
  });

  it('E.55 the classic case (public, then 127.0.0.1) is checked on the answer actually used', async () => {
    const lookup = stubLookup(ssrfDnsTable());
    const fetcher = fetcherWith({ lookup });
    const { addresses } = await fetcher.check('http://rebind.example.com/');
    expect(addresses).toEqual(['93.184.216.34']);
    expect((await failure(fetcher.check('http://rebind.example.com/'))).code).toBe('blocked');
  });

  it.each([true, false])(
    'E.56 an AAAA-only name resolving to ::1 is blocked (autoSelectFamily %s)',
    async (autoSelectFamily) => {
      const lookup = stubLookup(ssrfDnsTable());
      const allow = [`aaaa-only.example.com:${canary.port}`, `mapped.example.com:${canary.port}`];
      const fetcher = fetcherWith({ lookup, allow, autoSelectFamily });
      for (const host of ['aaaa-only.example.com', 'mapped.example.com']) {
        expect((await failure(fetcher.fetch(`http://${host}:${canary.port}/`))).code, host).toBe('blocked');
      }
      expect(canary.connections).toBe(0);
    },
  );

  it('E.56 control: with [::1] on the allow-list the same request does reach a listener, so the test can fail', async () => {
    const control = await startCanary({ hosts: ['::1'] });
    try {
      const lookup = stubLookup({ 'aaaa-only.example.com': [{ address: '::1', family: 6 }] });
      const fetcher = fetcherWith({
        lookup,
        allow: [`aaaa-only.example.com:${control.port}`, `[::1]:${control.port}`],
      });
      expect((await failure(fetcher.fetch(`http://aaaa-only.example.com:${control.port}/`))).code).toBe('network');
      expect(control.targets).toEqual([`::1:${control.port}`]);
    } finally {
      await control.close();
    }
  });

  it('E.53-E.56 the shared DNS cases are all blocked by check()', async () => {
    const fetcher = fetcherWith();
    for (const c of SSRF_DNS_CASES) {
      if (c.id === 'E.55') continue; // its first answer is public by design; covered above
      expect((await failure(fetcher.check(`http://${c.host}/`))).code, `${c.id} ${c.host}`).toBe('blocked');
    }
  });
});

describe('E.57 redirects are re-checked on every hop', () => {
  it.each([
    ['/to-canary', 'blocked'],
    ['/to-canary-v6', 'blocked'],
    ['/to-canary-decimal', 'blocked'],
    ['/protocol-relative', 'blocked'],
    ['/protocol-relative-port', 'blocked'],
    ['/to-metadata', 'blocked'],
    ['/to-userinfo', 'blocked'],
    ['/to-file', 'unsupported_scheme'],
  ])('E.57 %s is refused at hop 2 and the canary is untouched', async (path, code) => {
    const lookup = stubLookup({});
    const fetcher = fetcherWith({ lookup });
    const before = server.requests.length;
    const err = await failure(fetcher.fetch(`${server.origin}${path}`));
    expect(err.code).toBe(code);
    // Refused by the per-hop check itself, not only by the connect-time lock behind it.
    expect(err.message).toMatch(/^redirect target refused/);
    expect(err.url).toBe(`${server.origin}${path}`);
    expect(server.requests.length - before).toBe(1);
    expect(lookup.calls).toEqual([]);
    expect(canary.connections).toBe(0);
  });

  it('E.57 Location: //127.0.0.1/ resolves against the current URL before the check', () => {
    const current = new URL('http://example.com/a');
    expect(() => nextHop(current, '//127.0.0.1/', current.href)).toThrow(/127\.0\.0\.1/);
    expect(nextHop(current, '//example.org/b', current.href).href).toBe('http://example.org/b');
    expect(nextHop(current, '/c?d', current.href).href).toBe('http://example.com/c?d');
  });

  it('E.57 an https to http downgrade is refused, even to a public host', () => {
    const current = new URL('https://example.com/');
    let err: unknown;
    try {
      nextHop(current, 'http://example.com/plain', current.href);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FetchError);
    expect(err).toMatchObject({ code: 'blocked', message: expect.stringMatching(/https to http/) });
    expect(nextHop(current, 'https://example.org/', current.href).href).toBe('https://example.org/');
    expect(nextHop(new URL('http://example.com/'), 'https://example.com/', 'x').protocol).toBe('https:');
  });
});

describe('E.60 slow and huge responses', () => {
  let slowLoris: Server;
  let slowPort = 0;
  const slowSockets = new Set<Socket>();

  beforeAll(async () => {
    // Sends a status line, then one header byte at a time, forever.
    slowLoris = createServer((socket) => {
      slowSockets.add(socket);
      socket.on('error', () => undefined);
      socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
      const timer = setInterval(() => socket.write('a'), 25);
      socket.on('close', () => {
        clearInterval(timer);
        slowSockets.delete(socket);
      });
    });
    await new Promise<void>((resolve) => slowLoris.listen(0, '127.0.0.1', resolve));
    slowPort = (slowLoris.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const s of slowSockets) s.destroy();
    await new Promise<void>((resolve) => slowLoris.close(() => resolve()));
  });

  it('E.60 slow-loris is aborted at the headers timeout, a 50 MB body at the size cap, and neither blocks other requests', async () => {
    const fetcher = createSafeFetcher({
      allow: parseAllowList([`127.0.0.1:${server.port}`, `127.0.0.1:${slowPort}`]),
      lookup: stubLookup({}),
      connectTimeoutMs: 200,
      headersTimeoutMs: 300,
    });
    fetchers.push(fetcher);
    const settled: string[] = [];
    const track = <T>(name: string, p: Promise<T>) =>
      p.then(
        (v) => (settled.push(name), v),
        (e: unknown) => {
          settled.push(name);
          throw e;
        },
      );
    const started = Date.now();
    const slow = track('slow', fetcher.fetch(`http://127.0.0.1:${slowPort}/`));
    const huge = track('huge', fetcher.fetch(`${server.origin}/fifty-mb`));
    const normal = track('normal', fetcher.fetch(`${server.origin}/ok`));

    expect((await normal).body).toBe('<p>page /ok</p>');
    const hugeErr = await failure(huge);
    const slowErr = await failure(slow);
    expect(hugeErr.code).toBe('too_large');
    expect(slowErr.code).toBe('timeout');
    expect(slowErr.message).toMatch(/headers/);
    expect(settled.indexOf('normal')).toBeLessThan(settled.indexOf('slow'));
    expect(Date.now() - started).toBeLessThan(5_000);
    // The server stopped being read long before 50 MB (socket buffers hold a few MB at most).
    expect(fiftyMbWritten).toBeLessThan(50 * 1024 * 1024);
    // The fetcher still works afterwards.
    expect((await fetcher.fetch(`${server.origin}/after`)).status).toBe(200);
  });
});

describe('E.61 proxies in the environment are ignored', () => {
  const saved: Record<string, string | undefined> = {};
  const names = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'NO_PROXY', 'no_proxy'];
  let previousDispatcher: ReturnType<typeof getGlobalDispatcher>;

  beforeAll(() => {
    for (const n of names) saved[n] = process.env[n];
    previousDispatcher = getGlobalDispatcher();
  });

  afterAll(() => {
    for (const n of names) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
    setGlobalDispatcher(previousDispatcher);
  });

  it('E.61 with HTTP_PROXY/HTTPS_PROXY and a proxying global dispatcher set, the request still goes direct', async () => {
    const proxyCanary = await startCanary({
      hosts: ['127.0.0.1'],
      reply: 'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    });
    try {
      const proxy = `http://127.0.0.1:${proxyCanary.port}`;
      for (const n of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY']) process.env[n] = proxy;
      delete process.env.NO_PROXY;
      delete process.env.no_proxy;
      setGlobalDispatcher(new ProxyAgent(proxy));
      const fetcher = fetcherWith();
      const before = server.requests.length;
      const page = await fetcher.fetch(`${server.origin}/direct`);
      expect(page.body).toBe('<p>page /direct</p>');
      expect(server.requests.length).toBe(before + 1);
      expect(proxyCanary.connections).toBe(0);

      // Control: a request through the global dispatcher does go to the proxy, so the setup is live.
      await expect(request(`${server.origin}/via-global`)).rejects.toThrow(/502/);
      expect(proxyCanary.connections).toBe(1);
    } finally {
      setGlobalDispatcher(new Agent());
      await proxyCanary.close();
    }
  });
});
