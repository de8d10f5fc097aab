/**
 * Writing WARC 1.1 records with warcio (WARCRecord + WARCSerializer): warcinfo, request/response pairs and
 * resource records, each its own gzip member so files can be appended to and read record by record. Digests are
 * SHA-1 in base32 (`sha1:...`), the form wget, Heritrix and pywb write.
 */
import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';

const WARC_VERSION = 'WARC/1.1';
const DIGEST = { algo: 'sha-1', prefix: 'sha1:', base32: true } as const;
const encoder = new TextEncoder();
// zlib's thread pool, not the event loop: a writer with several records under way compresses them on other cores.
const gzipAsync = promisify(gzipCallback);
/** Output chunks of zlib: one large chunk instead of 16 KB ones saves a round trip to its thread per chunk. */
const GZIP_CHUNK = 1 << 20;

/** Makes a WARC-Record-ID; pass a deterministic one to get byte-identical files. */
export type RecordIdFn = (type: string, url: string, date: string) => string;

export interface WarcWriteOptions {
  /** One gzip member per record (for `.warc.gz`), or plain bytes (for `.warc`). */
  gzip: boolean;
  /** The gzip level (default 9, the smallest files; 6 compresses about twice as fast for about 1% more bytes). */
  level?: number;
  recordId?: RecordIdFn;
}

/** A name-based (version 5, SHA-1) UUID, as `<urn:uuid:...>`: the same inputs always give the same id. */
export function uuidV5RecordId(namespace: string): RecordIdFn {
  return (type, url, date) => {
    const hash = createHash('sha1').update(`${namespace}\n${type}\n${url}\n${date}`).digest();
    hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
    hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
    const hex = hash.subarray(0, 16).toString('hex');
    return `<urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}>`;
  };
}

const randomRecordId: RecordIdFn = () => `<urn:uuid:${randomUUID()}>`;

/** WARC-Date form: second precision unless the time has milliseconds (WARC 1.1 allows fractions). */
export function warcDate(iso: string): string {
  const d = new Date(iso);
  const text = d.toISOString();
  return d.getUTCMilliseconds() === 0 ? text.replace('.000Z', 'Z') : text;
}

/** The URL as a WARC-Target-URI: no fragment (it never reaches the server). */
function targetUri(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** `sha1:` and the SHA-1 of the parts in base32 (RFC 4648; a 20-byte digest needs no padding). */
function sha1Digest(parts: readonly Uint8Array[]): string {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part);
  const bytes = hash.digest();
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return `${DIGEST.prefix}${out}`;
}

/**
 * Sets the payload and block digests warcio would compute (the block being the HTTP head it writes, then the
 * payload), with node:crypto: warcio hashes in WebAssembly, several times slower on pages of hundreds of KB.
 */
function setDigests(record: WARCRecord, payload: Uint8Array): void {
  const head = record.httpHeaders ? [encoder.encode(`${record.httpHeaders.toString()}\r\n`)] : [];
  record.warcHeaders.headers.set('WARC-Payload-Digest', sha1Digest([payload]));
  record.warcHeaders.headers.set('WARC-Block-Digest', sha1Digest([...head, payload]));
}

async function serialize(record: WARCRecord, options: WarcWriteOptions, payload?: Uint8Array): Promise<Uint8Array> {
  if (payload) setDigests(record, payload);
  const bytes = await WARCSerializer.serialize(record, { gzip: false, digest: DIGEST });
  if (!options.gzip) return bytes;
  const member = await gzipAsync(bytes, { level: options.level ?? 9, chunkSize: GZIP_CHUNK });
  // The gzip header's OS byte varies by platform; 255 ("unknown") keeps rebuilt files identical everywhere.
  member[9] = 0xff;
  return member;
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

export interface WarcinfoInput {
  filename: string;
  date: string;
  fields: Record<string, string>;
}

/** A `warcinfo` record describing the file and the software that wrote it. */
export async function serializeWarcinfo(input: WarcinfoInput, options: WarcWriteOptions): Promise<Uint8Array> {
  const date = warcDate(input.date);
  const id = (options.recordId ?? randomRecordId)('warcinfo', input.filename, date);
  const body = Object.entries(input.fields)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const record = WARCRecord.create(
    {
      type: 'warcinfo',
      filename: input.filename,
      date,
      warcVersion: WARC_VERSION,
      warcHeaders: { 'WARC-Record-ID': id, 'Content-Type': 'application/warc-fields' },
    },
    once(encoder.encode(body)),
  );
  return serialize(record, options);
}

/** One HTTP exchange to archive. Headers keep their order and case. */
export interface HttpCapture {
  url: string;
  date: string;
  status: number;
  statusText: string;
  headers: [string, string][];
  payload: Uint8Array;
  /** Request headers; `Host` is added from the URL when missing. */
  requestHeaders?: [string, string][];
  /** Set when the payload is not the whole body (WARC-Truncated: length, time, disconnect or unspecified). */
  truncated?: 'length' | 'time' | 'disconnect' | 'unspecified';
  /** The server address, when known (WARC-IP-Address). */
  ip?: string;
}

/** A `request` record then its `response` record, linked by WARC-Concurrent-To. */
export async function serializeExchange(capture: HttpCapture, options: WarcWriteOptions): Promise<Uint8Array> {
  const makeId = options.recordId ?? randomRecordId;
  const date = warcDate(capture.date);
  const url = targetUri(capture.url);
  const responseId = makeId('response', url, date);
  const requestId = makeId('request', url, date);
  const target = new URL(url);

  const requestHeaders: [string, string][] = capture.requestHeaders ? [...capture.requestHeaders] : [];
  if (!requestHeaders.some(([name]) => name.toLowerCase() === 'host')) requestHeaders.unshift(['Host', target.host]);
  const request = WARCRecord.create({
    type: 'request',
    url,
    date,
    warcVersion: WARC_VERSION,
    statusline: `GET ${target.pathname}${target.search} HTTP/1.1`,
    httpHeaders: requestHeaders,
    warcHeaders: { 'WARC-Record-ID': requestId, 'WARC-Concurrent-To': responseId },
  });

  const extra: Record<string, string> = { 'WARC-Record-ID': responseId };
  if (capture.ip) extra['WARC-IP-Address'] = capture.ip;
  if (capture.truncated) extra['WARC-Truncated'] = capture.truncated;
  const response = WARCRecord.create(
    {
      type: 'response',
      url,
      date,
      warcVersion: WARC_VERSION,
      statusline: `HTTP/1.1 ${capture.status} ${capture.statusText}`.trimEnd(),
      httpHeaders: capture.headers,
      warcHeaders: extra,
    },
    once(capture.payload),
  );
  const parts = await Promise.all([
    serialize(request, options, new Uint8Array()),
    serialize(response, options, capture.payload),
  ]);
  return Buffer.concat(parts);
}

export interface ResourceInput {
  url: string;
  date: string;
  contentType: string;
  payload: Uint8Array;
}

/** A `resource` record: a payload with no HTTP framing (a file, an image), read back as status 200. */
export async function serializeResource(input: ResourceInput, options: WarcWriteOptions): Promise<Uint8Array> {
  const date = warcDate(input.date);
  const url = targetUri(input.url);
  const id = (options.recordId ?? randomRecordId)('resource', url, date);
  const record = WARCRecord.create(
    {
      type: 'resource',
      url,
      date,
      warcVersion: WARC_VERSION,
      warcHeaders: { 'WARC-Record-ID': id, 'Content-Type': input.contentType },
    },
    once(input.payload),
  );
  return serialize(record, options, input.payload);
}
