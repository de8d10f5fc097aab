import { Readable, pipeline, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

/**
 * Reads a response body with a hard cap on the decompressed size, decoding Content-Encoding with node:zlib
 * streams (undici's `request` hands over the bytes as sent). The cap is checked chunk by chunk, so a
 * decompression bomb or an endless body is cut off after `maxBytes` and never held in memory.
 */

export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`body is larger than ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export class UnsupportedEncodingError extends Error {
  constructor(readonly encoding: string) {
    super(`unsupported content encoding ${encoding}`);
    this.name = 'UnsupportedEncodingError';
  }
}

export class BodyDecodeError extends Error {
  constructor(encoding: string, cause: unknown) {
    super(`the ${encoding} body could not be decoded`, { cause });
    this.name = 'BodyDecodeError';
  }
}

/** The encodings we advertise in Accept-Encoding. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** Content-Encoding as a list in the order applied by the server; `identity` dropped. Throws for unknown ones. */
export function parseContentEncoding(header: string | null | undefined): string[] {
  if (!header) return [];
  const list = header
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity');
  for (const e of list) {
    if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(e)) throw new UnsupportedEncodingError(e);
  }
  return list;
}

// "deflate" is meant to be zlib-wrapped, but enough servers send raw DEFLATE that browsers accept both.
function looksLikeZlib(chunk: Buffer): boolean {
  if (chunk.length < 2) return true;
  const cmf = chunk[0] ?? 0;
  const flg = chunk[1] ?? 0;
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

function decoderFor(encoding: string, firstChunk: Buffer): Transform {
  if (encoding === 'br') return createBrotliDecompress();
  if (encoding === 'deflate') return looksLikeZlib(firstChunk) ? createInflate() : createInflateRaw();
  return createGunzip();
}

async function* decode(source: AsyncIterable<Buffer>, encoding: string): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  // Errors from upstream (a reset socket, an abort) pass through unchanged; only the decoder's own are decode errors.
  let upstreamError: unknown;
  const rest = (async function* () {
    yield first.value;
    try {
      for (;;) {
        const next = await it.next();
        if (next.done) return;
        yield next.value;
      }
    } catch (err) {
      upstreamError = err ?? new Error('body stream failed');
      throw err;
    }
  })();
  const decoder = pipeline(Readable.from(rest), decoderFor(encoding, first.value), () => {});
  try {
    for await (const chunk of decoder) yield chunk as Buffer;
  } catch (err) {
    if (upstreamError !== undefined) throw upstreamError;
    throw new BodyDecodeError(encoding, err);
  } finally {
    decoder.destroy();
  }
}

/**
 * Collects `body`, undoing `encodings` (outermost last, as listed in Content-Encoding), and fails with
 * BodyTooLargeError as soon as more than `maxBytes` decoded bytes arrive.
 */
export async function readBody(
  body: AsyncIterable<Buffer>,
  encodings: readonly string[],
  maxBytes: number,
): Promise<Buffer> {
  let stream: AsyncIterable<Buffer> = body;
  for (const encoding of [...encodings].reverse()) stream = decode(stream, encoding);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > maxBytes) throw new BodyTooLargeError(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}
