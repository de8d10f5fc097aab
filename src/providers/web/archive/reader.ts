/**
 * Reads WARC files (ISO 28500; `.warc` or `.warc.gz`, one file or a folder of them) into archived HTTP records with
 * warcio. Only `response`, `resource` and `revisit` records become records; request, metadata, warcinfo and the
 * rest are skipped.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
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

const WARC_FILE = /\.warc(\.gz)?$/i;

/** The WARC files at a path: the file itself, or every `.warc`/`.warc.gz` under a folder, sorted by path. */
export async function listWarcFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (info.isFile()) return [path];
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && WARC_FILE.test(entry.name)) found.push(full);
    }
  };
  await walk(path);
  return found.sort();
}

/** The uncompressed bytes of a WARC file: zlib inflates every gzip member natively, far faster than a JS inflater. */
async function readWarcBytes(file: string): Promise<Uint8Array> {
  const bytes = await readFile(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return gunzipSync(bytes);
    } catch {
      // A truncated or damaged gzip: let warcio read what it can record by record.
      return bytes;
    }
  }
  return bytes;
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

async function toArchivedRecord(record: WARCRecord, file: string): Promise<ArchivedRecord | null> {
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

/** Every HTTP record of one WARC file, in file order. */
export async function readWarcFile(file: string): Promise<ArchivedRecord[]> {
  const bytes = await readWarcBytes(file);
  const out: ArchivedRecord[] = [];
  try {
    for await (const record of WARCParser.iterRecords([bytes])) {
      const archived = await toArchivedRecord(record, file);
      if (archived) out.push(archived);
    }
  } catch (err) {
    throw new Error(`${file} is not a readable WARC file (record ${out.length + 1}): ${(err as Error).message}`, {
      cause: err,
    });
  }
  return out;
}

/** Every HTTP record under a path (a WARC file or a folder searched recursively), files in path order. */
export async function readArchiveRecords(path: string): Promise<{ files: string[]; records: ArchivedRecord[] }> {
  const files = await listWarcFiles(path);
  const records: ArchivedRecord[] = [];
  for (const file of files) records.push(...(await readWarcFile(file)));
  return { files, records };
}
