/**
 * One WARC record as an archived HTTP answer: `response`, `resource` and `revisit` records become records; request,
 * metadata, warcinfo and the rest are skipped. The payload has its wire encodings undone.
 */
import type { WARCRecord } from 'warcio';
import { decodeWirePayload, mimeType } from './body.ts';
import { isHttpUrl, normalizeArchiveUrl } from './url.ts';

/** One archived HTTP answer. Header names are lower-case; the payload has its wire encodings undone. */
export interface ArchivedRecord {
  /** The normalised URL the archive indexes it by. */
  url: string;
  /** WARC-Target-URI as written in the file. */
  targetUri: string;
  warcType: 'response' | 'resource' | 'revisit';
  recordId: string | null;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  /** MIME type without parameters, lower-case, or null. */
  contentType: string | null;
  /** The body, de-chunked and decompressed when the archived headers said so. */
  payload: Uint8Array;
  /** WARC-Date as ISO 8601 with milliseconds. */
  date: string;
  file: string;
  /** WARC-Payload-Digest, used to resolve revisit records. */
  payloadDigest: string | null;
  /** For revisits: WARC-Refers-To-Target-URI. */
  refersTo: string | null;
}

function isoDate(value: string | null | undefined): string {
  const ms = value ? Date.parse(value) : NaN;
  return new Date(Number.isNaN(ms) ? 0 : ms).toISOString();
}

function headerObject(headers: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  }
  return out;
}

/** Drops the headers that describe the wire form once the payload no longer has it. */
function withoutWireHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'content-length') out[name] = value;
  }
  return out;
}

/** The archived HTTP answer in a WARC record, or null for records that are not one (request, warcinfo, dns:...). */
export async function toArchivedRecord(record: WARCRecord, file: string): Promise<ArchivedRecord | null> {
  const type = record.warcType;
  if (type !== 'response' && type !== 'resource' && type !== 'revisit') return null;
  const targetUri = record.warcTargetURI ?? '';
  const url = normalizeArchiveUrl(targetUri);
  // dns:, whois: and similar crawler records are not web pages.
  if (url === null || !isHttpUrl(url)) return null;
  const base = {
    url,
    targetUri,
    warcType: type,
    recordId: record.warcHeader('WARC-Record-ID') ?? null,
    date: isoDate(record.warcDate),
    file,
    payloadDigest: record.warcPayloadDigest ?? null,
    refersTo: record.warcRefersToTargetURI ?? null,
  } as const;

  if (type === 'resource') {
    const payload = await record.readFully(false);
    return {
      ...base,
      status: 200,
      statusText: 'OK',
      headers: record.warcContentType ? { 'content-type': record.warcContentType } : {},
      contentType: mimeType(record.warcContentType),
      payload,
    };
  }

  const http = record.httpHeaders;
  if (!http && type === 'response') return null;
  const status = Number(http?.statusCode);
  if (http && (!Number.isInteger(status) || status < 100 || status > 999)) return null;
  const rawHeaders = http ? headerObject(http.headers as Iterable<[string, string]>) : {};
  const raw = await record.readFully(false);
  const { payload, decoded } = decodeWirePayload(raw, rawHeaders);
  const headers = decoded ? withoutWireHeaders(rawHeaders) : rawHeaders;
  return {
    ...base,
    status: http ? status : 200,
    statusText: http?.statusText ?? 'OK',
    headers,
    contentType: mimeType(headers['content-type']),
    payload,
  };
}
