/**
 * The one URL key of the archive: what the reader indexes by and what the fetcher and search look up with.
 */

/**
 * Normalises a URL for archive lookup: lower-case scheme and host, default port and fragment removed, empty path
 * `/`, an empty `?` dropped, the query kept as written. Returns null when the text is not an absolute URL.
 */
export function normalizeArchiveUrl(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  // WHATWG parsing already lower-cases scheme and host, drops default ports and turns an empty path into `/`.
  url.hash = '';
  if (url.search === '') url.search = '';
  return url.href;
}

/** True for the schemes an archived web page can have. */
export function isHttpUrl(url: string): boolean {
  return url.startsWith('http://') || url.startsWith('https://');
}
