// DataForSEO SERP API v3, Live mode. Docs followed:
//   https://docs.dataforseo.com/v3/serp/google/organic/live/advanced/   (request fields, `organic` and `video` items)
//   https://docs.dataforseo.com/v3/serp/youtube/organic/live/advanced/  (`youtube_video` items)
//   https://docs.dataforseo.com/v3/auth/  (HTTP Basic login:password)   https://docs.dataforseo.com/v3/appendix/errors/
import { z } from 'zod';
import { systemClock, type TimeSource } from '../../clock.ts';
import { createJsonClient, type JsonClient, type JsonClientOptions } from '../http/json-client.ts';
import type { ResearchPlatform, SearchOptions, SearchProvider, SearchResponse, SearchResult } from '../types.ts';
import { ProviderError } from '../types.ts';
import { clampLimit, countryName, dataForSeoLanguage, parseLocation, searchResponse } from './platforms.ts';

export const GOOGLE_ORGANIC_LIVE_ADVANCED = '/v3/serp/google/organic/live/advanced';
export const YOUTUBE_ORGANIC_LIVE_ADVANCED = '/v3/serp/youtube/organic/live/advanced';
/** location_code of the United States: the generic US location of a request that names none (docs/api.md §3.1). */
const US_LOCATION_CODE = 2840;

export interface DataForSeoOptions extends Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers'> {
  login: string;
  password: string;
  /** Default https://api.dataforseo.com */
  baseUrl?: string;
  clock?: TimeSource;
}

/**
 * One SERP item as DataForSEO returns it; only the fields the adapters read are typed, the rest kept as they come.
 * Nested `items` lists are heterogeneous (related_searches and people_also_search list plain strings, knowledge-graph
 * rows carry their own fields), so an element of a nested list that is not an item of this shape is skipped, as the
 * adapters would skip it; the SERP's own item list is checked element by element.
 */
const DataForSeoItemSchema = z.looseObject({
  type: z.string().optional(),
  rank_group: z.number().optional(),
  rank_absolute: z.number().optional(),
  url: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  source: z.string().nullable().optional(),
  get items(): z.ZodOptional<z.ZodNullable<z.ZodPreprocess<z.ZodArray<typeof DataForSeoItemSchema>>>> {
    return z.preprocess(itemsOnly, z.array(DataForSeoItemSchema)).nullable().optional();
  },
});

/** The elements of a nested list that are items; the rest (plain strings, other shapes) are skipped. */
function itemsOnly(list: unknown): unknown {
  return Array.isArray(list) ? list.filter((e) => DataForSeoItemSchema.safeParse(e).success) : list;
}

export type DataForSeoItem = z.output<typeof DataForSeoItemSchema>;

const DataForSeoTaskSchema = z.looseObject({
  id: z.string().optional(),
  status_code: z.number().optional(),
  status_message: z.string().optional(),
  result: z
    .array(
      z.looseObject({ items: z.array(DataForSeoItemSchema).nullable().optional(), keyword: z.string().optional() }),
    )
    .nullable()
    .optional(),
});

const DataForSeoEnvelopeSchema = z.looseObject({
  status_code: z.number().optional(),
  status_message: z.string().optional(),
  tasks: z.array(DataForSeoTaskSchema).nullable().optional(),
});

/** Internal codes worth a later retry: search-engine error, per-minute rate limit, server-side failures. */
function retryableCode(code: number): boolean {
  return code === 40101 || code === 40202 || code === 40209 || code >= 50000;
}

/** The task fields that pick location and language, from the free-form inputs of the API. */
export function dataForSeoLocale(
  location: string | undefined,
  language: string | undefined,
): Record<string, string | number> {
  const parsed = parseLocation(location);
  let where: Record<string, string | number>;
  if (!parsed) where = { location_code: US_LOCATION_CODE };
  // DataForSEO spells full location names without spaces after commas ("Austin,Texas,United States").
  else if (parsed.parts.length === 1 && parsed.country)
    where = { location_name: countryName(parsed.country) ?? (parsed.parts[0] as string) };
  else where = { location_name: parsed.parts.join(',') };
  return { ...where, language_code: dataForSeoLanguage(language) };
}

export interface DataForSeoCaller {
  /** Posts one task to a Live endpoint and returns the first result's items; throws ProviderError on any failure. */
  liveItems(path: string, task: Record<string, unknown>, signal?: AbortSignal): Promise<DataForSeoItem[]>;
}

/** The DataForSEO envelope (tasks array, status codes at two levels) over the JSON client. */
export function createDataForSeoCaller(provider: string, options: DataForSeoOptions): DataForSeoCaller {
  const { login, password, baseUrl = 'https://api.dataforseo.com', clock: _clock, ...tuning } = options;
  const client: JsonClient = createJsonClient({
    ...tuning,
    provider,
    baseUrl,
    headers: { authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` },
  });
  return {
    async liveItems(path, task, signal) {
      // Live endpoints take exactly one task per call, wrapped in the generic POST array.
      const env = await client.call(
        { method: 'POST', path, body: [task], ...(signal ? { signal } : {}) },
        DataForSeoEnvelopeSchema,
      );
      const top = env.status_code ?? 0;
      if (top !== 20000) {
        throw new ProviderError(provider, `${provider} answered status ${top}: ${env.status_message ?? 'no message'}`, {
          retryable: retryableCode(top),
        });
      }
      const first = env.tasks?.[0];
      if (!first) throw new ProviderError(provider, `${provider} answered no task`, { retryable: true });
      const code = first.status_code ?? 0;
      // 40102 "No Search Results": the search ran and found nothing, which is an answer, not a failure.
      if (code === 40102) return [];
      if (code !== 20000) {
        throw new ProviderError(
          provider,
          `${provider} task failed with status ${code}: ${first.status_message ?? 'no message'}`,
          { retryable: retryableCode(code) },
        );
      }
      return first.result?.[0]?.items ?? [];
    },
  };
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** Organic results in SERP order, ranked by `rank_group` (position among organic results). */
export function organicResults(items: DataForSeoItem[]): SearchResult[] {
  return items
    .filter((i) => i.type === 'organic' && text(i.url))
    .map((i, n) => ({
      position: i.rank_group ?? n + 1,
      url: text(i.url),
      title: text(i.title),
      snippet: text(i.description),
    }));
}

/** The links of every `video` SERP element (the Google video pack), numbered in display order. */
export function videoPackResults(items: DataForSeoItem[]): SearchResult[] {
  const videos = items.filter((i) => i.type === 'video').flatMap((i) => i.items ?? []);
  return videos
    .filter((v) => text(v.url))
    .map((v, n) => ({ position: n + 1, url: text(v.url), title: text(v.title), snippet: text(v.source) }));
}

/** YouTube search results (`youtube_video` items), ranked by `rank_group`. */
export function youtubeResults(items: DataForSeoItem[]): SearchResult[] {
  return items
    .filter((i) => i.type === 'youtube_video' && text(i.url))
    .map((i, n) => ({
      position: i.rank_group ?? n + 1,
      url: text(i.url),
      title: text(i.title),
      snippet: text(i.description),
    }));
}

const PLATFORMS = ['organic', 'google_video_pack', 'youtube_search'] as const satisfies readonly ResearchPlatform[];

/** Search over DataForSEO: Google organic, the Google video pack and YouTube search. */
export function createDataForSeoSearch(options: DataForSeoOptions): SearchProvider {
  const name = 'dataforseo';
  const clock = options.clock ?? systemClock;
  const caller = createDataForSeoCaller(name, options);

  return {
    name,
    platforms: PLATFORMS,
    async search(query: string, opts: SearchOptions): Promise<SearchResponse> {
      const limit = clampLimit(opts.limit, 100);
      const base = {
        keyword: query,
        ...dataForSeoLocale(opts.location, opts.language),
        device: 'desktop',
        // `tag` is echoed back in the task data; carrying the derived idempotency key ties a charge to its step.
        ...(opts.idempotencyKey ? { tag: opts.idempotencyKey.slice(0, 255) } : {}),
      };
      let results: SearchResult[];
      switch (opts.platform) {
        case 'organic':
          // Billing is per page of 10 results, so ask for whole pages only.
          results = organicResults(
            await caller.liveItems(
              GOOGLE_ORGANIC_LIVE_ADVANCED,
              { ...base, depth: Math.ceil(limit / 10) * 10 },
              opts.signal,
            ),
          );
          break;
        case 'google_video_pack':
          results = videoPackResults(
            await caller.liveItems(GOOGLE_ORGANIC_LIVE_ADVANCED, { ...base, depth: 10 }, opts.signal),
          );
          break;
        case 'youtube_search':
          results = youtubeResults(
            await caller.liveItems(
              YOUTUBE_ORGANIC_LIVE_ADVANCED,
              { ...base, block_depth: Math.ceil(limit / 20) * 20 },
              opts.signal,
            ),
          );
          break;
        default:
          throw new ProviderError(name, `${name} does not serve research platform '${opts.platform}'`, {
            retryable: false,
          });
      }
      return searchResponse(name, opts.platform, query, opts, clock.now(), results.slice(0, limit));
    },
  };
}
