/**
 * Offline organic search (`SERP_PROVIDER=archive`): BM25F over the main text of the web archive's HTML pages
 * with status 200. At most 10 results, only pages matching at least one query term, ties broken by URL.
 */
import { systemClock } from '../../clock.ts';
import type { TimeSource } from '../../clock.ts';
import { ProviderError } from '../types.ts';
import type { SearchOptions, SearchProvider, SearchResponse } from '../types.ts';
import type { ArchiveSnapshot, WebArchive } from '../web/archive/archive.ts';
import { buildBm25Index, pairs } from '../web/archive/bm25.ts';
import type { Bm25Index, Bm25Options, IndexedDoc } from '../web/archive/bm25.ts';
import { decodeText, isHtmlMime } from '../web/archive/body.ts';
import { fallbackExtractText } from '../web/archive/fallback-extract.ts';
import type { ExtractText } from '../web/archive/fallback-extract.ts';
import { terms } from '../web/archive/terms.ts';
import { searchResponse } from './platforms.ts';

export interface ArchiveSearchOptions {
  archive: WebArchive;
  /** Main-text extraction; defaults to the small fallback extractor. Pass the analysis extractor. */
  extractText?: ExtractText;
  clock?: TimeSource;
  /** BM25F parameters; the defaults suit pages of a few hundred to a few thousand words. */
  ranking?: Bm25Options;
}

const MAX_RESULTS = 10;

/** The searchable documents of an archive: HTML records with status 200, in URL order. */
export function archiveDocuments(snapshot: ArchiveSnapshot, extractText: ExtractText): IndexedDoc[] {
  const docs: IndexedDoc[] = [];
  for (const record of snapshot.records()) {
    if (record.status !== 200 || !isHtmlMime(record.contentType)) continue;
    const html = decodeText(record.payload, record.headers['content-type'] ?? null, record.contentType).text;
    let extracted: { title: string; text: string };
    try {
      extracted = extractText(html, record.url);
    } catch {
      // One page the extractor cannot handle must not take search down; the fallback reads anything linkedom parses.
      extracted = fallbackExtractText(html, record.url);
    }
    docs.push({ url: record.url, title: extracted.title.trim() || record.url, text: extracted.text });
  }
  return docs;
}

/** The city-level part of a location ("Round Rock, Texas, United States" -> round, rock, "round rock"). */
function locationTerms(location: string | undefined): string[] {
  const city = terms(location?.split(',')[0] ?? '');
  return [...city, ...pairs(city)];
}

/** The `archive` SearchProvider: organic results ranked over the web archive. */
export function createArchiveSearch(options: ArchiveSearchOptions): SearchProvider & {
  /** Builds the index now (it is otherwise built on the first search). */
  warm(): Promise<void>;
} {
  const extractText = options.extractText ?? fallbackExtractText;
  const clock = options.clock ?? systemClock;
  // One index per loaded snapshot; the archive loads once, so this builds once.
  const indexes = new WeakMap<ArchiveSnapshot, Bm25Index>();
  const indexFor = async (): Promise<Bm25Index> => {
    const snapshot = await options.archive.load();
    let index = indexes.get(snapshot);
    if (!index) {
      index = buildBm25Index(archiveDocuments(snapshot, extractText), options.ranking);
      indexes.set(snapshot, index);
    }
    return index;
  };

  return {
    name: 'archive',
    platforms: ['organic'],
    async warm() {
      await indexFor();
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
