// SerpApi. Docs followed:
//   https://serpapi.com/search-api  (GET /search.json, engine=google, q, location, hl, gl, num, api_key)
//   https://serpapi.com/organic-results  (organic_results: position, title, link, snippet)
//   https://serpapi.com/inline-videos    (inline_videos: position, title, link, channel, platform, date)
//   https://serpapi.com/youtube-search-api  (engine=youtube, search_query, gl, hl; video_results)
//   https://serpapi.com/api-errors  (HTTP status codes; `{"error": "..."}` bodies)
import { z } from 'zod';
import { systemClock, type TimeSource } from '../../clock.ts';
import { createJsonClient, type JsonClientOptions } from '../http/json-client.ts';
import type { ResearchPlatform, SearchOptions, SearchProvider, SearchResponse, SearchResult } from '../types.ts';
import { ProviderError } from '../types.ts';
import { clampLimit, googleHl, parseLocation, splitLanguage, searchResponse } from './platforms.ts';

export interface SerpApiOptions extends Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers'> {
  apiKey: string;
  /** Default https://serpapi.com */
  baseUrl?: string;
  clock?: TimeSource;
}

const SerpApiLinkSchema = z.looseObject({
  position: z.number().optional(),
  position_on_page: z.number().optional(),
  title: z.string().optional(),
  link: z.string().optional(),
  snippet: z.string().optional(),
  description: z.string().optional(),
  channel: z.union([z.string(), z.looseObject({ name: z.string().optional() })]).optional(),
  platform: z.string().optional(),
  source: z.string().optional(),
  date: z.string().optional(),
  duration: z.string().optional(),
  length: z.string().optional(),
});

type SerpApiLink = z.output<typeof SerpApiLinkSchema>;

const SerpApiResponseSchema = z.looseObject({
  search_metadata: z.looseObject({ status: z.string().optional() }).optional(),
  error: z.string().optional(),
  organic_results: z.array(SerpApiLinkSchema).optional(),
  inline_videos: z.array(SerpApiLinkSchema).optional(),
  video_results: z.array(SerpApiLinkSchema).optional(),
});

type SerpApiResponse = z.output<typeof SerpApiResponseSchema>;

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

function channelName(v: SerpApiLink['channel']): string {
  return typeof v === 'string' ? v.trim() : text(v?.name);
}

/** Video snippet: the description when there is one, else "channel · platform · date" as the SERP shows it. */
function videoSnippet(v: SerpApiLink): string {
  const described = text(v.snippet) || text(v.description);
  if (described) return described;
  return [channelName(v.channel), text(v.platform) || text(v.source), text(v.date), text(v.duration) || text(v.length)]
    .filter(Boolean)
    .join(' · ');
}

/** Organic results with SerpApi's own `position`. */
export function serpApiOrganic(body: SerpApiResponse): SearchResult[] {
  return (body.organic_results ?? [])
    .filter((r) => text(r.link))
    .map((r, n) => ({
      position: r.position ?? n + 1,
      url: text(r.link),
      title: text(r.title),
      snippet: text(r.snippet),
    }));
}

/** Video results numbered in display order (YouTube's `position_on_page` skips shelves and ads). */
export function serpApiVideos(list: SerpApiLink[] | undefined): SearchResult[] {
  return (list ?? [])
    .filter((r) => text(r.link))
    .map((r, n) => ({ position: n + 1, url: text(r.link), title: text(r.title), snippet: videoSnippet(r) }));
}

/** SerpApi's message when the engine found nothing; an empty page, not a failure. */
const NO_RESULTS = /hasn't returned any results/i;

const PLATFORMS = ['organic', 'google_video_pack', 'youtube_search'] as const satisfies readonly ResearchPlatform[];

/** Search over SerpApi: Google organic, Google's inline video pack and YouTube search. */
export function createSerpApiSearch(options: SerpApiOptions): SearchProvider {
  const name = 'serpapi';
  const { apiKey, baseUrl = 'https://serpapi.com', clock = systemClock, ...tuning } = options;
  const client = createJsonClient({ ...tuning, provider: name, baseUrl });

  return {
    name,
    platforms: PLATFORMS,
    async search(query: string, opts: SearchOptions): Promise<SearchResponse> {
      const limit = clampLimit(opts.limit, 100);
      const { region } = splitLanguage(opts.language);
      const place = parseLocation(opts.location);
      // gl: the location's country wins over the language's region; a generic US search when neither says.
      const gl = place?.country ?? region ?? 'us';
      const hl = googleHl(opts.language);
      let query_: Record<string, string | number | undefined>;
      if (opts.platform === 'youtube_search') {
        query_ = { engine: 'youtube', search_query: query, gl, hl };
      } else if (opts.platform === 'organic' || opts.platform === 'google_video_pack') {
        // A bare country is expressed by gl alone; SerpApi's `location` wants a place it can geo-target.
        const location = place && !(place.parts.length === 1 && place.country) ? place.parts.join(', ') : undefined;
        query_ = { engine: 'google', q: query, location, hl, gl, num: opts.platform === 'organic' ? limit : undefined };
      } else {
        throw new ProviderError(name, `${name} does not serve research platform '${opts.platform}'`, {
          retryable: false,
        });
      }
      // No `no_cache`: SerpApi serves an identical search from its one-hour cache without charging, which is what
      // a retried step wants.
      const body = await client.call(
        {
          method: 'GET',
          path: '/search.json',
          query: { ...query_, api_key: apiKey },
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
        SerpApiResponseSchema,
      );
      if (body.error && !NO_RESULTS.test(body.error)) {
        throw new ProviderError(name, `${name} answered an error: ${body.error.slice(0, 300)}`, { retryable: false });
      }
      if (!body.error && body.search_metadata?.status === 'Error') {
        throw new ProviderError(name, `${name} reported the search as failed`, { retryable: true });
      }
      const results =
        opts.platform === 'organic'
          ? serpApiOrganic(body)
          : opts.platform === 'google_video_pack'
            ? serpApiVideos(body.inline_videos?.length ? body.inline_videos : body.video_results)
            : serpApiVideos(body.video_results);
      return searchResponse(name, opts.platform, query, opts, clock.now(), results.slice(0, limit));
    },
  };
}
