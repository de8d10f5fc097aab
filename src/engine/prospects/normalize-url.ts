/**
 * Prospect URL normalisation (docs/reliability.md F.63-F.72). Two outputs with two jobs:
 *
 * - `canonical`: the URL stored and shown. Only changes that keep it pointing at the same resource, plus removal of
 *   noise: lower-case scheme and host, IDN as punycode (WHATWG URL), default port dropped, dot segments resolved,
 *   fragment dropped, tracking parameters dropped, remaining parameters sorted by name, percent-escapes of unreserved
 *   characters decoded (`%7E` → `~`) and other escapes upper-cased (`%2f` → `%2F`, still encoded), trailing dots of
 *   the host dropped. `www.`, the scheme and a trailing slash are kept as given.
 * - `dedupeKey`: what makes two saves "the same target" within a list: the canonical URL without its scheme, without
 *   a leading `www.` and without trailing slashes. So `http://example.com`, `https://www.example.com/` and
 *   `https://example.com/#top` are one prospect, while `/About` and `/about` stay two (paths are case-sensitive).
 *
 * Refused (the caller answers 400): anything but an absolute http(s) URL, credentials (`user:pass@`; never stored),
 * control characters anywhere (C0, DEL, C1), more than 2,048 characters. Leading and trailing whitespace is trimmed.
 * Pure text work: no DNS, no I/O. The SSRF host policy is applied separately (`checkUrl`).
 */

export const MAX_PROSPECT_URL_LENGTH = 2048;

/** Query parameters that only say how a visitor arrived; dropped from canonical URLs (names compared lower-case). */
export const TRACKING_PARAMS: ReadonlySet<string> = new Set([
  // Google Ads / Analytics
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'gad_source',
  '_ga',
  '_gl',
  'srsltid',
  // Other ad networks and social platforms
  'fbclid',
  'msclkid',
  'yclid',
  'ysclid',
  'twclid',
  'ttclid',
  'igshid',
  'li_fat_id',
  // Email platforms (Mailchimp, HubSpot, Marketo, Vero)
  'mc_eid',
  'mc_cid',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'vero_id',
  'vero_conv',
  // Matomo / Piwik campaign names
  'pk_campaign',
  'pk_kwd',
  'pk_source',
  'pk_medium',
  'pk_content',
]);

/** Name prefixes that are tracking whatever follows: `utm_source`, `utm_medium`, ... and Matomo's `mtm_*`. */
export const TRACKING_PREFIXES: readonly string[] = ['utm_', 'mtm_'];

export function isTrackingParam(name: string): boolean {
  const n = name.toLowerCase();
  return TRACKING_PARAMS.has(n) || TRACKING_PREFIXES.some((p) => n.startsWith(p));
}

export interface NormalizedUrl {
  canonical: string;
  dedupeKey: string;
  /** The host without a leading `www.`: the target's domain. */
  domain: string;
}

export type NormalizeResult = { ok: true; value: NormalizedUrl } | { ok: false; reason: string };

// C0 controls, DEL and C1 controls: WHATWG would silently drop tabs and newlines and keep the rest, saving a URL
// other than the one the caller meant.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Decodes percent-escapes of unreserved characters and upper-cases the hex of the others (RFC 3986 6.2.2). */
export function normalizeEscapes(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

function paramName(pair: string): string {
  const raw = pair.split('=', 1)[0]!;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The query without tracking parameters and empty pairs, escapes normalised, sorted by name (stable for repeats). */
export function normalizeQuery(search: string): string {
  const pairs = search
    .replace(/^\?/, '')
    .split('&')
    .filter((p) => p !== '' && !isTrackingParam(paramName(p)))
    .map((p) => {
      const pair = normalizeEscapes(p);
      const eq = pair.indexOf('=');
      return { name: eq === -1 ? pair : pair.slice(0, eq), pair };
    });
  pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return pairs.map((p) => p.pair).join('&');
}

/** Normalises one prospect URL; see the module comment for the rules. */
export function normalizeProspectUrl(input: string): NormalizeResult {
  const text = input.trim();
  if (text === '') return { ok: false, reason: 'URL is empty.' };
  if (text.length > MAX_PROSPECT_URL_LENGTH)
    return { ok: false, reason: `URL is longer than ${MAX_PROSPECT_URL_LENGTH} characters.` };
  if (CONTROL.test(text)) return { ok: false, reason: 'URL contains control characters.' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'URL could not be parsed; send an absolute http or https URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `Scheme ${url.protocol} is not allowed; use http or https.` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'URLs with credentials (user:password@) are not allowed.' };
  }
  // WHATWG has already lower-cased the host, converted IDNs to punycode and normalised IP literals.
  const host = url.hostname.replace(/\.+$/, '');
  if (host === '') return { ok: false, reason: 'URL has no host.' };
  const authority = url.port === '' ? host : `${host}:${url.port}`;
  const path = normalizeEscapes(url.pathname);
  const query = normalizeQuery(url.search);
  const tail = query === '' ? '' : `?${query}`;
  const domain = host.startsWith('www.') && host.slice(4).includes('.') ? host.slice(4) : host;
  const keyAuthority = url.port === '' ? domain : `${domain}:${url.port}`;
  return {
    ok: true,
    value: {
      canonical: `${url.protocol}//${authority}${path}${tail}`,
      dedupeKey: `${keyAuthority}${path.replace(/\/+$/, '')}${tail}`,
      domain,
    },
  };
}
