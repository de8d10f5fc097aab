import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openKeptConnection, rawExchange, type RawAnswer } from '../helpers/raw-http.ts';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.ts';
import { tempDir } from '../helpers/temp.ts';

/**
 * docs/reliability.md, Hardening (I): slow and hostile connections and the answers of the HTTP server library itself.
 * Every socket here goes to loopback only; every loop is bounded in count and in time.
 */

/** The API's error answer, written by the app or by the server around it: JSON body, request id, connection closed. */
function expectApiError(a: RawAnswer, status: number, code: string): void {
  expect(a.status, a.raw).toBe(status);
  expect(a.headers['content-type']).toMatch(/^application\/json/);
  expect(a.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  const body = a.json as { error?: { code?: unknown; message?: unknown } } | null;
  expect(body?.error?.code, a.raw).toBe(code);
  expect(typeof body?.error?.message).toBe('string');
  expect(a.closedByServer).toBe(true);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

describe('I. slow-loris flood against a real server process', () => {
  const HEADERS_TIMEOUT_MS = 1_000;
  const SOCKETS = 2_000;
  const ADDRESSES = 20; // 127.0.0.2 .. 127.0.0.21, 100 sockets each: under the per-address limit (256)
  const DRIP_MS = 500;
  /**
   * Above the header timeout: the sweep interval (min(1 s, timeout / 2)) plus a loaded machine, where the server also
   * accepts and parses the 2,000 connections while the first ones time out.
   */
  const SLACK_MS = 8_000;
  let tmp: ReturnType<typeof tempDir>;
  let server: SpawnedServer;

  beforeAll(async () => {
    tmp = tempDir();
    server = await spawnServer({
      AGENT_API_DB: tmp.dbPath,
      AGENT_API_LOG_LEVEL: 'warn',
      AGENT_API_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await server?.terminate();
    tmp?.cleanup();
  });

  it('I.20 2,000 sockets dripping an incomplete header a byte at a time are answered 408 and closed within the header timeout; /healthz keeps answering', async () => {
    const { port, host } = new URL(server.url);
    type Drip = { socket: net.Socket; firstByteAt: number; closedAt: number | null; raw: string; error: string | null };
    const drips: Drip[] = [];
    const connectErrors: string[] = [];

    // Real requests from 127.0.0.1 throughout the flood.
    const probes: Array<{ status: number; ms: number }> = [];
    let flooding = true;
    const probing = (async () => {
      for (let i = 0; flooding && i < 400; i++) {
        const t0 = performance.now();
        try {
          const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
          await res.text();
          probes.push({ status: res.status, ms: performance.now() - t0 });
        } catch {
          probes.push({ status: 0, ms: performance.now() - t0 });
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    // Open the sockets in batches (the listen backlog is finite), each sending the start of a request at once.
    const floodStart = performance.now();
    const BATCH = 250;
    for (let b = 0; b < SOCKETS / BATCH; b++) {
      await Promise.all(
        Array.from({ length: BATCH }, (_, j) => {
          const i = b * BATCH + j;
          const localAddress = `127.0.0.${2 + (i % ADDRESSES)}`;
          return new Promise<void>((resolve) => {
            const socket = net.connect({ host: '127.0.0.1', port: Number(port), localAddress });
            const limit = setTimeout(() => {
              connectErrors.push('connect timeout');
              socket.destroy();
              resolve();
            }, 10_000);
            socket.setEncoding('latin1');
            socket.once('error', (e: NodeJS.ErrnoException) => {
              if (!socket.connecting) return;
              connectErrors.push(e.code ?? e.message);
              clearTimeout(limit);
              resolve();
            });
            socket.once('connect', () => {
              clearTimeout(limit);
              const drip: Drip = { socket, firstByteAt: performance.now(), closedAt: null, raw: '', error: null };
              socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nX-Drip: `);
              socket.on('data', (d: string) => (drip.raw += d));
              socket.on('error', (e: NodeJS.ErrnoException) => (drip.error = e.code ?? e.message));
              socket.once('close', () => (drip.closedAt = performance.now()));
              drips.push(drip);
              resolve();
            });
          });
        }),
      );
    }
    const allOpenAt = performance.now();

    // One byte per socket per tick, never the end of the headers.
    const dripping = setInterval(() => {
      for (const d of drips) if (d.closedAt === null && d.socket.writable && !d.raw) d.socket.write('a');
    }, DRIP_MS);
    const deadline = allOpenAt + HEADERS_TIMEOUT_MS + SLACK_MS + 5_000;
    while (drips.some((d) => d.closedAt === null) && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    clearInterval(dripping);
    flooding = false;
    await probing;
    for (const d of drips) d.socket.destroy();

    const lifetimes = drips.map((d) => (d.closedAt ?? Infinity) - d.firstByteAt);
    const lastClosedAt = Math.max(...drips.map((d) => d.closedAt ?? Infinity));
    const answered408 = drips.filter((d) => d.raw.startsWith('HTTP/1.1 408 ')).length;
    const figures = {
      sockets: drips.length,
      openingMs: Math.round(allOpenAt - floodStart),
      maxLifetimeMs: Math.round(Math.max(...lifetimes)),
      medianLifetimeMs: Math.round(median(lifetimes)),
      allDroppedAfterLastOpenedMs: Math.round(lastClosedAt - allOpenAt),
      answered408,
      probes: probes.length,
      probeFailures: probes.filter((p) => p.status !== 200).length,
      probeMaxMs: Math.round(Math.max(...probes.map((p) => p.ms))),
    };
    console.info('I.20 slow-loris figures', JSON.stringify(figures));

    expect(connectErrors).toEqual([]);
    expect(drips).toHaveLength(SOCKETS);
    expect(drips.filter((d) => d.closedAt === null)).toHaveLength(0);
    expect(figures.maxLifetimeMs).toBeLessThanOrEqual(HEADERS_TIMEOUT_MS + SLACK_MS);
    // Dropped by the header timeout, not before it.
    expect(Math.min(...lifetimes)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    // The answer is the API's error body (a socket that was still writing when it closed may miss it).
    expect(answered408).toBeGreaterThanOrEqual(SOCKETS * 0.99);
    const one = drips.find((d) => d.raw.startsWith('HTTP/1.1 408 '))!;
    expect(one.raw).toMatch(/x-request-id: \S+/i);
    expect(JSON.parse(one.raw.slice(one.raw.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { code: 'invalid_input' },
    });
    expect(probes.length).toBeGreaterThanOrEqual(5);
    expect(figures.probeFailures).toBe(0);
  }, 90_000);
});

describe('I. connection limits', () => {
  it('I.21 the per-address limit closes the (limit+1)th connection from one address at once; other addresses and freed slots are served', async () => {
    const t = await startTestApp({ env: { AGENT_API_MAX_CONNECTIONS_PER_ADDRESS: '20' } });
    const hostHeader = `127.0.0.1:${t.port}`;
    const kept: net.Socket[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const c = await openKeptConnection(t.port, hostHeader, '127.0.0.9');
        expect(c.status).toBe(200);
        kept.push(c.socket);
      }
      const refused = await rawExchange(t.port, `GET /healthz HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`, {
        localAddress: '127.0.0.9',
        timeoutMs: 3_000,
      });
      expect(refused.closedByServer).toBe(true);
      expect(refused.raw).toBe('');
      // Another address is not affected.
      const other = await openKeptConnection(t.port, hostHeader, '127.0.0.10');
      expect(other.status).toBe(200);
      other.socket.destroy();
      // A closed connection frees its slot.
      kept.pop()!.destroy();
      let again: number | null = null;
      for (let i = 0; i < 40 && again !== 200; i++) {
        await new Promise((r) => setTimeout(r, 25));
        const c = await openKeptConnection(t.port, hostHeader, '127.0.0.9').catch(() => null);
        again = c?.status ?? null;
        c?.socket.destroy();
      }
      expect(again).toBe(200);
    } finally {
      for (const s of kept) s.destroy();
      await t.close();
    }
  });

  it('I.22 AGENT_API_MAX_CONNECTIONS closes connections beyond the limit', async () => {
    const t = await startTestApp({ env: { AGENT_API_MAX_CONNECTIONS: '12' } });
    const hostHeader = `127.0.0.1:${t.port}`;
    const kept: net.Socket[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        const c = await openKeptConnection(t.port, hostHeader, `127.0.0.${30 + (i % 3)}`);
        expect(c.status).toBe(200);
        kept.push(c.socket);
      }
      const refused = await rawExchange(t.port, `GET /healthz HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`, {
        localAddress: '127.0.0.40',
        timeoutMs: 3_000,
      });
      expect(refused.closedByServer).toBe(true);
      expect(refused.raw).toBe('');
    } finally {
      for (const s of kept) s.destroy();
      await t.close();
    }
  });
});

describe('I. keep-alive and settings', () => {
  it('I.31 AGENT_API_KEEP_ALIVE_TIMEOUT_MS closes an idle keep-alive connection', async () => {
    const t = await startTestApp({ env: { AGENT_API_KEEP_ALIVE_TIMEOUT_MS: '300' } });
    try {
      const c = await openKeptConnection(t.port, `127.0.0.1:${t.port}`, '127.0.0.1');
      expect(c.status).toBe(200);
      const t0 = performance.now();
      for (let i = 0; i < 150 && !c.closed(); i++) await new Promise((r) => setTimeout(r, 20));
      expect(c.closed()).toBe(true);
      expect(performance.now() - t0).toBeLessThan(10_000);
    } finally {
      await t.close();
    }
  });

  it('I.32 the connection settings are validated at start-up, naming the variable', () => {
    const base = { AGENT_API_DB: ':memory:' };
    expect(loadConfig(base)).toMatchObject({
      AGENT_API_HEADERS_TIMEOUT_MS: 10_000,
      AGENT_API_REQUEST_TIMEOUT_MS: 60_000,
      AGENT_API_KEEP_ALIVE_TIMEOUT_MS: 5_000,
      AGENT_API_MAX_CONNECTIONS: 4_096,
      AGENT_API_MAX_CONNECTIONS_PER_ADDRESS: 256,
    });
    expect(() =>
      loadConfig({ ...base, AGENT_API_HEADERS_TIMEOUT_MS: '20000', AGENT_API_REQUEST_TIMEOUT_MS: '10000' }),
    ).toThrow(/AGENT_API_HEADERS_TIMEOUT_MS.*AGENT_API_REQUEST_TIMEOUT_MS/);
    expect(() =>
      loadConfig({ ...base, AGENT_API_HEADERS_TIMEOUT_MS: '20000', AGENT_API_REQUEST_TIMEOUT_MS: '0' }),
    ).not.toThrow();
    expect(() => loadConfig({ ...base, AGENT_API_MAX_CONNECTIONS_PER_ADDRESS: '0' })).toThrow(
      /AGENT_API_MAX_CONNECTIONS_PER_ADDRESS/,
    );
  });
});

describe('I. timeouts answer the API error body', () => {
  let t: TestApp;
  let hostHeader: string;
  beforeAll(async () => {
    t = await startTestApp({
      env: { AGENT_API_HEADERS_TIMEOUT_MS: '1000', AGENT_API_REQUEST_TIMEOUT_MS: '1500' },
    });
    hostHeader = `127.0.0.1:${t.port}`;
  });
  afterAll(() => t.close());

  it('I.23 headers that never complete, a silent connection and a body that stalls get 408 with the error body and X-Request-Id', async () => {
    const [slowHeaders, silent] = await Promise.all([
      rawExchange(t.port, `GET /healthz HTTP/1.1\r\nHost: ${hostHeader}\r\nX-Slow: a`),
      rawExchange(t.port, ''),
    ]);
    for (const a of [slowHeaders, silent]) {
      expectApiError(a, 408, 'invalid_input');
      expect(a.ms).toBeGreaterThanOrEqual(950);
      expect(a.ms).toBeLessThan(15_000);
    }
    const { key } = await t.tenant();
    const stalled = await rawExchange(
      t.port,
      `POST /api/agent/v1/optimize HTTP/1.1\r\nHost: ${hostHeader}\r\nAuthorization: Bearer ${key}\r\n` +
        `Idempotency-Key: stall-1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"url":`,
    );
    expectApiError(stalled, 408, 'invalid_input');
    expect(stalled.ms).toBeGreaterThanOrEqual(1_400);
    expect(stalled.ms).toBeLessThan(15_000);
  });

  it('I.24 the request timeout bounds receiving a request, not answering it: a long-poll outlives it', async () => {
    const { key } = await t.tenant('agency');
    // Nothing claims the run, so its status stays put and only the deadline ends the long-poll.
    await t.engine.runner.stop(0);
    const started = await t.request<{ optimization_id: string }>('POST', '/optimize', {
      key,
      body: { url: 'https://example.com/page', keyword: 'example keyword' },
      headers: { 'idempotency-key': 'long-poll-1' },
    });
    expect(started.status).toBe(202);
    const id = started.body.optimization_id;
    const t0 = performance.now();
    const polling = t.request<{ status: string }>('GET', `/optimizations/${id}`, {
      key,
      query: { wait_seconds: 10, view: 'status' },
    });
    // Well past the request timeout and its sweep in real time; then the long-poll's own deadline passes.
    await new Promise((r) => setTimeout(r, 2_500));
    t.clock.advance(10_000);
    const answered = await polling;
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('queued');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2_400);
  });
});

describe('I. answers of the HTTP server library carry the API error body', () => {
  let t: TestApp;
  let hostHeader: string;
  beforeAll(async () => {
    t = await startTestApp();
    hostHeader = `127.0.0.1:${t.port}`;
  });
  afterAll(() => t.close());

  const send = (data: string) => rawExchange(t.port, data, { timeoutMs: 3_000 });

  it('I.25 a Host or target @hono/node-server cannot make a URL of, or no Host at all, is 400 with the error body', async () => {
    const requests = [
      `GET /healthz HTTP/1.1\r\nHost: bad host\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nHost: [::1\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nHost: a%zz\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nHost: user@${hostHeader}\r\n\r\n`,
      `GET http://[bad/ HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`,
      `GET /a\\b HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`,
      `OPTIONS * HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\n\r\n`,
    ];
    for (const r of requests) {
      const a = await send(r);
      expectApiError(a, 400, 'invalid_input');
      expect(a.headers.connection).toBe('close');
    }
  });

  it("I.26 requests Node's parser refuses (method, version, line, header size, Expect, CONNECT) get the error body", async () => {
    const cases: Array<[string, number, string]> = [
      [`FOO /healthz HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`, 400, 'invalid_input'],
      [`GET /healthz HTTP/9.9\r\nHost: ${hostHeader}\r\n\r\n`, 400, 'invalid_input'],
      [`GET http://exa mple/ HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`, 400, 'invalid_input'],
      [`GET /healthz HTTP/1.1\r\nHost: ${hostHeader}\r\nX-Bad: a\x01b\r\n\r\n`, 400, 'invalid_input'],
      [`GET /healthz HTTP/1.1\r\nHost: ${hostHeader}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'invalid_input'],
      [`GET /healthz HTTP/1.1\r\nHost: ${hostHeader}\r\nExpect: teapot\r\n\r\n`, 417, 'invalid_input'],
      [`CONNECT ${hostHeader} HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`, 400, 'invalid_input'],
      [
        `POST /mcp HTTP/1.1\r\nHost: ${hostHeader}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        400,
        'invalid_input',
      ],
    ];
    for (const [request, status, code] of cases) expectApiError(await send(request), status, code);
    // The server is still healthy.
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});
