import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses the fetcher may connect to. The policy is "globally routable unicast only", written out as
 * explicit CIDR tables (IANA special-purpose registries plus cloud metadata addresses) rather than trusting a
 * library's range names; ipaddr.js parses and matches, and its own classification is only an extra tripwire.
 */

type Rule = readonly [cidr: string, label: string];

// Order matters only for the label: the first match names the reason.
const BLOCKED_V4: readonly Rule[] = [
  ['169.254.169.254/32', 'cloud metadata'],
  ['169.254.170.2/32', 'cloud metadata (ECS)'],
  ['100.100.100.200/32', 'cloud metadata (Alibaba)'],
  ['0.0.0.0/8', 'unspecified ("this network")'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  // Documentation ranges are never real servers; blocking them costs nothing and closes odd routing setups.
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

const BLOCKED_V6: readonly Rule[] = [
  ['fd00:ec2::254/128', 'cloud metadata'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  // Any address carrying an IPv4 address is blocked outright rather than judged by the embedded address:
  // no public web server needs to be reached through these forms.
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['::/96', 'IPv4-compatible'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing SIDs'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

type Parsed = [ipaddr.IPv4 | ipaddr.IPv6, number];
const V4_TABLE: ReadonlyArray<readonly [Parsed, string]> = BLOCKED_V4.map(([c, l]) => [ipaddr.parseCIDR(c), l]);
const V6_TABLE: ReadonlyArray<readonly [Parsed, string]> = BLOCKED_V6.map(([c, l]) => [ipaddr.parseCIDR(c), l]);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** The listed CIDRs, for documentation and tests. */
export const BLOCKED_CIDRS: { readonly v4: readonly Rule[]; readonly v6: readonly Rule[] } = {
  v4: BLOCKED_V4,
  v6: BLOCKED_V6,
};

/**
 * An IP address in canonical text form (IPv6 compressed, lower-case, no brackets), or null when `ip` is not a
 * strict IPv4 dotted quad or IPv6 address. IPv6 goes through the WHATWG parser because ipaddr.js reads
 * `::127.0.0.1` as IPv4-mapped.
 */
export function canonicalIp(ip: string): string | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const kind = isIP(bare);
  if (kind === 4) return ipaddr.IPv4.parse(bare).toString();
  if (kind !== 6 || bare.includes('%')) return null;
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

/** Why `ip` is not a public address (e.g. "loopback"), or null when it is globally routable unicast. */
export function blockedAddressReason(ip: string): string | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // A zone id means a scoped (link-local) address: never a public host.
  if (bare.includes('%')) return 'scoped address';
  const canonical = canonicalIp(bare);
  if (canonical === null) return 'not an IP address';
  const addr = ipaddr.parse(canonical);
  const table = addr.kind() === 'ipv4' ? V4_TABLE : V6_TABLE;
  for (const [range, label] of table) {
    if (range[0].kind() === addr.kind() && addr.match(range)) return label;
  }
  if (addr.kind() === 'ipv6' && !addr.match(GLOBAL_UNICAST_V6)) return 'reserved';
  // Tripwire: if ipaddr.js knows a special range this table lacks, trust the stricter answer.
  const named = addr.range();
  if (named !== 'unicast') return named;
  return null;
}

/** True when `ip` is not a globally routable unicast address (or is not an IP address at all). */
export function isBlockedAddress(ip: string): boolean {
  return blockedAddressReason(ip) !== null;
}
