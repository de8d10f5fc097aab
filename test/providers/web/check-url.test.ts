import { describe, expect, it } from 'vitest';
import { checkUrl, isBlockedHostname, parseAllowList } from '../../../src/providers/web/check-url.ts';
import { ALLOWED_URLS, ssrfSchemeCases, ssrfUrlCases } from '../../helpers/ssrf-cases.ts';

const PORT = 43121;
const casesFor = (id: string) =>
  ssrfUrlCases(PORT)
    .filter((c) => c.id === id)
    .map((c) => [c.url, c.code] as const);

function expectRefused(url: string, code: string) {
  const result = checkUrl(url);
  expect(result.ok, url).toBe(false);
  if (!result.ok) {
    expect(result.code, url).toBe(code);
    expect(result.reason.length).toBeGreaterThan(0);
  }
}

describe('checkUrl', () => {
  it.each(casesFor('E.43'))('E.43 loopback address and localhost names are blocked: %s', expectRefused);
  it.each(casesFor('E.44'))(
    'E.44 decimal, hex, octal and short IPv4 forms are blocked after WHATWG normalisation: %s',
    expectRefused,
  );
  it.each(casesFor('E.45'))('E.45 unspecified and IPv6 loopback are blocked: %s', expectRefused);
  it.each(casesFor('E.46'))('E.46 IPv4-mapped and IPv4-compatible IPv6 are blocked: %s', expectRefused);
  it.each(casesFor('E.47'))('E.47 NAT64, 6to4 and Teredo are blocked: %s', expectRefused);
  it.each(casesFor('E.48'))('E.48 RFC 1918, CGNAT, link-local and ULA are blocked: %s', expectRefused);
  it.each(casesFor('E.49'))('E.49 cloud metadata addresses and names are blocked: %s', expectRefused);
  it.each(casesFor('E.50'))('E.50 .local, .internal and .localhost names are blocked before DNS: %s', expectRefused);
  it.each(casesFor('E.51'))('E.51 URLs with userinfo are rejected: %s', expectRefused);
  it.each(casesFor('E.52'))('E.52 Unicode hosts are checked after UTS-46 mapping: %s', expectRefused);
  it.each(ssrfSchemeCases(PORT).map((c) => [c.url, c.code] as const))(
    'E.58 scheme is refused before any I/O: %s',
    expectRefused,
  );
  it.each(casesFor('E.59'))('E.59 non-default ports on public hosts are blocked (only 80 and 443): %s', expectRefused);

  it('E.59 ports 80 and 443 are allowed on either scheme', () => {
    for (const url of [
      'http://example.com/',
      'https://example.com/',
      'http://example.com:443/',
      'https://example.com:80/',
    ]) {
      expect(checkUrl(url).ok, url).toBe(true);
    }
  });

  it('E.51 the host is the part after @ (WHATWG), and the whole URL is refused', () => {
    const result = checkUrl('http://127.1.1.1:80@example.com/');
    expect(result).toMatchObject({ ok: false, code: 'blocked' });
    if (!result.ok) expect(result.reason).toMatch(/credentials/);
  });

  it('E.52 the reason names the mapped host', () => {
    const result = checkUrl('http://ⓛocalhost/');
    expect(!result.ok && result.reason).toMatch(/localhost/);
    const digits = checkUrl('http://１２７.０.０.１/');
    expect(!digits.ok && digits.reason).toMatch(/127\.0\.0\.1/);
  });

  it.each(ALLOWED_URLS)('accepts the public URL %s', (url) => {
    const result = checkUrl(url);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url.href).toBe(new URL(url).href);
  });

  it('refuses unparsable, empty and control-character URLs as invalid_url', () => {
    for (const url of [
      '',
      '   ',
      'not a url',
      'http://',
      'http://exa mple.com/',
      'http://example.com/\n/x',
      'http://exa\tmple.com/',
      'http://[::1/',
      'http://256.1.1.1/',
      'http://localhost:+11211aaa',
    ]) {
      expectRefused(url, 'invalid_url');
    }
    expectRefused(`http://example.com/${'a'.repeat(9000)}`, 'invalid_url');
  });

  it('trims surrounding whitespace before parsing', () => {
    const result = checkUrl('  https://example.com/a  ');
    expect(result.ok && result.url.href).toBe('https://example.com/a');
  });

  it('blocks single-label names, which the resolver would complete with its search domains', () => {
    expectRefused('http://intranet/', 'blocked');
    expectRefused('http://db./', 'blocked');
  });
});

describe('isBlockedHostname', () => {
  it('E.50 matches suffixes case-insensitively, with or without a trailing dot', () => {
    for (const host of [
      'localhost',
      'LOCALHOST.',
      'Foo.INTERNAL.',
      'printer.local',
      'x.y.localhost',
      'metadata',
      'metadata.google.internal.',
      'metadata.azure.internal',
      'router.home.arpa',
      'ⓛocalhost',
    ]) {
      expect(isBlockedHostname(host), host).toBe(true);
    }
  });

  it('judges IP literals by address, including bracketed IPv6 and IPv4 shorthand', () => {
    for (const host of ['127.0.0.1', '127.1', '2130706433', '[::1]', '::1', '10.1.2.3', '[fd00:ec2::254]']) {
      expect(isBlockedHostname(host), host).toBe(true);
    }
    for (const host of [
      'example.com',
      'EXAMPLE.com.',
      '93.184.216.34',
      '[2606:2800:220:1:248:1893:25c8:1946]',
      'notlocal.com',
      'internal.example.com',
    ]) {
      expect(isBlockedHostname(host), host).toBe(false);
    }
  });

  it('treats strings that are not hosts as blocked', () => {
    for (const host of ['', 'a b', 'evil.com@127.0.0.1', 'example.com:80', 'example.com/path']) {
      expect(isBlockedHostname(host), host).toBe(true);
    }
  });
});

describe('allow-list', () => {
  it('lets exactly the listed loopback host:port through', () => {
    const allow = parseAllowList(['127.0.0.1:43121', '[::1]:43122', 'Fixture.Test:43123']);
    expect(allow.entries).toEqual(['127.0.0.1:43121', '::1:43122', 'fixture.test:43123']);
    expect(checkUrl('http://127.0.0.1:43121/x', { allow }).ok).toBe(true);
    expect(checkUrl('http://[::1]:43122/x', { allow }).ok).toBe(true);
    expect(checkUrl('http://FIXTURE.test.:43123/x', { allow }).ok).toBe(true);
    // Another port, another loopback address, another spelling that is not the same host: still blocked.
    expect(checkUrl('http://127.0.0.1:43124/', { allow }).ok).toBe(false);
    expect(checkUrl('http://127.0.0.2:43121/', { allow }).ok).toBe(false);
    expect(checkUrl('http://localhost:43121/', { allow }).ok).toBe(false);
    expect(checkUrl('http://127.0.0.1/', { allow }).ok).toBe(false);
  });

  it('normalises IPv4 shorthand in both the entry and the URL', () => {
    const allow = parseAllowList(['127.1:80']);
    expect(allow.allows('127.0.0.1', 80)).toBe(true);
    expect(checkUrl('http://2130706433/', { allow }).ok).toBe(true);
  });

  it('never opens credentials, schemes or non-loopback addresses', () => {
    const allow = parseAllowList(['127.0.0.1:43121']);
    expect(checkUrl('http://user@127.0.0.1:43121/', { allow })).toMatchObject({ ok: false, code: 'blocked' });
    expect(checkUrl('ftp://127.0.0.1:43121/', { allow })).toMatchObject({ ok: false, code: 'unsupported_scheme' });
    expect(() => parseAllowList(['10.0.0.1:80'])).toThrow(/loopback/);
    expect(() => parseAllowList(['169.254.169.254:80'])).toThrow(/loopback/);
    expect(() => parseAllowList(['[fd00:ec2::254]:80'])).toThrow(/loopback/);
  });

  it('rejects malformed entries and ignores blanks', () => {
    for (const bad of ['127.0.0.1', '127.0.0.1:0', '127.0.0.1:70000', ':80', 'http://127.0.0.1:80', '::1:80']) {
      expect(() => parseAllowList([bad]), bad).toThrow(/allow-list entry/);
    }
    expect(parseAllowList(['', '  ']).entries).toEqual([]);
  });
});
