import { describe, expect, it } from 'vitest';
import {
  isTrackingParam,
  normalizeEscapes,
  normalizeProspectUrl,
  normalizeQuery,
} from '../../src/engine/prospects/normalize-url.ts';
import { prepareProspectUrl } from '../../src/engine/prospects/service.ts';
import { checkUrl } from '../../src/providers/web/safe-fetch.ts';

/** docs/reliability.md F.63-F.70 at the normaliser itself; the API-level cases (and F.71, F.72) are in dedupe.test.ts. */

function norm(url: string) {
  const r = normalizeProspectUrl(url);
  if (!r.ok) throw new Error(`${url}: ${r.reason}`);
  return r.value;
}
const key = (url: string) => norm(url).dedupeKey;
const reason = (url: string) => {
  const r = normalizeProspectUrl(url);
  return r.ok ? null : r.reason;
};

describe('prospect URL normalisation', () => {
  it('F.63 scheme and host case, default port, dot segments, sorted query and fragment', () => {
    expect(norm('HTTPS://Example.COM:443/a/./b/../c?b=2&a=1#frag').canonical).toBe('https://example.com/a/c?a=1&b=2');
    expect(norm('http://EXAMPLE.com:80/').canonical).toBe('http://example.com/');
    // A non-default port for the scheme is kept, in the canonical URL and the key.
    expect(norm('http://example.com:443/').canonical).toBe('http://example.com:443/');
    expect(key('http://example.com:443/')).not.toBe(key('http://example.com/'));
    expect(norm('https://example.com/a/%2e%2e/b').canonical).toBe('https://example.com/b');
    expect(norm('https://example.com./x').canonical).toBe('https://example.com/x');
  });

  it('F.64 scheme, www., a missing or trailing root slash and a fragment give one dedupe key', () => {
    const variants = [
      'http://example.com',
      'https://example.com/',
      'https://www.example.com',
      'https://example.com/#top',
      'HTTP://WWW.EXAMPLE.COM:80/#',
    ];
    expect(new Set(variants.map(key))).toEqual(new Set(['example.com']));
    // The canonical URL keeps www. and the scheme as sent (they are what the caller saved); only the key drops them.
    expect(norm('https://www.example.com').canonical).toBe('https://www.example.com/');
    expect(norm('http://example.com').canonical).toBe('http://example.com/');
    // Only a leading www. label of a longer name is dropped.
    expect(key('https://www.com/')).toBe('www.com');
    expect(key('https://www2.example.com/')).toBe('www2.example.com');
    expect(key('https://shop.www.example.com/')).toBe('shop.www.example.com');
  });

  it('F.65 a trailing slash is the same target; path case is not', () => {
    expect(key('https://example.com/path/')).toBe(key('https://example.com/path'));
    expect(key('https://example.com/path//')).toBe(key('https://example.com/path'));
    expect(key('https://example.com/About')).not.toBe(key('https://example.com/about'));
    expect(norm('https://example.com/path/').canonical).toBe('https://example.com/path/');
    // Query and trailing slash together.
    expect(key('https://example.com/p/?q=1')).toBe(key('https://example.com/p?q=1'));
  });

  it('F.66 tracking parameters are dropped, others kept', () => {
    expect(norm('https://example.com/?utm_source=x&utm_medium=y&gclid=1&fbclid=2&id=7').canonical).toBe(
      'https://example.com/?id=7',
    );
    expect(norm('https://example.com/?msclkid=1&mc_eid=2&yclid=3&_ga=4&UTM_Campaign=5&utm_content=6').canonical).toBe(
      'https://example.com/',
    );
    // Matched after decoding and case-insensitively; `ref` is content (e.g. git refs) and stays.
    expect(norm('https://example.com/?%75tm_source=1&ref=main&q=a').canonical).toBe(
      'https://example.com/?q=a&ref=main',
    );
    for (const name of [
      'utm_source',
      'utm_anything',
      'gclid',
      'fbclid',
      'msclkid',
      'mc_eid',
      'yclid',
      '_ga',
      'mtm_campaign',
      'pk_campaign',
      '_hsenc',
      'mkt_tok',
    ]) {
      expect(isTrackingParam(name), name).toBe(true);
    }
    for (const name of ['id', 'ref', 'page', 'q', 'utm', 'source', 'gclid2'])
      expect(isTrackingParam(name), name).toBe(false);
    // Empty pairs and a bare `?` disappear; repeated names keep their relative order.
    expect(normalizeQuery('?&b=1&&a=2&a=1&')).toBe('a=2&a=1&b=1');
    expect(norm('https://example.com/?').canonical).toBe('https://example.com/');
  });

  it('F.67 an IDN and its punycode form are the same', () => {
    expect(norm('https://bücher.example/').canonical).toBe('https://xn--bcher-kva.example/');
    expect(key('https://bücher.example/')).toBe(key('https://xn--bcher-kva.example/'));
    expect(key('https://BÜCHER.example/')).toBe(key('https://xn--bcher-kva.example/'));
  });

  it('F.68 escapes of unreserved characters are decoded; reserved ones stay encoded (hex upper-cased)', () => {
    expect(key('https://example.com/%7Euser')).toBe(key('https://example.com/~user'));
    expect(norm('https://example.com/%7euser').canonical).toBe('https://example.com/~user');
    expect(key('https://example.com/a%2Fb')).not.toBe(key('https://example.com/a/b'));
    expect(norm('https://example.com/a%2fb').canonical).toBe('https://example.com/a%2Fb');
    expect(normalizeEscapes('%41%2d%5f%2E%20%3f')).toBe('A-_.%20%3F');
    expect(norm('https://example.com/?q=%7e%2F').canonical).toBe('https://example.com/?q=~%2F');
  });

  it('F.69 credentials are refused, never stripped into a stored URL', () => {
    for (const url of ['https://user:pass@example.com/', 'https://user@example.com/', 'https://:pw@example.com/']) {
      expect(reason(url), url).toMatch(/credentials/);
    }
  });

  it('F.70 surrounding whitespace is trimmed; control characters anywhere are refused', () => {
    expect(norm('  \t https://example.com/a \n').canonical).toBe('https://example.com/a');
    for (const url of [
      'https://exa\nmple.com/',
      'https://example.com/a\tb',
      'https://example.com/a\r\nb',
      'https://example.com/\u0000',
      'https://example.com/\u007f',
      'https://example.com/\u0085',
    ]) {
      expect(reason(url), JSON.stringify(url)).toMatch(/control characters/);
    }
  });

  it('refuses what is not an absolute http(s) URL', () => {
    for (const url of [
      '',
      '   ',
      'example.com',
      '/relative',
      'mailto:a@example.com',
      'ftp://example.com/',
      'javascript:alert(1)',
      'https://',
      `https://example.com/${'a'.repeat(2048)}`,
    ]) {
      expect(reason(url), url).not.toBeNull();
    }
  });

  it('applies the SSRF host policy to the text as sent and to the canonical form', () => {
    expect(prepareProspectUrl('https://www.example.com/', (u) => checkUrl(u)).ok).toBe(true);
    for (const url of ['http://LOCALHOST./', 'http://10.0.0.1/', 'http://example.com:8080/', 'http://[::1]/']) {
      const r = prepareProspectUrl(url, (u) => checkUrl(u));
      expect(r.ok, url).toBe(false);
    }
    // Both forms are checked: a policy that refuses only the canonical form still refuses.
    const seen: string[] = [];
    const r = prepareProspectUrl(
      ' https://Example.com/a?utm_source=x ',
      (u) => (
        seen.push(u),
        u === 'https://example.com/a' ? { ok: false, reason: 'no' } : { ok: true, url: new URL(u) }
      ),
    );
    expect(r.ok).toBe(false);
    expect(seen).toEqual(['https://Example.com/a?utm_source=x', 'https://example.com/a']);
  });
});
