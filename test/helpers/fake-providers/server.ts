import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The shared loopback machinery behind every fake provider: records requests, injects faults (status N times,
 * requests that never answer), counts calls and executions per dedupe key, and replays the first successful answer
 * for a key it has seen, as a provider that honours idempotency would.
 */

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** Lower-case names, first value. */
  headers: Record<string, string>;
  rawBody: string;
  /** Parsed JSON body, or undefined when empty or not JSON. */
  body: unknown;
  /** What this fake dedupes on (idempotency key, DataForSEO tag, SerpApi query), or null. */
  key: string | null;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FakeHandler {
  /** The dedupe key of a request, or null when it has none. */
  keyOf(req: RecordedRequest): string | null;
  /** Auth and request-shape checks: an error reply like the real API's, or null when the request is valid. */
  check(req: RecordedRequest): Reply | null;
  /** The normal answer. */
  answer(req: RecordedRequest): Reply;
  /** The provider's error body for an injected status. */
  faultBody(status: number): unknown;
}

export interface FaultOptions {
  /** Retry-After header value (seconds or HTTP date). */
  retryAfter?: string;
  body?: unknown;
}

export interface FakeServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  /** Answer the next `times` requests with `status` (429, 500, 529, ...) before behaving normally. */
  failNext(status: number, times?: number, options?: FaultOptions): void;
  /** Accept the next `times` requests and never answer them. */
  hangNext(times?: number): void;
  /** HTTP requests seen with this dedupe key, failed ones included. */
  callsFor(key: string): number;
  /** Answers computed for this key (replays do not count): the "runs" a billing provider would charge. */
  runsFor(key: string): number;
  /** Answers computed in all. */
  readonly runs: number;
  /** Forget recorded requests, counters, replays and pending faults. */
  reset(): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: Reply): void {
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}

/** Starts a fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const calls = new Map<string, number>();
  const runs = new Map<string, number>();
  const replays = new Map<string, Reply>();
  let faults: Array<{ status: number } & FaultOptions> = [];
  let hangs = 0;
  let totalRuns = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const rawBody = await readBody(req);
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (v !== undefined) headers[k] = Array.isArray(v) ? (v[0] ?? '') : v;
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        rawBody,
        body,
        key: null,
      };
      recorded.key = handler.keyOf(recorded);
      requests.push(recorded);
      if (recorded.key !== null) calls.set(recorded.key, (calls.get(recorded.key) ?? 0) + 1);

      if (hangs > 0) {
        hangs--;
        return; // never answered; close() destroys the socket
      }
      const fault = faults.shift();
      if (fault) {
        send(res, {
          status: fault.status,
          body: fault.body ?? handler.faultBody(fault.status),
          headers: fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
        });
        return;
      }
      const invalid = handler.check(recorded);
      if (invalid) {
        send(res, invalid);
        return;
      }
      const replay = recorded.key !== null ? replays.get(recorded.key) : undefined;
      if (replay) {
        send(res, replay);
        return;
      }
      const reply = handler.answer(recorded);
      totalRuns++;
      if (recorded.key !== null) {
        runs.set(recorded.key, (runs.get(recorded.key) ?? 0) + 1);
        if (reply.status < 400) replays.set(recorded.key, reply);
      }
      send(res, reply);
    })().catch((err: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { error: String(err) } });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    failNext(status, times = 1, options = {}) {
      for (let i = 0; i < times; i++) faults.push({ status, ...options });
    },
    hangNext(times = 1) {
      hangs += times;
    },
    callsFor: (key) => calls.get(key) ?? 0,
    runsFor: (key) => runs.get(key) ?? 0,
    get runs() {
      return totalRuns;
    },
    reset() {
      requests.length = 0;
      calls.clear();
      runs.clear();
      replays.clear();
      faults = [];
      hangs = 0;
      totalRuns = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A minimal instance of a JSON Schema: required properties, first enum value, one array item. */
export function sampleFromSchema(schema: unknown, label = 'value'): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ('const' in s) return s.const;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : Object.keys(props);
      return Object.fromEntries(required.map((k) => [k, sampleFromSchema(props[k], k)]));
    }
    case 'array':
      return [sampleFromSchema(s.items, label)];
    case 'string':
      return `sample ${label}`;
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/** A clock fixed at 2025-05-26T10:00:00.000Z. */
export const fixedClock = { now: () => Date.UTC(2025, 4, 26, 10, 0, 0) };

/**
 * A fake API as test/providers/registry.test.ts finds it: each fake module exports one as `fakeApi`, saying how to
 * start it and which settings point a provider at it (its `<VENDOR>_BASE_URL` and credentials). The test walks the
 * provider definitions and fails for one that calls an API no fake here answers.
 */
export interface FakeApi {
  start(): Promise<{ server: FakeServer; settings: Readonly<Record<string, string>> }>;
}

/** A `fakeApi` from the fake's start function and the settings it answers to. */
export function defineFakeApi<F extends FakeServer>(
  start: () => Promise<F>,
  settings: (fake: F) => Record<string, string>,
): FakeApi {
  return {
    async start() {
      const server = await start();
      return { server, settings: settings(server) };
    },
  };
}
