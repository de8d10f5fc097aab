/**
 * Turning an archived HTTP payload into what a FetchedPage carries: the wire encodings undone, the MIME type and
 * charset found, the text decoded.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { decodeBody, mimeType } from '../charset.ts';

// One charset and MIME implementation for live and archived pages (the live fetcher's, with its windows-1252 fix).
export { mimeType };

/** True for MIME types whose body is text a page consumer may read. */
export function isTextMime(mime: string | null): boolean {
  if (mime === null) return false;
  return (
    mime.startsWith('text/') ||
    mime === 'application/xhtml+xml' ||
    mime === 'application/xml' ||
    mime === 'application/json' ||
    mime === 'application/javascript' ||
    mime === 'application/ld+json' ||
    mime.endsWith('+xml') ||
    mime.endsWith('+json')
  );
}

/** The MIME types analysis treats as an HTML page. */
export const HTML_MIMES: readonly string[] = ['text/html', 'application/xhtml+xml'];

/** True for the MIME types analysis treats as an HTML page. */
export function isHtmlMime(mime: string | null): boolean {
  return mime !== null && HTML_MIMES.includes(mime);
}

/** Removes HTTP/1.1 chunked framing; a payload that is not validly chunked comes back unchanged. */
export function dechunk(raw: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let pos = 0;
  let total = 0;
  for (;;) {
    const lineEnd = indexOfCrlf(raw, pos);
    if (lineEnd < 0) return raw;
    const sizeText = Buffer.from(raw.subarray(pos, lineEnd)).toString('latin1').split(';')[0]?.trim() ?? '';
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) return raw;
    const size = parseInt(sizeText, 16);
    pos = lineEnd + 2;
    if (size === 0) break;
    if (pos + size > raw.length) return raw;
    parts.push(raw.subarray(pos, pos + size));
    total += size;
    pos += size + 2;
  }
  return Buffer.concat(parts, total);
}

function indexOfCrlf(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10) return i;
  }
  return -1;
}

/**
 * Undoes Transfer-Encoding: chunked and Content-Encoding gzip/deflate/br as archived. A payload that does not
 * decode as its headers claim is kept as it is (wget and some crawlers store bodies already decoded).
 */
export function decodeWirePayload(
  raw: Uint8Array,
  headers: Record<string, string>,
): { payload: Uint8Array; decoded: boolean } {
  let payload = raw;
  let decoded = false;
  const transfer = (headers['transfer-encoding'] ?? '').toLowerCase();
  if (transfer.includes('chunked')) {
    const unchunked = dechunk(payload);
    decoded = decoded || unchunked !== payload;
    payload = unchunked;
  }
  const codings = (headers['content-encoding'] ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  for (const coding of codings) {
    const next = tryDecode(payload, coding);
    if (next === null) break;
    payload = next;
    decoded = true;
  }
  return { payload, decoded };
}

function tryDecode(bytes: Uint8Array, coding: string): Uint8Array | null {
  try {
    if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(bytes);
    if (coding === 'br') return brotliDecompressSync(bytes);
    if (coding === 'deflate') {
      // Servers send both zlib-wrapped and raw deflate under this name.
      try {
        return inflateSync(bytes);
      } catch {
        return inflateRawSync(bytes);
      }
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * Decodes a text body: byte-order mark, then the header's charset, then a `<meta>`/XML declaration, then UTF-8,
 * checked against the bytes (charset.ts: the live fetcher's rules, so an archived page reads as it did live).
 * Returns the canonical charset name.
 */
export function decodeText(
  bytes: Uint8Array,
  contentType: string | null,
  _mime: string | null,
): { charset: string; text: string } {
  return decodeBody(bytes, contentType);
}
