/**
 * The URL a saved HTML page was served at, read from the page itself: its canonical link, its Open Graph URL, or
 * the "saved from url=(NNNN)..." comment browsers write into pages they save (the Mark of the Web), in that order.
 * Only absolute http(s) URLs count, except that a relative canonical link resolves against the page's URL when the
 * caller knows one (from a base URL); `og:url` must be absolute, as Open Graph says (`www.example.com/a` without a
 * scheme is a common mistake that resolving would turn into a wrong URL under the base). A source whose value is malformed (not a URL, not http(s)) does not
 * end the search: the next source is tried, and what was passed over is reported so a refusal can say why.
 *
 * The head is read first (html-head.ts): that is where a page names its URL, and a saved page's body is most of its
 * size. Tags in the body count after those in the head of the same kind: frameworks that stream their metadata
 * (Next.js) write the canonical link and `og:url` into the body, where a browser's script later moves them. The body
 * is searched only for the tags, not parsed whole. Parsed with linkedom, as every other HTML in the project.
 */
import { parseHTML } from 'linkedom';
import { splitHead } from './html-head.ts';

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

interface QueryRoot {
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }>;
}

/** The href of every canonical link (`rel` may hold other words too), in document order. */
function canonicalHrefs(root: QueryRoot): (string | null)[] {
  const out: (string | null)[] = [];
  for (const link of root.querySelectorAll('link[rel]')) {
    if ((link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/).includes('canonical'))
      out.push(link.getAttribute('href'));
  }
  return out;
}

/** The content of every `og:url` meta tag, in document order. */
function ogUrls(root: QueryRoot): (string | null)[] {
  const out: (string | null)[] = [];
  for (const meta of root.querySelectorAll('meta[property]')) {
    if ((meta.getAttribute('property') ?? '').trim().toLowerCase() === 'og:url') out.push(meta.getAttribute('content'));
  }
  return out;
}

// Scripts, styles and comments are matched whole so that a tag written inside them is not taken for one.
const URL_TAG = /<script\b[\s\S]*?<\/script\s*>|<style\b[\s\S]*?<\/style\s*>|<!--[\s\S]*?-->|<(?:link|meta)\b[^>]*>/gi;

/** The body's link and meta tags that may name the page's URL, parsed on their own. */
function bodyTags(body: string): QueryRoot {
  const tags: string[] = [];
  for (const [tag] of body.matchAll(URL_TAG)) {
    if (/^<(?:link|meta)/i.test(tag) && /canonical|og:url/i.test(tag)) tags.push(tag);
  }
  return parseHTML(`<html><head>${tags.join('')}</head></html>`).document as unknown as QueryRoot;
}

/**
 * The URL of a saved page: canonical link, og:url, saved-from comment, then `fallback` (the caller's URL from a base
 * URL, which relative canonical links also resolve against), with every malformed source passed over. Tags in the
 * head come before tags of the same kind in the body. Give it the whole page, or only its head when the body is
 * not to be searched.
 */
export function findSavedPageUrl(html: string, fallback: string | null = null): PageUrlSearch {
  const { head, end } = splitHead(html);
  const { document } = parseHTML(head);
  const skipped: SkippedPageUrl[] = [];
  let inBody: QueryRoot | undefined;
  const body = () => (inBody ??= bodyTags(html.slice(end)));
  const first = (source: PageUrlSource, values: (string | null)[], relative: boolean): PageUrlSearch | null => {
    for (const value of values) {
      const url = httpUrl(value) ?? (relative && fallback !== null ? httpUrl(value, fallback) : null);
      if (url) return { found: { url, source }, skipped };
      skipped.push({ source, value: value ?? '' });
    }
    return null;
  };
  const root = document as unknown as QueryRoot;
  const tagged =
    first('canonical', canonicalHrefs(root), true) ??
    first('canonical', end < html.length ? canonicalHrefs(body()) : [], true) ??
    first('og:url', ogUrls(root), false) ??
    first('og:url', end < html.length ? ogUrls(body()) : [], false);
  if (tagged) return tagged;
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
