import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { AllowList } from './check-url.ts';
import { blockedAddressReason, canonicalIp } from './ip-policy.ts';

/**
 * The DNS-time half of the SSRF guard. Every address a name resolves to is checked (one bad answer rejects the
 * name), and the socket is handed exactly the checked answers through `net.connect({ lookup })`, so a resolver
 * that changes its mind between check and connect (DNS rebinding) is never asked twice.
 */

/** A resolver with the shape of `dns.lookup(hostname, { all: true }, callback)`; tests inject a stub. */
export type DnsLookup = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export const defaultDnsLookup: DnsLookup = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** Raised from inside the connect path when a name resolves to a non-public address. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_SSRF_BLOCKED';
  readonly host: string;
  constructor(host: string, reason: string) {
    super(`${host} resolves to a non-public address (${reason})`);
    this.name = 'BlockedAddressError';
    this.host = host;
  }
}

/** Raised when the resolver does not answer within the connect time limit. */
export class DnsTimeoutError extends Error {
  readonly code = 'ERR_DNS_TIMEOUT';
  constructor(host: string) {
    super(`resolving ${host} timed out`);
    this.name = 'DnsTimeoutError';
  }
}

// getaddrinfo has no deadline of its own; a stuck resolver would otherwise hold the request until the connect
// timer's coarse tick.
function resolveAll(lookup: DnsLookup, hostname: string, timeoutMs: number | undefined): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer =
      timeoutMs === undefined ? undefined : setTimeout(() => reject(new DnsTimeoutError(hostname)), timeoutMs);
    lookup(hostname, { all: true }, (err, addresses) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(addresses);
    });
  });
}

function notFound(hostname: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  err.code = 'ENOTFOUND';
  return err;
}

/**
 * Resolves `hostname` once and checks every answer; an IP literal is checked without DNS. Addresses are allowed
 * when public or when `address:port` is on the allow-list.
 */
export async function resolveChecked(
  lookup: DnsLookup,
  hostname: string,
  port: number,
  allow?: AllowList,
  timeoutMs?: number,
): Promise<LookupAddress[]> {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const literal = isIP(bare);
  const answers = literal !== 0 ? [{ address: bare, family: literal }] : await resolveAll(lookup, bare, timeoutMs);
  if (!Array.isArray(answers) || answers.length === 0) throw notFound(bare);
  const checked: LookupAddress[] = [];
  for (const answer of answers) {
    const address = canonicalIp(answer.address);
    if (address === null) throw new BlockedAddressError(bare, 'not an IP address');
    if (!allow?.allows(address, port)) {
      const why = blockedAddressReason(address);
      if (why !== null) throw new BlockedAddressError(bare, why);
    }
    checked.push({ address, family: isIP(address) });
  }
  return checked;
}

/**
 * A `net.connect` lookup that answers only with checked addresses for connections to `port`. With
 * autoSelectFamily node asks for all answers and races them; without it, it takes the first of the wanted family.
 */
export function pinnedLookup(lookup: DnsLookup, port: number, allow?: AllowList, timeoutMs?: number): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(lookup, hostname, port, allow, timeoutMs).then(
      (addresses) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
        const first = wanted[0];
        if (first === undefined) return callback(notFound(hostname), '', 0);
        if (options.all) return callback(null, wanted);
        return callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
