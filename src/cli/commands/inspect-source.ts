/**
 * Where `agent-api inspect` gets each page's HTML: an argument with an `http://` or `https://` scheme is a URL and
 * goes through the service's own page fetcher (the web archive first, then the SSRF-safe fetcher unless offline:
 * compose.ts); anything else is a local file, read from disk (`.gz` gunzipped) and decoded by the charset rule
 * fetched pages follow. Every way a page cannot be inspected becomes an InspectFailure with a stable code, so one
 * bad argument is reported and the others still run.
 */
import { pathToFileURL } from 'node:url';
import { FetchError, type FetchedPage, type PageFetcher } from '../../providers/types.ts';
import { isHtmlMime } from '../../providers/web/archive/body.ts';
import { readSavedFile } from '../../providers/web/archive/html-import.ts';
import { savedPageUrl } from '../../providers/web/archive/page-url.ts';
import { decodeBody } from '../../providers/web/charset.ts';

/** Why one argument could not be inspected: a FetchError code, or one of the file and answer codes below. */
export type InspectFailureCode =
  FetchError['code'] | 'not_found' | 'unreadable' | 'not_html' | 'http_status' | 'analysis_failed';

export class InspectFailure extends Error {
  readonly code: InspectFailureCode;
  constructor(code: InspectFailureCode, message: string) {
    super(message);
    this.name = 'InspectFailure';
    this.code = code;
  }
}

/** A page's HTML and where it came from. */
export interface LoadedPage {
  input: string;
  /** `file` for a local file; the fetcher's `live` or `archive` for a URL. */
  source: 'file' | FetchedPage['source'];
  /** The file read (absolute file: URL), or null for a URL. */
  file: string | null;
  /** The URL asked for, or the one a file names for itself (canonical link, og:url, "saved from url"); else null. */
  url: string | null;
  /** The URL the body came from after redirects (a file: its own URL, when it names one). */
  finalUrl: string | null;
  status: number | null;
  contentType: string | null;
  charset: string;
  /** When the page was fetched or archived; null for a file. */
  fetchedAt: string | null;
  html: string;
}

/** URLs are told from files by scheme alone, so a file named like a host (`example.com`) is still a file. */
export function isUrlArgument(arg: string): boolean {
  return /^https?:\/\//i.test(arg.trim());
}

/** Text that holds at least one tag (`<p`, `<!doctype html`) in its first 64 KB and no NUL (a binary file). */
export function looksLikeHtml(text: string): boolean {
  const start = text.slice(0, 65_536);
  return !start.includes('\u0000') && /<(?:!doctype\s+html|[a-z][a-z0-9-]*)[\s/>]/i.test(start);
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Reads a local HTML file (gunzipped when its name ends in `.gz`). */
export async function loadFile(path: string): Promise<LoadedPage> {
  let bytes: Buffer;
  try {
    bytes = await readSavedFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // `example.com/page` or `www.example.com`: most likely a URL typed without its scheme.
      const hint = /^(www\.|[\w-]+(\.[\w-]+)+\/)/i.test(path) ? ' (a URL needs its http:// or https:// scheme)' : '';
      throw new InspectFailure('not_found', `no such file${hint}`);
    }
    if (code === 'EISDIR') throw new InspectFailure('unreadable', 'is a folder, not an HTML file');
    throw new InspectFailure('unreadable', `cannot be read: ${reason(err)}`);
  }
  const { text, charset } = decodeBody(bytes, null);
  if (!looksLikeHtml(text)) throw new InspectFailure('not_html', 'is not HTML (no tag in its first 64 KB)');
  const named = savedPageUrl(text)?.url ?? null;
  return {
    input: path,
    source: 'file',
    file: pathToFileURL(path).href,
    url: named,
    finalUrl: named,
    status: null,
    contentType: 'text/html',
    charset,
    fetchedAt: null,
    html: text,
  };
}

/** Fetches a URL through `fetcher`; a refusal, a non-200 answer or a body that is not HTML is an InspectFailure. */
export async function loadUrl(url: string, fetcher: PageFetcher): Promise<LoadedPage> {
  let page: FetchedPage;
  try {
    page = await fetcher.fetch(url.trim());
  } catch (err) {
    if (err instanceof FetchError) throw new InspectFailure(err.code, err.message);
    throw new InspectFailure('network', reason(err));
  }
  // The same rule as Optimize's fetch step: only a 200 HTML answer is a page to analyse.
  if (page.status !== 200) throw new InspectFailure('http_status', `answered HTTP ${page.status}`);
  if (!isHtmlMime(page.contentType))
    throw new InspectFailure('not_html', `is not HTML (${page.contentType ?? 'no content type'})`);
  return {
    input: url,
    source: page.source,
    file: null,
    url: page.requestedUrl,
    finalUrl: page.url,
    status: page.status,
    contentType: page.contentType,
    charset: page.charset,
    fetchedAt: page.fetchedAt,
    html: page.body,
  };
}
