/**
 * Writing WARC 1.1 records with warcio (WARCRecord + WARCSerializer): warcinfo, request/response pairs and
 * resource records, each its own gzip member so files can be appended to and read record by record. Digests are
 * SHA-1 in base32 (`sha1:...`), the form wget, Heritrix and pywb write.
 */
import { createHash, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';

const WARC_VERSION = 'WARC/1.1';
const DIGEST = { algo: 'sha-1', prefix: 'sha1:', base32: true } as const;
const encoder = new TextEncoder();

/** Makes a WARC-Record-ID; pass a deterministic one to get byte-identical files. */
export type RecordIdFn = (type: string, url: string, date: string) => string;

export interface WarcWriteOptions {
  /** One gzip member per record (for `.warc.gz`), or plain bytes (for `.warc`). */
  gzip: boolean;
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

async function serialize(record: WARCRecord, gzip: boolean): Promise<Uint8Array> {
  const bytes = await WARCSerializer.serialize(record, { gzip: false, digest: DIGEST });
  if (!gzip) return bytes;
  const member = gzipSync(bytes, { level: 9 });
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
  return serialize(record, options.gzip);
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
  const parts = [await serialize(request, options.gzip), await serialize(response, options.gzip)];
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
  return serialize(record, options.gzip);
}
