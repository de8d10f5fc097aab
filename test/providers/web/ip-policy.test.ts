import { describe, expect, it } from 'vitest';
import {
  BLOCKED_CIDRS,
  blockedAddressReason,
  canonicalIp,
  isBlockedAddress,
} from '../../../src/providers/web/ip-policy.ts';

const BLOCKED: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['0.0.0.0', 'unspecified ("this network")'],
  ['0.1.2.3', 'unspecified ("this network")'],
  ['10.0.0.5', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.255', 'carrier-grade NAT'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'cloud metadata'],
  ['169.254.170.2', 'cloud metadata (ECS)'],
  ['100.100.100.200', 'cloud metadata (Alibaba)'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'IPv4-mapped'],
  ['::ffff:93.184.216.34', 'IPv4-mapped'],
  ['::127.0.0.1', 'IPv4-compatible'],
  ['::7f00:1', 'IPv4-compatible'],
  ['64:ff9b::7f00:1', 'NAT64'],
  ['64:ff9b:1::1', 'local-use NAT64'],
  ['100::1', 'discard-only'],
  ['2001:0:1::1', 'Teredo'],
  ['2001:2::1', 'IETF protocol assignments'],
  ['2001:db8::1', 'documentation'],
  ['2002:7f00:1::1', '6to4'],
  ['3fff::1', 'documentation'],
  ['5f00::1', 'segment routing SIDs'],
  ['fc00::1', 'unique-local'],
  ['fd12::1', 'unique-local'],
  ['fd00:ec2::254', 'cloud metadata'],
  ['fe80::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['4000::1', 'reserved'],
  ['[::1]', 'loopback'],
  ['fe80::1%eth0', 'scoped address'],
];

const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '142.250.72.14',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '169.253.255.255',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:2800:220:1:248:1893:25c8:1946',
  '2001:4860:4860::8888',
  '2a03:2880:f12f:83:face:b00c:0:25de',
  '2001:200::1',
];

describe('ip policy', () => {
  it.each(BLOCKED)('%s is blocked as %s', (ip, label) => {
    expect(blockedAddressReason(ip)).toBe(label);
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(PUBLIC)('%s is public', (ip) => {
    expect(blockedAddressReason(ip)).toBeNull();
    expect(isBlockedAddress(ip)).toBe(false);
  });

  it('treats anything that is not a strict IP address as blocked', () => {
    for (const junk of ['', 'localhost', '2130706433', '0x7f.1', '127.1', '1.2.3.4.5', '::g', '[::1']) {
      expect(isBlockedAddress(junk), junk).toBe(true);
    }
  });

  it('canonicalises IPv6 through the WHATWG parser (ipaddr.js reads ::a.b.c.d as mapped)', () => {
    expect(canonicalIp('::127.0.0.1')).toBe('::7f00:1');
    expect(canonicalIp('0:0:0:0:0:ffff:127.0.0.1')).toBe('::ffff:7f00:1');
    expect(canonicalIp('[2001:DB8::1]')).toBe('2001:db8::1');
    expect(canonicalIp('127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalIp('127.1')).toBeNull();
  });

  it('lists every blocked range explicitly, with valid CIDRs', () => {
    const cidrs = [...BLOCKED_CIDRS.v4, ...BLOCKED_CIDRS.v6].map(([cidr]) => cidr);
    for (const required of [
      '10.0.0.0/8',
      '100.64.0.0/10',
      '127.0.0.0/8',
      '169.254.0.0/16',
      '172.16.0.0/12',
      '192.168.0.0/16',
      'fc00::/7',
      'fe80::/10',
      '::ffff:0:0/96',
      '64:ff9b::/96',
      '2002::/16',
      '2001::/32',
    ]) {
      expect(cidrs).toContain(required);
    }
  });
});
