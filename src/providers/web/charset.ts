/**
 * Picks the character encoding of a fetched or archived body the way browsers do, in order: byte-order mark, the
 * Content-Type charset, then a `<meta charset>` / `http-equiv` / XML declaration in the first bytes, else UTF-8.
 * Labels go through TextDecoder (WHATWG Encoding), so `latin1` means windows-1252 and unknown labels fall through.
 *
 * Then the declaration is checked against the bytes, because it is often wrong: servers default to ISO-8859-1 for
 * pages written in UTF-8, and legacy pages carry no declaration at all. Decoding by a wrong declaration is what
 * turned a `™` into `â\x84¢` (its UTF-8 bytes read one by one, U+0084 being a C1 control character), and that text
 * then reached drafts the service itself refused. So, like a browser's sniffing:
 * - a single-byte charset declared over bytes that are valid UTF-8 with multi-byte sequences is UTF-8 (real
 *   windows-1252 text is almost never valid UTF-8 once it has a byte above 0x7F: an accented letter would have to be
 *   followed by exactly the right punctuation bytes, every time);
 * - UTF-8 declared or assumed over bytes that are not UTF-8 is windows-1252 (what browsers assume for legacy western
 *   pages), unless the valid multi-byte sequences outnumber the invalid bytes: a UTF-8 page with a stray legacy byte
 *   keeps its UTF-8 and shows U+FFFD for that byte.
 * A sequence cut off by the end of the body (a size limit) counts as neither. A byte-order mark is never second-guessed.
 */
import { isUtf8 } from 'node:buffer';

/** How far into the body the prescan looks (HTML says 1024 bytes; real pages put the meta a little later). */
export const PRESCAN_BYTES = 4096;

/** The charset parameter of a Content-Type header, or null. */
export function charsetFromContentType(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]+))/i.exec(header);
  const label = (m?.[1] ?? m?.[2] ?? '').trim();
  return label === '' ? null : label;
}

/** The MIME type of a Content-Type header without parameters, lower-case, or null. */
export function mimeType(header: string | null | undefined): string | null {
  if (!header) return null;
  const mime = header.split(';')[0]?.trim().toLowerCase() ?? '';
  return mime === '' ? null : mime;
}

function bomEncoding(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

/** The charset a `<meta>` tag or XML declaration in the first bytes declares, or null. */
export function charsetFromMarkup(bytes: Uint8Array): string | null {
  // latin1 maps bytes 1:1, so the ASCII-compatible markup can be searched as text whatever the real encoding.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, PRESCAN_BYTES)).toString('latin1');
  const xml = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml?.[1]) return xml[1].trim();
  // Covers `<meta charset="x">` and `<meta http-equiv="Content-Type" content="text/html; charset=x">`.
  const meta = /<meta\s[^>]*?charset\s*=\s*["']?\s*([^\s"'/>;]+)/i.exec(head);
  return meta?.[1] ? meta[1].trim() : null;
}

/** The WHATWG encoding name for a label, or null when TextDecoder does not know it. */
export function resolveEncoding(label: string): string | null {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

/** The encoding a body declares (or a browser assumes), before the bytes are checked; a WHATWG encoding name. */
export function declaredCharset(bytes: Uint8Array, contentTypeHeader: string | null | undefined): string {
  const bom = bomEncoding(bytes);
  if (bom) return bom;
  const fromHeader = charsetFromContentType(contentTypeHeader);
  const headerEncoding = fromHeader ? resolveEncoding(fromHeader) : null;
  if (headerEncoding) return headerEncoding;
  const declared = charsetFromMarkup(bytes);
  const metaEncoding = declared ? resolveEncoding(declared) : null;
  // A document whose markup could be read as ASCII is not UTF-16 whatever it says (HTML prescan rule).
  if (metaEncoding === 'utf-16le' || metaEncoding === 'utf-16be') return 'utf-8';
  return metaEncoding ?? 'utf-8';
}

/** WHATWG's single-byte encodings: every byte decodes to something, so a wrong one fails silently. */
const SINGLE_BYTE = new Set([
  'ibm866',
  'iso-8859-2',
  'iso-8859-3',
  'iso-8859-4',
  'iso-8859-5',
  'iso-8859-6',
  'iso-8859-7',
  'iso-8859-8',
  'iso-8859-8-i',
  'iso-8859-10',
  'iso-8859-13',
  'iso-8859-14',
  'iso-8859-15',
  'iso-8859-16',
  'koi8-r',
  'koi8-u',
  'macintosh',
  'windows-874',
  'windows-1250',
  'windows-1251',
  'windows-1252',
  'windows-1253',
  'windows-1254',
  'windows-1255',
  'windows-1256',
  'windows-1257',
  'windows-1258',
  'x-mac-cyrillic',
]);

/** The length of a UTF-8 sequence its lead byte announces; 0 for a byte that cannot lead one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The body without a multi-byte sequence cut off at its very end (a body truncated at a size limit). */
function withoutCutTail(bytes: Uint8Array): Uint8Array {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const b = bytes[bytes.length - back]!;
    if (b < 0x80) return bytes;
    if (b >= 0xc0) return sequenceLength(b) > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}

function hasHighByte(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return true;
  return false;
}

/** Valid multi-byte UTF-8 sequences and bytes that belong to no valid sequence, counted by hand (the rare case). */
function utf8Census(bytes: Uint8Array): { multiByte: number; invalid: number } {
  let multiByte = 0;
  let invalid = 0;
  let i = 0;
  while (i < bytes.length) {
    const n = sequenceLength(bytes[i]!);
    if (n === 1) {
      i++;
      continue;
    }
    let ok = n > 0 && i + n <= bytes.length;
    for (let k = 1; ok && k < n; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    // Overlong three- and four-byte forms, surrogates and code points above U+10FFFF (RFC 3629's table).
    if (ok && n === 3)
      ok = !(bytes[i] === 0xe0 && bytes[i + 1]! < 0xa0) && !(bytes[i] === 0xed && bytes[i + 1]! >= 0xa0);
    if (ok && n === 4)
      ok = !(bytes[i] === 0xf0 && bytes[i + 1]! < 0x90) && !(bytes[i] === 0xf4 && bytes[i + 1]! >= 0x90);
    if (ok) {
      multiByte++;
      i += n;
    } else {
      invalid++;
      i++;
    }
  }
  return { multiByte, invalid };
}

/** The encoding to decode a body with, as a WHATWG encoding name: the declared one, checked against the bytes. */
export function detectCharset(bytes: Uint8Array, contentTypeHeader: string | null | undefined): string {
  const declared = declaredCharset(bytes, contentTypeHeader);
  if (bomEncoding(bytes)) return declared;
  if (declared !== 'utf-8' && !SINGLE_BYTE.has(declared)) return declared;
  if (declared !== 'utf-8') {
    // Pure ASCII reads the same in every single-byte encoding: the declaration stands.
    return hasHighByte(bytes) && isUtf8(withoutCutTail(bytes)) ? 'utf-8' : declared;
  }
  const body = withoutCutTail(bytes);
  if (isUtf8(body)) return 'utf-8';
  const { multiByte, invalid } = utf8Census(body);
  return invalid > multiByte ? 'windows-1252' : 'utf-8';
}

// WHATWG windows-1252 for 0x80-0x9F; the rest of the range is Latin-1.
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * windows-1252 by hand: Node 20's TextDecoder decodes it as ISO-8859-1, turning curly quotes, dashes and the euro
 * sign (0x80-0x9F) into C1 control characters. Every `latin1`/`ascii` label maps here too.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80] ?? c);
}

/** Decodes a body; malformed sequences become U+FFFD rather than failing the fetch. */
export function decodeBody(
  bytes: Uint8Array,
  contentTypeHeader: string | null | undefined,
): { text: string; charset: string } {
  const charset = detectCharset(bytes, contentTypeHeader);
  const text = charset === 'windows-1252' ? decodeWindows1252(bytes) : new TextDecoder(charset).decode(bytes);
  return { text, charset };
}
