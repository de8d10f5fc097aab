/**
 * The SSRF-safe page fetcher: the only way the server reaches the network for a user-supplied URL.
 *
 * Policy:
 * - Schemes: http and https only. URLs carrying credentials (`user:pass@`) are refused, never rewritten.
 * - Hosts are judged after WHATWG parsing (IPv4 shorthand, IDNA mapping): local and metadata names
 *   (`localhost`, `*.local`, `*.internal`, `metadata`, single-label names, ...) and IP literals outside globally
 *   routable unicast (see ip-policy.ts) are refused before any I/O.
 * - Ports: only 80 and 443 (services like SSH or Redis on a public host are not web pages).
 * - DNS: every answer must be public (one bad answer rejects the name); the socket connects to exactly the checked
 *   answers through `net.connect({ lookup })`, so DNS rebinding between check and connect cannot happen.
 * - Redirects: followed by hand, at most `maxRedirects` (5); every hop is re-checked (URL and DNS) and
 *   https -> http is refused.
 * - Limits: connect, response headers (slow-loris) and total body time; the decompressed body is capped at
 *   `maxBytes` (5 MiB) while streaming. gzip, deflate and br are decoded.
 * - Environment proxies (HTTP_PROXY, ...) are ignored: requests go through this fetcher's own undici Agent.
 * - Loopback test servers are reachable only through an explicit `host:port` allow-list; nothing disables the guard.
 */
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { iso, systemClock, type TimeSource } from '../../clock.ts';
import { FetchError, type FetchedPage, type FetchOptions, type PageFetcher } from '../types.ts';
import { decodeBody, mimeType } from './charset.ts';
import { checkUrl, effectivePort, type AllowList } from './check-url.ts';
import {
  BlockedAddressError,
  DnsTimeoutError,
  defaultDnsLookup,
  pinnedLookup,
  resolveChecked,
  type DnsLookup,
} from './dns-check.ts';
import { blockedAddressReason, canonicalIp } from './ip-policy.ts';
import {
  ACCEPT_ENCODING,
  BodyDecodeError,
  BodyTooLargeError,
  UnsupportedEncodingError,
  parseContentEncoding,
  readBody,
} from './safe-body.ts';
import { nextHop, REDIRECT_STATUSES } from './safe-redirect.ts';

export { checkUrl, isBlockedHostname, parseAllowList, type AllowList, type CheckUrlResult } from './check-url.ts';
export { isBlockedAddress } from './ip-policy.ts';
export type { DnsLookup } from './dns-check.ts';

export const DEFAULT_USER_AGENT = 'agent-api/0.1 (+https://github.com/agent-api; SEO page analysis)';

export interface SafeFetcherOptions {
  /** DNS resolver with the `dns.lookup(host, { all: true }, cb)` shape; defaults to dns.lookup. */
  lookup?: DnsLookup;
  /** Test-only loopback `host:port` pairs (see parseAllowList). */
  allow?: AllowList;
  userAgent?: string;
  /** DNS plus TCP (and TLS) connect, per hop. Default 10 s. */
  connectTimeoutMs?: number;
  /** From connected to complete response headers, per hop. Default 15 s. */
  headersTimeoutMs?: number;
  /** From headers to the last body byte, in total (not idle time). Default 30 s. */
  bodyTimeoutMs?: number;
  /** Cap on the decompressed body. Default 5 MiB. */
  maxBytes?: number;
  /** Redirects followed before `too_many_redirects`. Default 5. */
  maxRedirects?: number;
  /** Happy Eyeballs across the checked addresses. Default true. */
  autoSelectFamily?: boolean;
  /** PEM certificates trusted besides the system's (loopback test servers over TLS; AGENT_API_TEST_FETCH_CA). */
  extraCa?: string;
  clock?: TimeSource;
}

/** A PageFetcher plus the DNS-inclusive check without a connection, and shutdown. */
export interface SafeFetcher extends PageFetcher {
  /** checkUrl plus the DNS check of every answer; never connects. Throws FetchError. */
  check(url: string): Promise<{ url: URL; addresses: string[] }>;
  close(): Promise<void>;
}

const TEXT_TYPES: ReadonlySet<string> = new Set(['application/xhtml+xml', 'application/xml', 'application/json']);

/** Whether a MIME type gets a decoded body; an absent type is read as text (pages often omit it). */
export function isTextType(mime: string | null): boolean {
  if (mime === null) return true;
  return mime.startsWith('text/') || TEXT_TYPES.has(mime) || mime.endsWith('+xml') || mime.endsWith('+json');
}

type Phase = 'headers' | 'body';

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Drops a body we will not read; the abort error undici raises for it has nobody to go to. */
function discard(body: Dispatcher.ResponseData['body']): void {
  if (body.destroyed) return;
  body.on('error', () => undefined);
  body.destroy();
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function toFetchError(err: unknown, url: string, timedOut: Phase | null): FetchError {
  if (err instanceof FetchError) return err;
  if (timedOut) return new FetchError('timeout', url, `no complete response ${timedOut} in time`);
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (err instanceof BlockedAddressError) return new FetchError('blocked', url, err.message);
  if (cause instanceof BlockedAddressError) return new FetchError('blocked', url, cause.message);
  if (err instanceof BodyTooLargeError) return new FetchError('too_large', url, err.message);
  if (err instanceof UnsupportedEncodingError || err instanceof BodyDecodeError) {
    return new FetchError('network', url, err.message);
  }
  const code = errorCode(err);
  if (err instanceof DnsTimeoutError || cause instanceof DnsTimeoutError) {
    return new FetchError('timeout', url, 'DNS resolution timed out');
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new FetchError('timeout', url, 'connect timed out');
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new FetchError('timeout', url, 'no complete response headers in time');
  if (code === 'UND_ERR_BODY_TIMEOUT') return new FetchError('timeout', url, 'no complete response body in time');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') {
    return new FetchError('network', url, 'host name could not be resolved');
  }
  return new FetchError('network', url, code ? `request failed (${code})` : 'request failed');
}

/** Builds the live PageFetcher with its own undici Agent; call `close()` when done. */
export function createSafeFetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const lookup = options.lookup ?? defaultDnsLookup;
  const allow = options.allow;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const headersTimeoutMs = options.headersTimeoutMs ?? 15_000;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const autoSelectFamily = options.autoSelectFamily ?? true;
  const clock = options.clock ?? systemClock;

  // net.connect's lookup does not see the port, and the allow-list is per host:port: one connector per port.
  const connectors = new Map<number, buildConnector.connector>();
  const connectorFor = (port: number): buildConnector.connector => {
    let connector = connectors.get(port);
    if (!connector) {
      connector = buildConnector({
        timeout: connectTimeoutMs,
        lookup: pinnedLookup(lookup, port, allow, connectTimeoutMs),
        autoSelectFamily,
        ...(options.extraCa ? { ca: [...rootCertificates, options.extraCa] } : {}),
      });
      connectors.set(port, connector);
    }
    return connector;
  };
  const connect: buildConnector.connector = (opts, callback) => {
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    // net.connect skips `lookup` for IP literals; checkUrl already refused them, this is the second lock.
    if (isIP(opts.hostname) !== 0) {
      const address = canonicalIp(opts.hostname) ?? opts.hostname;
      const why = allow?.allows(address, port) ? null : blockedAddressReason(address);
      if (why !== null) return callback(new BlockedAddressError(opts.hostname, why), null);
    }
    connectorFor(port)(opts, callback);
  };
  const agent = new Agent({
    connect,
    headersTimeout: headersTimeoutMs,
    bodyTimeout: bodyTimeoutMs,
    keepAliveTimeout: 4_000,
  });

  function checked(input: string): URL {
    const result = checkUrl(input, allow ? { allow } : {});
    if (!result.ok) throw new FetchError(result.code, input, result.reason);
    return result.url;
  }

  async function hop(
    url: URL,
    requestedUrl: string,
    signal: AbortSignal | undefined,
  ): Promise<{ page: FetchedPage } | { location: string }> {
    const controller = new AbortController();
    let timedOut: Phase | null = null;
    const expire = (phase: Phase) => () => {
      timedOut = phase;
      controller.abort();
    };
    let timer = setTimeout(expire('headers'), connectTimeoutMs + headersTimeoutMs);
    const combined = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    let res: Dispatcher.ResponseData | undefined;
    try {
      res = await request(url, {
        method: 'GET',
        dispatcher: agent,
        signal: combined,
        headers: {
          'user-agent': userAgent,
          accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
          'accept-encoding': ACCEPT_ENCODING,
        },
      });
      clearTimeout(timer);
      timer = setTimeout(expire('body'), bodyTimeoutMs);
      const headers = flattenHeaders(res.headers);
      const location = headers['location'];
      if (REDIRECT_STATUSES.has(res.statusCode) && location !== undefined) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        return { location };
      }
      const contentTypeHeader = headers['content-type'] ?? null;
      const contentType = mimeType(contentTypeHeader);
      const status = res.statusCode;
      const base = { requestedUrl, url: url.href, status, headers, contentType, source: 'live' as const };
      if (!isTextType(contentType)) {
        // Binary bodies are not analysed, so they are not downloaded either.
        discard(res.body);
        return { page: { ...base, charset: '', body: '', bytes: 0, fetchedAt: iso(clock.now()) } };
      }
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) throw new BodyTooLargeError(maxBytes);
      const bytes = await readBody(res.body, parseContentEncoding(headers['content-encoding']), maxBytes);
      const { text, charset } = decodeBody(bytes, contentTypeHeader);
      return { page: { ...base, charset, body: text, bytes: bytes.length, fetchedAt: iso(clock.now()) } };
    } catch (err) {
      if (res) discard(res.body);
      if (signal?.aborted && !timedOut) throw signal.reason;
      throw toFetchError(err, requestedUrl, timedOut);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async fetch(input: string, fetchOptions: FetchOptions = {}): Promise<FetchedPage> {
      const signal = fetchOptions.signal;
      signal?.throwIfAborted();
      let url = checked(input);
      const requestedUrl = url.href;
      for (let redirects = 0; ; redirects++) {
        const result = await hop(url, requestedUrl, signal);
        if ('page' in result) return result.page;
        if (redirects >= maxRedirects) {
          throw new FetchError('too_many_redirects', requestedUrl, `more than ${maxRedirects} redirects`);
        }
        url = nextHop(url, result.location, requestedUrl, allow);
      }
    },

    async check(input: string): Promise<{ url: URL; addresses: string[] }> {
      const url = checked(input);
      try {
        const answers = await resolveChecked(lookup, url.hostname, effectivePort(url), allow, connectTimeoutMs);
        return { url, addresses: answers.map((a) => a.address) };
      } catch (err) {
        throw toFetchError(err, input, null);
      }
    },

    close: () => agent.close(),
  };
}
