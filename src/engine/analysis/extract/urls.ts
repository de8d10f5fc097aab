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

// Second-level labels under which registries sell names (example.co.uk); a full public-suffix list is overkill for
// telling a site's own links from outside ones.
const SECOND_LEVEL = new Set([
  'co',
  'com',
  'net',
  'org',
  'gov',
  'edu',
  'ac',
  'or',
  'ne',
  'go',
  'gob',
  'mil',
  'nic',
  'sch',
  'ltd',
  'plc',
]);

/** Approximate registrable domain (eTLD+1) of a host name. */
export function registrableHost(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (/^[\d.]+$/.test(h) || h.includes(':')) return h;
  const labels = h.split('.');
  if (labels.length <= 2) return h;
  const tld = labels[labels.length - 1] as string;
  const sld = labels[labels.length - 2] as string;
  const keep = tld.length === 2 && SECOND_LEVEL.has(sld) ? 3 : 2;
  return labels.slice(-keep).join('.');
}

/** Host name of an absolute URL, '' when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
