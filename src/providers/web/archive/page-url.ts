/**
 * The URL a saved HTML page was served at, read from the page itself: its canonical link, its Open Graph URL, or
 * the "saved from url=(NNNN)..." comment browsers write into pages they save (the Mark of the Web), in that order.
 * Only absolute http(s) URLs count, except that a relative canonical link resolves against the page's URL when the
 * caller knows one (from a base URL). Parsed with linkedom, as every other HTML in the project.
 */
import { parseHTML } from 'linkedom';

/** Where a saved page's URL came from. */
export type PageUrlSource = 'canonical' | 'og:url' | 'saved-from' | 'base-url';

export interface PageUrl {
  url: string;
  source: PageUrlSource;
}

interface NodeLike {
  nodeType: number;
  textContent: string | null;
  childNodes: ArrayLike<NodeLike>;
}

const COMMENT_NODE = 8;

/** The URL as an absolute http(s) URL without its fragment, or null. */
function httpUrl(text: string | null | undefined, base?: string): string | null {
  const value = text?.trim();
  if (!value) return null;
  let url: URL;
  try {
    url = base === undefined ? new URL(value) : new URL(value, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url.href;
}

/**
 * The URL of a Mark of the Web comment (` saved from url=(0023)https://example.com/ `): NNNN is the URL's length,
 * which tells where the URL ends even when the comment goes on.
 */
export function savedFromUrl(comment: string): string | null {
  const m = /^\s*saved from url=\((\d{1,5})\)(\S*)/i.exec(comment);
  if (!m?.[1] || m[2] === undefined) return null;
  const length = Number(m[1]);
  return httpUrl(m[2].length >= length ? m[2].slice(0, length) : m[2]);
}

/** Comments at the top of the document, in <html> and in <head>: where browsers write the Mark of the Web. */
function topComments(document: { childNodes: ArrayLike<NodeLike>; documentElement: unknown; head: unknown }): string[] {
  const out: string[] = [];
  const parents = [document, document.documentElement, document.head] as (NodeLike | null | undefined)[];
  for (const parent of parents) {
    if (!parent) continue;
    for (let i = 0; i < parent.childNodes.length; i++) {
      const node = parent.childNodes[i];
      if (node?.nodeType === COMMENT_NODE) out.push(node.textContent ?? '');
    }
  }
  return out;
}

/**
 * The URL of a saved page: canonical link, og:url, saved-from comment, then `fallback` (the caller's URL from a base
 * URL, which relative canonical links also resolve against). Null when none gives an http(s) URL.
 */
export function savedPageUrl(html: string, fallback: string | null = null): PageUrl | null {
  const { document } = parseHTML(html);
  for (const link of document.querySelectorAll('link[rel]')) {
    const rel = (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes('canonical')) continue;
    const href = link.getAttribute('href');
    const url = httpUrl(href) ?? (fallback !== null ? httpUrl(href, fallback) : null);
    if (url) return { url, source: 'canonical' };
  }
  for (const meta of document.querySelectorAll('meta[property]')) {
    if ((meta.getAttribute('property') ?? '').trim().toLowerCase() !== 'og:url') continue;
    const url = httpUrl(meta.getAttribute('content'));
    if (url) return { url, source: 'og:url' };
  }
  for (const comment of topComments(document as unknown as Parameters<typeof topComments>[0])) {
    const url = savedFromUrl(comment);
    if (url) return { url, source: 'saved-from' };
  }
  const url = fallback !== null ? httpUrl(fallback) : null;
  return url ? { url, source: 'base-url' } : null;
}
