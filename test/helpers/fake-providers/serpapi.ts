import { defineFakeApi, startFakeServer, type FakeServer } from './server.ts';

/**
 * A loopback SerpApi: GET /search.json with `api_key` in the query, engine=google (organic_results, inline_videos)
 * and engine=youtube (video_results), SerpApi's `{"error": ...}` bodies. Dedupes on the query without the key,
 * the way SerpApi's one-hour cache serves a repeated search.
 */

export type SerpApiBodyFn = (query: Record<string, string>) => Record<string, unknown>;

export interface FakeSerpApiOptions {
  apiKey?: string;
  respond?: SerpApiBodyFn;
}

export interface FakeSerpApi extends FakeServer {
  /** Pass as SERPAPI_BASE_URL. */
  readonly baseUrl: string;
  readonly apiKey: string;
  setRespond(fn: SerpApiBodyFn): void;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** A Google results page as SerpApi renders it, echoing `q`. */
export function googlePage(query: Record<string, string>): Record<string, unknown> {
  const q = query.q ?? '';
  const s = slug(q);
  return {
    search_metadata: { id: 'fake', status: 'Success', json_endpoint: 'https://serpapi.com/searches/fake.json' },
    search_parameters: { engine: 'google', q, location_requested: query.location, hl: query.hl, gl: query.gl },
    search_information: { query_displayed: q, total_results: 1230000 },
    inline_videos: [
      {
        position: 1,
        title: `${q} explained`,
        link: `https://www.youtube.com/watch?v=${s.slice(0, 6)}01`,
        channel: 'Explainers',
        platform: 'YouTube',
        date: 'Jan 10, 2025',
        duration: '8:01',
      },
      { position: 2, title: `${q} in 5 minutes`, link: `https://vimeo.com/${s.length}02`, platform: 'Vimeo' },
    ],
    organic_results: [1, 2, 3].map((n) => ({
      position: n,
      title: `${q} – guide ${n}`,
      link: `https://site${n}.example/${s}`,
      displayed_link: `https://site${n}.example › ${s}`,
      snippet: `Everything about ${q}, part ${n}.`,
      source: `Site ${n}`,
    })),
  };
}

/** A YouTube results page as SerpApi renders it, echoing `search_query`. */
export function youtubePage(query: Record<string, string>): Record<string, unknown> {
  const q = query.search_query ?? '';
  const s = slug(q);
  return {
    search_metadata: { id: 'fake-yt', status: 'Success' },
    search_parameters: { engine: 'youtube', search_query: q, gl: query.gl, hl: query.hl },
    video_results: [2, 5, 6].map((pos, n) => ({
      position_on_page: pos,
      title: `${q} video ${n + 1}`,
      link: `https://www.youtube.com/watch?v=${s.slice(0, 8)}${n + 1}`,
      channel: { name: `Channel ${n + 1}`, link: `https://www.youtube.com/@channel${n + 1}` },
      description: `A video about ${q} (${n + 1}).`,
      length: '10:00',
    })),
  };
}

const defaultRespond: SerpApiBodyFn = (query) => (query.engine === 'youtube' ? youtubePage(query) : googlePage(query));

/** Starts a fake SerpApi on 127.0.0.1. */
export async function startFakeSerpApi(options: FakeSerpApiOptions = {}): Promise<FakeSerpApi> {
  const apiKey = options.apiKey ?? 'fake-serpapi-key';
  let respond = options.respond ?? defaultRespond;

  const server = await startFakeServer({
    keyOf(req) {
      const { api_key: _key, ...rest } = req.query;
      return new URLSearchParams(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))).toString();
    },
    check(req) {
      if (req.method !== 'GET' || req.path !== '/search.json') return { status: 404, body: { error: 'Not found.' } };
      if (!req.query.api_key) return { status: 401, body: { error: 'Missing api_key parameter.' } };
      if (req.query.api_key !== apiKey)
        return {
          status: 401,
          body: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' },
        };
      const engine = req.query.engine ?? 'google';
      if (engine === 'google' && !req.query.q) return { status: 400, body: { error: 'Missing query `q` parameter.' } };
      if (engine === 'youtube' && !req.query.search_query)
        return { status: 400, body: { error: 'Missing query `search_query` parameter.' } };
      if (engine !== 'google' && engine !== 'youtube')
        return { status: 400, body: { error: `Unsupported \`${engine}\` search engine.` } };
      return null;
    },
    answer: (req) => ({ status: 200, body: respond(req.query) }),
    faultBody: (status) =>
      status === 429
        ? { error: 'Your account has run out of searches or exceeded the hourly throughput limit.' }
        : { error: 'Something went wrong on our end. Please try again.' },
  });

  return Object.assign(server, {
    baseUrl: server.origin,
    apiKey,
    setRespond(fn: SerpApiBodyFn) {
      respond = fn;
    },
  });
}

/** This fake with its default options, as the settings of SerpApi's SERP provider (see `FakeApi`). */
export const fakeApi = defineFakeApi(startFakeSerpApi, (f) => ({
  SERPAPI_API_KEY: f.apiKey,
  SERPAPI_BASE_URL: f.baseUrl,
}));
