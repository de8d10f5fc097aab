import { describe, expect, it } from 'vitest';
import { createClientAddressResolver } from '../../src/transport/http/client-address.ts';

describe('the address the failed-authentication limiter counts against (docs/reliability.md I.11)', () => {
  it('I.11 IPv6 clients are grouped by their /64; IPv4 and IPv4-mapped addresses stand for themselves', () => {
    const r = createClientAddressResolver([]);
    expect(r.resolve('2001:db8:1:2:aaaa::1', [])).toBe('2001:db8:1:2::/64');
    expect(r.resolve('2001:db8:1:2:ffff:ffff:ffff:ffff', [])).toBe('2001:db8:1:2::/64');
    expect(r.resolve('2001:db8:1:3::1', [])).toBe('2001:db8:1:3::/64');
    expect(r.resolve('203.0.113.7', [])).toBe('203.0.113.7');
    expect(r.resolve('::ffff:203.0.113.7', [])).toBe('203.0.113.7');
  });

  it('I.11 X-Forwarded-For is read only from a trusted proxy, right to left, skipping trusted hops', () => {
    const none = createClientAddressResolver([]);
    expect(none.resolve('203.0.113.7', ['198.51.100.1'])).toBe('203.0.113.7');
    const proxied = createClientAddressResolver(['10.0.0.0/8', '192.0.2.1']);
    // A forged left-most entry is ignored: the proxy appended the address it saw last.
    expect(proxied.resolve('10.1.2.3', ['1.2.3.4, 198.51.100.9'])).toBe('198.51.100.9');
    expect(proxied.resolve('10.1.2.3', ['198.51.100.9, 192.0.2.1'])).toBe('198.51.100.9');
    expect(proxied.resolve('10.1.2.3', ['198.51.100.9', '10.9.9.9'])).toBe('198.51.100.9');
    expect(proxied.resolve('10.1.2.3', ['2001:db8:5:6::7'])).toBe('2001:db8:5:6::/64');
    // Not from a trusted proxy: the header is whatever the client says, and is ignored.
    expect(proxied.resolve('203.0.113.7', ['198.51.100.9'])).toBe('203.0.113.7');
    // A trusted proxy with no usable header: the proxy itself.
    expect(proxied.resolve('10.1.2.3', [])).toBe('10.1.2.3');
    expect(proxied.resolve('10.1.2.3', ['not-an-address'])).toBe('10.1.2.3');
  });

  it('refuses a trusted-proxy entry that is neither an address nor a CIDR', () => {
    expect(() => createClientAddressResolver(['proxy.internal'])).toThrow(/not an IP address or CIDR/);
  });
});
