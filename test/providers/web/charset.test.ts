import { describe, expect, it } from 'vitest';
import { declaredCharset, decodeBody, detectCharset } from '../../../src/providers/web/charset.ts';
import { decodeText } from '../../../src/providers/web/archive/body.ts';

/**
 * Decoding by the page's real charset: a declaration is checked against the bytes, so a UTF-8 page
 * that declares windows-1252 or ISO-8859-1 (a server's default) and a windows-1252 page that declares or defaults to
 * UTF-8 both read right; a `™` never comes out as `â\x84¢`.
 */

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const cp1252 = (s: string) => {
  // windows-1252's bytes for the few characters above U+00FF these tests use; the rest is Latin-1.
  const high: Record<string, number> = { '™': 0x99, '’': 0x92, '“': 0x93, '”': 0x94, '–': 0x96, '€': 0x80 };
  return Buffer.from([...s].map((c) => high[c] ?? c.charCodeAt(0)));
};
const page = (head: string, body: string) =>
  `<html><head>${head}<title>${body}</title></head><body><p>${body}</p></body></html>`;
const TEXT = 'Acme™ — “Café” naïve façade, 20 €';
const LEGACY = 'Acme™ “Café” naïve façade – 20 €';

describe('a declaration the bytes contradict', () => {
  for (const [label, head, header] of [
    ['meta windows-1252', '<meta charset="windows-1252">', 'text/html'],
    ['meta iso-8859-1', '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">', null],
    ['header latin1', '', 'text/html; charset=latin1'],
    ['header ISO-8859-1 over a UTF-8 meta', '<meta charset="utf-8">', 'text/html; charset=ISO-8859-1'],
    ['meta windows-1251', '<meta charset="windows-1251">', null],
  ] as const) {
    it(`a UTF-8 page under ${label} decodes as UTF-8`, () => {
      const bytes = utf8(page(head, TEXT));
      expect(declaredCharset(bytes, header)).not.toBe('utf-8');
      const { text, charset } = decodeBody(bytes, header);
      expect(charset).toBe('utf-8');
      expect(text).toContain(TEXT);
      expect(text).not.toMatch(/â|\u0084/);
    });
  }

  for (const [label, head, header] of [
    ['meta utf-8', '<meta charset="utf-8">', null],
    ['header utf-8', '', 'text/html; charset=UTF-8'],
    ['no declaration', '', null],
  ] as const) {
    it(`a windows-1252 page under ${label} decodes as windows-1252`, () => {
      const { text, charset } = decodeBody(cp1252(page(head, LEGACY)), header);
      expect(charset).toBe('windows-1252');
      expect(text).toContain(LEGACY);
      expect(text).not.toContain('\ufffd');
    });
  }

  it('a declaration the bytes agree with stands', () => {
    expect(decodeBody(cp1252(page('<meta charset="windows-1252">', LEGACY)), null)).toMatchObject({
      charset: 'windows-1252',
    });
    expect(decodeBody(utf8(page('<meta charset="utf-8">', TEXT)), null).charset).toBe('utf-8');
    // Pure ASCII keeps its declared name: every single-byte encoding reads it the same.
    expect(detectCharset(utf8(page('<meta charset="koi8-r">', 'plain')), null)).toBe('koi8-r');
    // Encodings that are not single-byte are not second-guessed by this rule.
    expect(detectCharset(utf8(page('<meta charset="shift_jis">', TEXT)), null)).toBe('shift_jis');
  });

  it('a byte-order mark is never second-guessed', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), cp1252(LEGACY)]);
    expect(detectCharset(bytes, 'text/html; charset=windows-1252')).toBe('utf-8');
  });

  it('a UTF-8 page with a stray legacy byte stays UTF-8 (U+FFFD for that byte)', () => {
    const bytes = Buffer.concat([utf8(`${TEXT} ${TEXT} `), Buffer.from([0x96]), utf8(' end')]);
    const { text, charset } = decodeBody(bytes, 'text/html');
    expect(charset).toBe('utf-8');
    expect(text).toBe(`${TEXT} ${TEXT} \ufffd end`);
  });

  it('a UTF-8 body cut inside its last character (a size limit) is still UTF-8, under any declaration', () => {
    const whole = utf8(`${TEXT} ™`);
    const cut = whole.subarray(0, whole.length - 1);
    expect(detectCharset(cut, 'text/html')).toBe('utf-8');
    expect(detectCharset(cut, 'text/html; charset=windows-1252')).toBe('utf-8');
    expect(decodeBody(cut, 'text/html').text).toBe(`${TEXT} \ufffd`);
  });

  it('overlong forms and encoded surrogates do not count as UTF-8', () => {
    // C0 AF is an overlong '/', ED A0 80 an encoded surrogate: windows-1252 text, not UTF-8.
    expect(detectCharset(Buffer.from([0x61, 0xc0, 0xaf, 0x62]), null)).toBe('windows-1252');
    expect(detectCharset(Buffer.from([0x61, 0xed, 0xa0, 0x80, 0x62]), null)).toBe('windows-1252');
  });

  it('the archive decodes with the same rules (body.ts decodeText)', () => {
    const bytes = utf8(page('', TEXT));
    expect(decodeText(bytes, 'text/html; charset=iso-8859-1', 'text/html')).toEqual(
      decodeBody(bytes, 'text/html; charset=iso-8859-1'),
    );
    expect(decodeText(bytes, 'text/html; charset=iso-8859-1', 'text/html').text).toContain('Acme™');
  });
});
