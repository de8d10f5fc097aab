import type { IncomingMessage, ServerResponse } from 'node:http';
import { startPageServer, type PageServer } from '../../helpers/canary.ts';
import { startFakeSerpApi, type FakeSerpApi } from '../../helpers/fake-providers/serpapi.ts';
import { KEYWORD, competitorSpec, partialSpec, renderPage, thinSpec, thoroughSpec } from './pages.ts';

/**
 * A loopback "web" for Optimize: the target pages, ten competitor pages, a non-HTML, a 404 and a redirect-to-private
 * competitor, plus failure modes for the target (404, 503, connection reset). Paths can be held (the request waits
 * until released) to freeze a run mid-fetch, and a test can wait for requests to arrive without sleeping.
 *
 * Each competitor is its own site, as on the real web: competitor N is served from 127.0.0.(N+1) (Linux routes all
 * of 127.0.0.0/8 to the loopback interface), other /c/ paths from 127.0.0.30, and the targets from 127.0.0.1, so
 * Optimize's same-site and per-site rules see eleven sites. Every server shares one handler and one request log.
 */

export const COMPETITORS = 10;

export interface LoopbackWeb {
  readonly origin: string;
  readonly port: number;
  /** Every server's `HOST:PORT`, comma-separated, for AGENT_API_TEST_FETCH_ALLOW. */
  readonly allow: string;
  /** Request paths in order of arrival. */
  readonly requests: string[];
  url(path: string): string;
  /** Requests so far whose path starts with `prefix`. */
  count(prefix: string): number;
  /** Resolves once `n` requests whose path starts with `prefix` have arrived. */
  waitFor(prefix: string, n?: number): Promise<void>;
  /** Requests whose path starts with `prefix` wait until `release()`. */
  hold(prefix: string): void;
  /** Answers every held request and stops holding. */
  release(): void;
  /** The next `times` requests for `path` get their connection reset. */
  resetNext(path: string, times: number): void;
  close(): Promise<void>;
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

/** Starts the loopback web; `privatePort` is where the redirecting competitor points (a canary's port). */
export async function startLoopbackWeb(options: { privatePort?: number } = {}): Promise<LoopbackWeb> {
  const held: Array<() => void> = [];
  const holds = new Set<string>();
  const resets = new Map<string, number>();
  const waiters: Array<{ prefix: string; n: number; resolve: () => void }> = [];
  let origin = '';
  const requests: string[] = [];
  const count = (prefix: string) => requests.filter((p) => p.startsWith(prefix)).length;

  function answer(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    const pendingResets = resets.get(path) ?? 0;
    if (pendingResets > 0) {
      resets.set(path, pendingResets - 1);
      req.socket.destroy();
      return;
    }
    const html = (body: string, status = 200) => send(res, status, 'text/html; charset=utf-8', body);
    const competitor = /^\/c\/(\d+)$/.exec(path);
    if (competitor) {
      const i = Number(competitor[1]) - 1;
      if (i >= 0 && i < COMPETITORS) return html(renderPage(competitorSpec(i, siteOrigin(path))));
    }
    switch (path) {
      case '/target/thorough':
        return html(renderPage(thoroughSpec(origin)));
      case '/target/partial':
        return html(renderPage(partialSpec(origin)));
      case '/target/thin':
        return html(renderPage(thinSpec()));
      case '/target/error':
        return html('<html><body><h1>Service unavailable</h1></body></html>', 503);
      case '/target/reset':
        req.socket.destroy();
        return;
      case '/target/private':
        return send(res, 302, 'text/html', '', { location: `http://127.0.0.1:${options.privatePort ?? 9}/admin` });
      case '/c/pdf':
        return send(res, 200, 'application/pdf', Buffer.from('%PDF-1.4\n% emergency plumber price list\n%%EOF\n'));
      case '/c/private':
        return send(res, 302, 'text/html', '', {
          location: `http://127.0.0.1:${options.privatePort ?? 9}/latest/meta-data/`,
        });
      default:
        return html('<html><head><title>Not found</title></head><body><h1>Page not found</h1></body></html>', 404);
    }
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push(path);
    for (const w of waiters.splice(0)) {
      if (count(w.prefix) >= w.n) w.resolve();
      else waiters.push(w);
    }
    if ([...holds].some((p) => path.startsWith(p))) held.push(() => answer(req, res));
    else answer(req, res);
  };
  const server: PageServer = await startPageServer(handler);
  const sites: PageServer[] = [];
  for (let n = 1; n <= COMPETITORS; n += 1) sites.push(await startPageServer(handler, { host: `127.0.0.${n + 1}` }));
  const misc = await startPageServer(handler, { host: '127.0.0.30' });
  /** The origin that serves a path: competitor N its own site, other /c/ paths the misc site, the rest the main one. */
  function siteOrigin(path: string): string {
    const n = /^\/c\/(\d+)$/.exec(path);
    if (n && Number(n[1]) >= 1 && Number(n[1]) <= COMPETITORS) return sites[Number(n[1]) - 1]!.origin;
    return path.startsWith('/c/') ? misc.origin : origin;
  }
  origin = server.origin;
  const s = server;
  const all = [server, ...sites, misc];

  return {
    origin,
    port: s.port,
    allow: all.map((x) => `${x.host}:${x.port}`).join(','),
    requests,
    url: (path) => `${siteOrigin(path)}${path}`,
    count,
    waitFor(prefix, n = 1) {
      if (count(prefix) >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ prefix, n, resolve }));
    },
    hold(prefix) {
      holds.add(prefix);
    },
    release() {
      holds.clear();
      for (const fn of held.splice(0)) {
        try {
          fn();
        } catch {
          // the client went away while held (a killed server): nothing to answer
        }
      }
    },
    resetNext(path, times) {
      resets.set(path, (resets.get(path) ?? 0) + times);
    },
    close: async () => {
      await Promise.all(all.map((x) => x.close()));
    },
  };
}

/** The competitor paths a search for `keyword` returns, by default the ten good competitors. */
export type SerpPlan = Map<string, string[]>;

export interface LoopbackSerp {
  readonly fake: FakeSerpApi;
  /** Environment for SERP_PROVIDER=serpapi pointing at the fake. */
  readonly env: Record<string, string>;
  /** Results for one query (paths on the loopback web, or absolute URLs). */
  set(query: string, paths: string[]): void;
  /** Search requests the fake received for `query`. */
  calls(query: string): number;
  close(): Promise<void>;
}

export const GOOD_COMPETITORS: readonly string[] = Array.from({ length: COMPETITORS }, (_, i) => `/c/${i + 1}`);

/**
 * A SerpApi-format fake whose organic results point at the loopback web: `defaultPaths` for any query not `set`
 * (three competitors keep a run's scoring cheap; tests that need the full field set all ten).
 */
export async function startLoopbackSerp(
  web: LoopbackWeb,
  defaultPaths: readonly string[] = GOOD_COMPETITORS.slice(0, 3),
): Promise<LoopbackSerp> {
  const plan: SerpPlan = new Map();
  const fake = await startFakeSerpApi({
    respond: (query) => {
      const q = query.q ?? '';
      const paths = plan.get(q) ?? [...defaultPaths];
      return {
        search_metadata: { id: 'fake', status: 'Success' },
        search_parameters: { engine: 'google', q },
        organic_results: paths.map((p, n) => ({
          position: n + 1,
          title: `${q} result ${n + 1}`,
          link: p.startsWith('http') ? p : web.url(p),
          snippet: `About ${q}.`,
        })),
      };
    },
  });
  return {
    fake,
    env: { SERP_PROVIDER: 'serpapi', SERPAPI_API_KEY: fake.apiKey, SERPAPI_BASE_URL: fake.baseUrl },
    set: (query, paths) => void plan.set(query, paths),
    calls: (query) => fake.requests.filter((r) => r.query.q === query).length,
    close: () => fake.close(),
  };
}

export { KEYWORD };
