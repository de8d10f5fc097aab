import { describe, expect, it } from 'vitest';
import {
  charsetFromContentType,
  charsetFromMarkup,
  decodeBody,
  detectCharset,
  mimeType,
} from '../../../src/providers/web/charset.ts';
import { isTextType } from '../../../src/providers/web/safe-fetch.ts';

const latin1 = (s: string) => Buffer.from(s, 'latin1');

describe('charset detection and decoding', () => {
  it('reads the charset parameter of Content-Type, quoted or not', () => {
    expect(charsetFromContentType('text/html; charset=ISO-8859-2')).toBe('ISO-8859-2');
    expect(charsetFromContentType('text/html;charset="shift_jis"; q=1')).toBe('shift_jis');
    expect(charsetFromContentType('text/html')).toBeNull();
    expect(charsetFromContentType(null)).toBeNull();
    expect(mimeType('Text/HTML; charset=utf-8')).toBe('text/html');
    expect(mimeType('')).toBeNull();
  });

  it('finds <meta charset>, http-equiv and the XML declaration in the first bytes', () => {
    expect(charsetFromMarkup(latin1('<html><head><meta charset="windows-1252">'))).toBe('windows-1252');
    expect(charsetFromMarkup(latin1("<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=euc-kr'>"))).toBe(
      'euc-kr',
    );
    expect(charsetFromMarkup(latin1('<?xml version="1.0" encoding="ISO-8859-1"?><rss/>'))).toBe('ISO-8859-1');
    expect(charsetFromMarkup(latin1(`${' '.repeat(5000)}<meta charset="koi8-r">`))).toBeNull();
  });

  it('prefers BOM, then the header, then markup, then UTF-8', () => {
    const meta = latin1('<meta charset="windows-1252"><p>x</p>');
    expect(detectCharset(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), meta]), 'text/html; charset=iso-8859-2')).toBe(
      'utf-8',
    );
    expect(detectCharset(meta, 'text/html; charset=iso-8859-2')).toBe('iso-8859-2');
    expect(detectCharset(meta, 'text/html')).toBe('windows-1252');
    expect(detectCharset(latin1('<p>plain</p>'), null)).toBe('utf-8');
  });

  it('falls back when a label is unknown, and never trusts a meta claiming UTF-16', () => {
    expect(detectCharset(latin1('<meta charset="klingon">'), 'text/html; charset=bogus')).toBe('utf-8');
    expect(detectCharset(latin1('<meta charset="windows-1252">'), 'text/html; charset=bogus')).toBe('windows-1252');
    expect(detectCharset(latin1('<meta charset="utf-16">'), 'text/html')).toBe('utf-8');
  });

  it('decodes windows-1252 punctuation correctly (Node 20 decodes it as Latin-1)', () => {
    const { text, charset } = decodeBody(latin1('<meta charset="latin1">\x80 \x93q\x94 \x96 \xe9'), 'text/html');
    expect(charset).toBe('windows-1252');
    expect(text).toBe('<meta charset="latin1">€ “q” – é');
  });

  it('decodes Shift_JIS, ISO-8859-2 and malformed UTF-8', () => {
    expect(decodeBody(Buffer.from([0x93, 0xfa, 0x96, 0x7b]), 'text/plain; charset=Shift_JIS')).toEqual({
      text: '日本',
      charset: 'shift_jis',
    });
    expect(decodeBody(Buffer.from([0xb9, 0xe6]), 'text/plain; charset=iso-8859-2').text).toBe('šć');
    // Not UTF-8 at all: read as windows-1252 (charset.test.ts has the sniffing rules).
    expect(decodeBody(Buffer.from([0x61, 0xff, 0x62]), 'text/plain').text).toBe('a\u00ffb');
  });

  it('treats text/*, XML, JSON and untyped bodies as text, others as binary', () => {
    for (const t of [
      'text/html',
      'text/plain',
      'application/xhtml+xml',
      'application/xml',
      'application/json',
      'application/rss+xml',
      'application/ld+json',
      null,
    ]) {
      expect(isTextType(t), String(t)).toBe(true);
    }
    for (const t of ['image/png', 'application/pdf', 'application/octet-stream', 'video/mp4']) {
      expect(isTextType(t), t).toBe(false);
    }
  });
});
