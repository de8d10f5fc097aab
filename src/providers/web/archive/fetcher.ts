/**
 * The offline PageFetcher: answers from the web archive, and goes to the live (SSRF-safe) fetcher for a URL the
 * archive lacks only when not offline. Lookups and redirects use the index; only the page answered has its body
 * read from the WARC file.
 */
import { FetchError } from '../../types.ts';
import type { FetchOptions, FetchedPage, PageFetcher } from '../../types.ts';
import type { WebArchive } from './archive.ts';
import { decodeText, isTextMime } from './body.ts';
import type { ArchivedEntry } from './record-index.ts';
import type { ArchivedRecord } from './record.ts';
import { isHttpUrl, normalizeArchiveUrl } from './url.ts';

export interface ArchiveFetcherOptions {
  archive: WebArchive;
  /** The live fetcher for URLs the archive lacks; used only when `offline` is false. */
  fallback?: PageFetcher;
  /** When true, a URL not in the archive fails with `not_archived` instead of going live. */
  offline: boolean;
  /**
   * Archived 3xx records whose Location is also archived are followed, as the live fetcher follows redirects;
   * a redirect to a URL the archive lacks is answered as archived. Default 5; 0 answers every 3xx as archived.
   */
  maxRedirects?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A FetchedPage from an archived record; text bodies are decoded, binary ones left empty. */
export function pageFromRecord(record: ArchivedRecord, requestedUrl: string): FetchedPage {
  const contentTypeHeader = record.headers['content-type'] ?? null;
  const text = isTextMime(record.contentType);
  const decoded = text ? decodeText(record.payload, contentTypeHeader, record.contentType) : null;
  return {
    requestedUrl,
    url: record.url,
    status: record.status,
    headers: { ...record.headers },
    contentType: record.contentType,
    charset: decoded?.charset ?? 'utf-8',
    body: decoded?.text ?? '',
    bytes: record.payload.byteLength,
    fetchedAt: record.date,
    source: 'archive',
  };
}

/** The archived redirect target of a 3xx record, or null when it has none or it is not archived. */
function redirectTarget(record: ArchivedEntry): string | null {
  if (!REDIRECTS.has(record.status)) return null;
  const location = record.headers['location'];
  if (!location) return null;
  try {
    return normalizeArchiveUrl(new URL(location, record.url).href);
  } catch {
    return null;
  }
}

/** A PageFetcher over the web archive with an optional live fallback. */
export function createArchiveFetcher(options: ArchiveFetcherOptions): PageFetcher {
  const maxRedirects = options.maxRedirects ?? 5;
  return {
    async fetch(url: string, fetchOptions?: FetchOptions): Promise<FetchedPage> {
      fetchOptions?.signal?.throwIfAborted();
      const key = normalizeArchiveUrl(url);
      if (key === null) throw new FetchError('invalid_url', url, 'The URL is not a valid absolute URL.');
      if (!isHttpUrl(key)) throw new FetchError('unsupported_scheme', url, 'Only http and https URLs can be fetched.');

      const index = await options.archive.open();
      let record = index.entry(key);
      if (!record) {
        if (!options.offline && options.fallback) return options.fallback.fetch(url, fetchOptions);
        throw new FetchError('not_archived', url, 'The URL is not in the web archive and live fetching is off.');
      }
      for (let hops = 0; maxRedirects > 0; hops++) {
        const target = redirectTarget(record);
        const next = target === null ? undefined : index.entry(target);
        if (!next) break;
        if (hops === maxRedirects) {
          throw new FetchError('too_many_redirects', url, `More than ${maxRedirects} archived redirects.`);
        }
        record = next;
      }
      const payload = await index.payload(record);
      fetchOptions?.signal?.throwIfAborted();
      return pageFromRecord({ ...record, payload }, url);
    },
  };
}
