/**
 * One gzip member (RFC 1952) at a time. A `.warc.gz` written one member per record can be read record by record
 * only if the reader knows where each member ends; zlib's gunzip hides that, so the header is parsed here and the
 * deflate stream inflated raw, which reports how many compressed bytes it used.
 */
import { inflateRawSync } from 'node:zlib';

const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
/** CRC-32 and ISIZE after the deflate stream. */
const TRAILER = 8;

/** True when the bytes start with the gzip magic number. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** The length of the gzip header at the start of `bytes`, or null when `bytes` ends inside it. */
export function gzipHeaderLength(bytes: Uint8Array): number | null {
  if (bytes.length < 10) return null;
  if (!isGzip(bytes) || bytes[2] !== 8) throw new Error('not a gzip member');
  const flags = bytes[3] ?? 0;
  let pos = 10;
  if (flags & FEXTRA) {
    if (bytes.length < pos + 2) return null;
    pos += 2 + ((bytes[pos] ?? 0) | ((bytes[pos + 1] ?? 0) << 8));
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (!(flags & flag)) continue;
    const end = bytes.indexOf(0, pos);
    if (end < 0) return null;
    pos = end + 1;
  }
  if (flags & FHCRC) pos += 2;
  return pos <= bytes.length ? pos : null;
}

/** Thrown when a member inflates to more than the caller allows. */
export class MemberTooLarge extends Error {
  constructor(limit: number) {
    super(`a gzip member inflates to more than ${limit} bytes`);
    this.name = 'MemberTooLarge';
  }
}

/** A member inflated: its data and how many bytes of the input (header, deflate stream, trailer) it spans. */
export interface InflatedMember {
  data: Buffer;
  length: number;
}

/**
 * Inflates the gzip member at the start of `bytes` (later members are left alone). Null when `bytes` ends before
 * the member does; throws MemberTooLarge past `maxBytes` of output, and another error when the member is damaged.
 */
export function inflateMember(bytes: Uint8Array, maxBytes: number): InflatedMember | null {
  const header = gzipHeaderLength(bytes);
  if (header === null) return null;
  let result: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    result = inflateRawSync(bytes.subarray(header), {
      info: true,
      maxOutputLength: maxBytes,
    }) as unknown as typeof result;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR') return null;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new MemberTooLarge(maxBytes);
    throw err;
  }
  const length = header + result.engine.bytesWritten + TRAILER;
  if (length > bytes.length) return null;
  // ISIZE is the data length modulo 2^32: a cheap check that the trailer belongs to this stream.
  const isize = Buffer.from(bytes.buffer, bytes.byteOffset + length - 4, 4).readUInt32LE(0);
  if (isize !== result.buffer.length % 2 ** 32) throw new Error('gzip member length does not match its trailer');
  return { data: result.buffer, length };
}
