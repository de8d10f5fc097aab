import ipaddr from 'ipaddr.js';

/**
 * The address a request is attributed to, for the failed-authentication limiter. Behind a trusted proxy (a listed
 * address or CIDR) the client is the right-most `X-Forwarded-For` entry that is not itself a trusted proxy; without
 * one, the header is ignored (anyone can send it). IPv6 clients are grouped by their /64, the block one customer
 * usually holds, so rotating addresses inside it does not multiply the allowance.
 */
export function createClientAddressResolver(trustedProxies: readonly string[]) {
  const ranges = trustedProxies.map(parseRange);
  const trusted = (address: string): boolean => {
    const parsed = parseAddress(address);
    return (
      parsed !== null && ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))
    );
  };
  return {
    /** The limiter key for a request from `remote` carrying `forwardedFor` (every X-Forwarded-For value, in order). */
    resolve(remote: string | undefined, forwardedFor: readonly string[]): string {
      let client = remote ?? 'unknown';
      if (ranges.length > 0 && trusted(client)) {
        const hops = forwardedFor.flatMap((v) => v.split(',').map((s) => s.trim())).filter(Boolean);
        for (let i = hops.length - 1; i >= 0; i--) {
          const hop = hops[i]!;
          if (parseAddress(hop) === null) break;
          client = hop;
          if (!trusted(hop)) break;
        }
      }
      return groupKey(client);
    },
  };
}

function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

function parseRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (text.includes('/')) {
    const [range, bits] = ipaddr.parseCIDR(text);
    return [
      range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress()
        ? (range as ipaddr.IPv6).toIPv4Address()
        : range,
      range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() ? bits - 96 : bits,
    ];
  }
  const address = parseAddress(text);
  if (!address) throw new Error(`not an IP address or CIDR: ${text}`);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** IPv4 addresses stand for themselves; IPv6 addresses for their /64. */
function groupKey(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return address;
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
