/** URL resolution and the registrable-host test that tells internal links from external ones. */

/** Resolves `href` against `base`; null for empty, unparseable or non-web (javascript:, mailto:, data:) links. */
export function resolveHref(href: string, base: string | null): string | null {
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('#')) return null;
  let url: URL;
  try {
    url = base ? new URL(trimmed, base) : new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.href;
}

/** Resolves an image source; keeps data: URIs out (they are inline bytes, not addresses). */
export function resolveSrc(src: string, base: string | null): string | null {
  return resolveHref(src, base);
}

/**
 * The registrable domain (eTLD+1) of a host name, by the Public Suffix List: one rule for the whole engine, see
 * site.ts.
 */
export { registrableDomain as registrableHost } from '../site.ts';

/** Host name of an absolute URL, '' when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
