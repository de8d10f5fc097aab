/**
 * Offline organic search (`SERP_PROVIDER=archive`): SQLite FTS5 with bm25() over the main text and title of the web
 * archive's HTML pages with status 200. At most 10 results, only pages matching at least one query term, ties
 * broken by URL; a location's city lifts the pages that mention it.
 *
 * The search index is built once per archive content and extractor, next to the archive's URL index, and reused on
 * later starts; building it reads each page once from the WARC files and extracts its main text.
 */
import { systemClock } from '../../clock.ts';
import type { TimeSource } from '../../clock.ts';
import { ProviderError } from '../types.ts';
import type { SearchOptions, SearchProvider, SearchResponse } from '../types.ts';
import type { ArchiveIndex, WebArchive } from '../web/archive/archive.ts';
import { fallbackExtractText } from '../web/archive/fallback-extract.ts';
import type { ExtractText } from '../web/archive/fallback-extract.ts';
import { buildAndOpen } from '../web/archive/index-file.ts';
import type { PageTextWorkers } from '../web/archive/page-text-workers.ts';
import { SEARCH_INDEX_FORMAT, buildSearchIndex, openSearchIndex } from '../web/archive/search-index.ts';
import type { SearchIndex, SearchRanking } from '../web/archive/search-index.ts';
import { pairs } from '../web/archive/snippet.ts';
import { terms } from '../web/archive/terms.ts';
import { searchResponse } from './platforms.ts';

/**
 * Main-text extraction: the small fallback extractor by default. Another extractor must be named, because the index
 * it builds is kept: an index is only reused by the extractor that built it.
 */
type Extractor =
  { extractText?: undefined; extractorId?: undefined } | { extractText: ExtractText; extractorId: string };

export type ArchiveSearchOptions = Extractor & {
  archive: WebArchive;
  clock?: TimeSource;
  /** Title weight and pair weight; the defaults suit pages of a few hundred to a few thousand words. */
  ranking?: SearchRanking;
  /** Called with 0 of the total, then after each page indexed, while the search index is built. */
  onIndexPage?: (done: number, total: number) => void;
  /**
   * Starts worker threads for a build of `pages` pages (they extract pages' text with the same extractor as
   * `extractText`); null or a failure: the build runs in this thread. Asked for only when an index is built, and
   * closed after it.
   */
  workers?: (pages: number) => Promise<PageTextWorkers | null>;
};

const MAX_RESULTS = 10;

/** The city-level part of a location ("Round Rock, Texas, United States" -> round, rock, "round rock"). */
function locationTerms(location: string | undefined): string[] {
  const city = terms(location?.split(',')[0] ?? '');
  return [...city, ...pairs(city)];
}

/** A file-name-safe form of an extractor id. */
function slug(id: string): string {
  return (
    id
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'extractor'
  );
}

/** Where the search index of `records` built by the extractor `extractorId` lives. */
export function searchIndexPath(records: ArchiveIndex, extractorId: string): string {
  // The format is in the name: another version of the index is another file, never misread.
  return records.companionPath(`search-v${SEARCH_INDEX_FORMAT}-${slug(extractorId)}`);
}

/** The `archive` SearchProvider: organic results ranked over the web archive. */
export function createArchiveSearch(options: ArchiveSearchOptions): SearchProvider & {
  /** Opens the index now, building it when needed (it is otherwise opened on the first search). */
  warm(): Promise<void>;
  /** Closes the index (stopping a build in progress). */
  close(): Promise<void>;
} {
  const extractText = options.extractText ?? fallbackExtractText;
  const extractorId = options.extractorId ?? 'fallback';
  const clock = options.clock ?? systemClock;
  let opening: Promise<SearchIndex> | null = null;
  let abort = new AbortController();

  const openIndex = async (signal: AbortSignal): Promise<SearchIndex> => {
    const records = await options.archive.open();
    const path = searchIndexPath(records, extractorId);
    // The total is known before the index is built or found (or another process is seen building it).
    options.onIndexPage?.(0, records.pageCount());
    const build = async (temp: string) => {
      const workers = (await options.workers?.(records.pageCount()).catch(() => null)) ?? null;
      try {
        return await buildSearchIndex(temp, records, {
          key: records.key,
          extractText,
          texts: workers?.text,
          signal,
          onPage: options.onIndexPage,
        });
      } finally {
        await workers?.close();
      }
    };
    const { value } = await buildAndOpen(path, build, (file) => openSearchIndex(file, records.key, options.ranking), {
      signal,
    });
    return value;
  };
  const indexFor = (): Promise<SearchIndex> => {
    opening ??= openIndex(abort.signal).catch((err: unknown) => {
      opening = null;
      throw err;
    });
    return opening;
  };

  return {
    name: 'archive',
    platforms: ['organic'],
    async warm() {
      await indexFor();
    },
    async close() {
      const current = opening;
      if (!current) return;
      abort.abort(new Error('the archive search was closed'));
      abort = new AbortController();
      opening = null;
      (await current.catch(() => null))?.close();
    },
    async search(query: string, searchOptions: SearchOptions): Promise<SearchResponse> {
      if (searchOptions.platform !== 'organic') {
        throw new ProviderError('archive', `The archive search answers only the organic platform.`, {
          retryable: false,
        });
      }
      searchOptions.signal?.throwIfAborted();
      const index = await indexFor();
      const limit = Math.min(searchOptions.limit ?? MAX_RESULTS, MAX_RESULTS);
      const hits = index.query(query, { limit, boostTerms: locationTerms(searchOptions.location) });
      return searchResponse(
        'archive',
        'organic',
        query,
        searchOptions,
        clock.now(),
        hits.map((hit, i) => ({ position: i + 1, url: hit.url, title: hit.title, snippet: hit.snippet })),
      );
    },
  };
}
