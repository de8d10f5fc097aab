import { isIP } from 'node:net';
import { blockedAddressReason, canonicalIp } from './ip-policy.ts';

/**
 * The synchronous half of the SSRF guard: what can be decided from the URL text alone (no DNS, no I/O).
 * The fetcher repeats it on every redirect hop and adds the DNS-time check; request validation
 * (POST /optimize, save_prospect) uses it to answer 400 before anything is queued.
 */

export type CheckUrlCode = 'invalid_url' | 'unsupported_scheme' | 'blocked';
export type CheckUrlResult = { ok: true; url: URL } | { ok: false; reason: string; code: CheckUrlCode };

/**
 * Loopback `host:port` pairs the guard lets through; for tests and local benches only. A listed pair is allowed
 * both as a URL authority and as a DNS answer, so a listed name can still be caught resolving somewhere else.
 */
export interface AllowList {
  /** The canonical entries, `host:port` (IPv6 without brackets). */
  readonly entries: readonly string[];
  allows(host: string, port: number): boolean;
}

/** Ports a public host may be reached on; anything else could address SSH, Redis, SMTP and the like. */
export const ALLOWED_PORTS: ReadonlySet<number> = new Set([80, 443]);

const MAX_URL_LENGTH = 8192;

// Exact names that are never public web hosts.
const BLOCKED_NAMES: ReadonlySet<string> = new Set([
  'localhost',
  'localhost.localdomain',
  'metadata',
  'metadata.google.internal',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
]);

// Special-use or private suffixes: RFC 6761/6762/7686/8375 and the cloud-internal convention.
const BLOCKED_SUFFIXES: readonly string[] = [
  '.localhost',
  '.local',
  '.internal',
  '.localdomain',
  '.home.arpa',
  '.onion',
  '.invalid',
];

/**
 * A host in the form the checks compare: lower-case, IDNA-mapped, IPv4 forms normalised, IPv6 canonical without
 * brackets, trailing dots removed. Null when it is not a valid host.
 */
export function normaliseHost(host: string): string | null {
  let h = host.trim();
  if (h === '' || /[\s/?#@\\]/.test(h)) return null;
  if (isIP(h) === 6) h = `[${h}]`;
  if (h.includes(':') && !(h.startsWith('[') && h.endsWith(']'))) return null;
  let hostname: string;
  try {
    hostname = new URL(`http://${h}/`).hostname;
  } catch {
    return null;
  }
  if (hostname.startsWith('[')) return canonicalIp(hostname);
  hostname = hostname.replace(/\.+$/, '');
  return hostname === '' ? null : hostname;
}

function nameReason(name: string): string | null {
  if (BLOCKED_NAMES.has(name)) return `${name} is a local or metadata host name`;
  const suffix = BLOCKED_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) return `host names ending in ${suffix} are not public`;
  // A dotless name is completed by the resolver's search list, i.e. looked up in a private zone.
  if (!name.includes('.')) return 'single-label host names are not public';
  return null;
}

function hostReason(host: string): string | null {
  if (isIP(host) !== 0) {
    const why = blockedAddressReason(host);
    return why === null ? null : `${host} is not a public address (${why})`;
  }
  return nameReason(host);
}

/** True when the host (name or IP literal, any case, trailing dot allowed) must never be fetched. */
export function isBlockedHostname(host: string): boolean {
  const h = normaliseHost(host);
  return h === null || hostReason(h) !== null;
}

/** Parses `host:port` entries (IPv6 in brackets); IP entries must be loopback. Throws on a malformed entry. */
export function parseAllowList(entries: readonly string[]): AllowList {
  const keys = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const m = /^(.+):(\d{1,5})$/.exec(entry);
    const port = m ? Number(m[2]) : NaN;
    // IPv6 must be bracketed, or `::1:80` would be ambiguous.
    const rawHost = m?.[1] && (!m[1].includes(':') || m[1].startsWith('[')) ? m[1] : null;
    const host = rawHost ? normaliseHost(rawHost) : null;
    if (host === null || !(port >= 1 && port <= 65535)) {
      throw new Error(`Invalid fetch allow-list entry "${entry}": expected host:port`);
    }
    // The allow-list exists to reach test servers on loopback; it must never open private or metadata ranges.
    if (isIP(host) !== 0 && !/^127\.|^::1$/.test(host)) {
      throw new Error(`Invalid fetch allow-list entry "${entry}": only loopback addresses may be listed`);
    }
    keys.add(`${host}:${port}`);
  }
  const frozen = Object.freeze([...keys]);
  return {
    entries: frozen,
    allows(host: string, port: number): boolean {
      if (keys.size === 0) return false;
      const h = normaliseHost(host);
      return h !== null && keys.has(`${h}:${port}`);
    },
  };
}

/** The default port of http/https, or the explicit one. */
export function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Decides from the text alone whether a URL may be fetched: http(s) only, no credentials, a public host on port
 * 80 or 443. Hosts are judged after WHATWG parsing, so `http://2130706433/` and `http://ⓛocalhost/` are seen as
 * 127.0.0.1 and localhost.
 */
export function checkUrl(input: string, options: { allow?: AllowList } = {}): CheckUrlResult {
  if (typeof input !== 'string') return { ok: false, code: 'invalid_url', reason: 'URL must be a string' };
  const text = input.trim();
  if (text === '') return { ok: false, code: 'invalid_url', reason: 'URL is empty' };
  if (text.length > MAX_URL_LENGTH) return { ok: false, code: 'invalid_url', reason: 'URL is too long' };
  // WHATWG silently drops tabs and newlines inside a URL; refuse them instead of fetching something else.
  if ([...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    return { ok: false, code: 'invalid_url', reason: 'URL contains control characters' };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, code: 'invalid_url', reason: 'URL could not be parsed' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const reason = `scheme ${url.protocol} is not allowed; use http or https`;
    return { ok: false, code: 'unsupported_scheme', reason };
  }
  // Credentials in a URL are either a leak or a parser-confusion trick (`http://evil.com@127.0.0.1/`); the
  // fetcher never sends them, so any URL carrying them is refused rather than silently rewritten.
  if (url.username !== '' || url.password !== '') {
    return { ok: false, code: 'blocked', reason: 'URLs with credentials (user:password@) are not allowed' };
  }
  const host = normaliseHost(url.hostname);
  if (host === null) return { ok: false, code: 'invalid_url', reason: 'URL has no valid host' };
  const port = effectivePort(url);
  if (options.allow?.allows(host, port)) return { ok: true, url };
  const why = hostReason(host);
  if (why !== null) return { ok: false, code: 'blocked', reason: why };
  if (!ALLOWED_PORTS.has(port)) {
    return { ok: false, code: 'blocked', reason: `port ${port} is not allowed; only 80 and 443 are fetched` };
  }
  return { ok: true, url };
}
