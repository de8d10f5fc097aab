/**
 * Picks the character encoding of a fetched body the way browsers do, in order: byte-order mark, the
 * Content-Type charset, then a `<meta charset>` / `http-equiv` / XML declaration in the first bytes, else UTF-8.
 * Labels go through TextDecoder (WHATWG Encoding), so `latin1` means windows-1252 and unknown labels fall through.
 */

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

/** The encoding to decode a body with, as a WHATWG encoding name. */
export function detectCharset(bytes: Uint8Array, contentTypeHeader: string | null | undefined): string {
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
