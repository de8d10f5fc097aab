/**
 * The URL a saved HTML page was served at, read from the page itself: its canonical link, its Open Graph URL, or
 * the "saved from url=(NNNN)..." comment browsers write into pages they save (the Mark of the Web), in that order.
 * Only absolute http(s) URLs count, except that a relative canonical link resolves against the page's URL when the
 * caller knows one (from a base URL); `og:url` must be absolute, as Open Graph says (`www.example.com/a` without a
 * scheme is a common mistake that resolving would turn into a wrong URL under the base). A source whose value is malformed (not a URL, not http(s)) does not
 * end the search: the next source is tried, and what was passed over is reported so a refusal can say why.
 *
 * Only the document's head is read (html-head.ts), as search engines read a canonical link: that is where the page
 * names its URL, and a saved page's body is most of its size. Parsed with linkedom, as every other HTML in the
 * project.
 */
import { parseHTML } from 'linkedom';
import { documentHead } from './html-head.ts';

/** Where a saved page's URL came from. */
export type PageUrlSource = 'canonical' | 'og:url' | 'saved-from' | 'base-url';

export interface PageUrl {
  url: string;
  source: PageUrlSource;
}

/** A source the page has but whose value gives no http(s) URL. */
export interface SkippedPageUrl {
  source: PageUrlSource;
  value: string;
}

/** The URL found (or null) and the malformed sources passed over on the way. */
export interface PageUrlSearch {
  found: PageUrl | null;
  skipped: SkippedPageUrl[];
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
 * URL, which relative canonical links also resolve against), with every malformed source passed over.
 */
export function findSavedPageUrl(html: string, fallback: string | null = null): PageUrlSearch {
  const { document } = parseHTML(documentHead(html));
  const skipped: SkippedPageUrl[] = [];
  for (const link of document.querySelectorAll('link[rel]')) {
    const rel = (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes('canonical')) continue;
    const href = link.getAttribute('href');
    const url = httpUrl(href) ?? (fallback !== null ? httpUrl(href, fallback) : null);
    if (url) return { found: { url, source: 'canonical' }, skipped };
    skipped.push({ source: 'canonical', value: href ?? '' });
  }
  for (const meta of document.querySelectorAll('meta[property]')) {
    if ((meta.getAttribute('property') ?? '').trim().toLowerCase() !== 'og:url') continue;
    const content = meta.getAttribute('content');
    const url = httpUrl(content);
    if (url) return { found: { url, source: 'og:url' }, skipped };
    skipped.push({ source: 'og:url', value: content ?? '' });
  }
  for (const comment of topComments(document as unknown as Parameters<typeof topComments>[0])) {
    if (!/^\s*saved from url=/i.test(comment)) continue;
    const url = savedFromUrl(comment);
    if (url) return { found: { url, source: 'saved-from' }, skipped };
    skipped.push({ source: 'saved-from', value: comment.trim() });
  }
  const url = fallback !== null ? httpUrl(fallback) : null;
  return { found: url ? { url, source: 'base-url' } : null, skipped };
}

/** The URL of a saved page (findSavedPageUrl without what was passed over); null when no source gives one. */
export function savedPageUrl(html: string, fallback: string | null = null): PageUrl | null {
  return findSavedPageUrl(html, fallback).found;
}
