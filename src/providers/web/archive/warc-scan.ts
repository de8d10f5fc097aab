/**
 * Reads a WARC file record by record with bounded memory, and says where each record can be read again: the byte
 * range of its gzip member (`.warc.gz` written one member per record, as the writer and most crawlers do) or of the
 * record itself (plain `.warc`). That location is what the on-disk index stores instead of the payload.
 *
 * A gzip member holding several records (a whole file gzipped at once) cannot be read one record at a time: its
 * records come back `inline`, and the index keeps their payloads. A member too large to inflate in memory, or one
 * that does not hold whole records, is read by streaming the rest of the file through gunzip, also `inline`.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { createGunzip, gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { MemberTooLarge, inflateMember, isGzip } from './gzip-member.ts';
import { toArchivedRecord } from './record.ts';
import type { ArchivedRecord } from './record.ts';

/** Where a record's bytes are: a gzip member or a plain record by byte range, or nowhere (`inline`). */
export type RecordLocation = { kind: 'gzip' | 'plain'; offset: number; length: number } | { kind: 'inline' };

export interface ScannedRecord {
  record: ArchivedRecord;
  location: RecordLocation;
}

/** Read-ahead for sequential scanning. */
const CHUNK = 4 * 1024 * 1024;
/** First guess at a member's or record's size; grown as needed. */
const FIRST_READ = 256 * 1024;
/** Members larger than this, compressed or inflated, are streamed instead of inflated in memory. */
const MAX_MEMBER_BYTES = 64 * 1024 * 1024;
const MAX_INFLATED_BYTES = 256 * 1024 * 1024;
/** A WARC header block longer than this is not a WARC header block. */
const MAX_HEADER_BYTES = 1024 * 1024;

const CR = 13;
const LF = 10;
const WARC_MAGIC = Buffer.from('WARC/');
const HEADER_END = Buffer.from('\r\n\r\n');

/** A read-ahead window over a file, so sequential reads of small records do not each cost a system call. */
class FileWindow {
  private buf = Buffer.alloc(0);
  private start = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** Up to `n` bytes from `pos` (fewer only at the end of the file). */
  async bytes(pos: number, n: number): Promise<Buffer> {
    const end = Math.min(pos + n, this.size);
    if (pos >= this.start && end <= this.start + this.buf.length) {
      return this.buf.subarray(pos - this.start, end - this.start);
    }
    const length = Math.min(Math.max(end - pos, CHUNK), this.size - pos);
    const buf = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.handle.read(buf, filled, length - filled, pos + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    this.buf = buf.subarray(0, filled);
    this.start = pos;
    return this.buf.subarray(0, Math.min(end - pos, filled));
  }
}

/** Index of the first byte at or after `from` that is not CR or LF (records are separated by CRLF CRLF). */
function skipNewlines(bytes: Uint8Array, from: number): number {
  let i = from;
  while (i < bytes.length && (bytes[i] === CR || bytes[i] === LF)) i++;
  return i;
}

/**
 * The length of the WARC record (header block and content, without the separator) at `start`: `{ length }`, or
 * `{ need }` with how many bytes from `start` are needed to know (-1: the header block is not complete yet).
 */
export function warcRecordLength(bytes: Buffer, start: number): { length: number } | { need: number } {
  const probe = bytes.subarray(start, start + WARC_MAGIC.length);
  if (probe.length < WARC_MAGIC.length) return { need: -1 };
  if (!probe.equals(WARC_MAGIC)) throw new Error('no WARC record starts here');
  const headerEnd = bytes.indexOf(HEADER_END, start);
  if (headerEnd < 0) {
    if (bytes.length - start > MAX_HEADER_BYTES) throw new Error('the WARC header block does not end');
    return { need: -1 };
  }
  const header = bytes.subarray(start, headerEnd).toString('latin1');
  const m = /^content-length[ \t]*:[ \t]*(\d+)[ \t]*$/im.exec(header);
  if (!m?.[1]) throw new Error('the WARC record has no Content-Length');
  const length = headerEnd + HEADER_END.length - start + Number(m[1]);
  return start + length <= bytes.length ? { length } : { need: length };
}

/** The HTTP record (response, resource or revisit) in one WARC record's bytes, or null for other record types. */
export async function parseWarcRecord(bytes: Uint8Array, file: string): Promise<ArchivedRecord | null> {
  for await (const record of WARCParser.iterRecords([bytes])) return toArchivedRecord(record, file);
  return null;
}

/** Splits inflated member data into whole records; null when it does not end at a record boundary. */
function splitRecords(data: Buffer): Buffer[] | null {
  const out: Buffer[] = [];
  let pos = skipNewlines(data, 0);
  while (pos < data.length) {
    let extent;
    try {
      extent = warcRecordLength(data, pos);
    } catch {
      return null;
    }
    if (!('length' in extent)) return null;
    out.push(data.subarray(pos, pos + extent.length));
    pos = skipNewlines(data, pos + extent.length);
  }
  return out;
}

/** Every record from `offset` to the end of a gzip file, through streaming gunzip: memory stays one record. */
async function* streamGzipTail(file: string, offset: number): AsyncGenerator<ScannedRecord> {
  const stream = createReadStream(file, { start: offset }).pipe(createGunzip());
  for await (const parsed of WARCParser.iterRecords(stream)) {
    const record = await toArchivedRecord(parsed, file);
    if (record) yield { record, location: { kind: 'inline' } };
  }
}

async function* scanGzip(file: string, window: FileWindow): AsyncGenerator<ScannedRecord> {
  let pos = 0;
  while (pos < window.size) {
    let want = FIRST_READ;
    let member = null;
    for (;;) {
      const bytes = await window.bytes(pos, want);
      if (!isGzip(bytes)) {
        // Zero padding after the last member is harmless; anything else is not a gzip member.
        if (bytes.every((b) => b === 0)) return;
        throw new Error(`no gzip member starts at byte ${pos}`);
      }
      try {
        member = inflateMember(bytes, MAX_INFLATED_BYTES);
      } catch (err) {
        if (!(err instanceof MemberTooLarge)) throw err;
        want = MAX_MEMBER_BYTES;
        break;
      }
      if (member || pos + bytes.length >= window.size) break;
      if (want >= MAX_MEMBER_BYTES) break;
      want *= 4;
    }
    if (!member) {
      if (want >= MAX_MEMBER_BYTES) {
        yield* streamGzipTail(file, pos);
        return;
      }
      throw new Error(`the gzip member at byte ${pos} is cut off`);
    }
    const records = splitRecords(member.data);
    if (records === null) {
      // Records span members: only a continuous gunzip stream can read them.
      yield* streamGzipTail(file, pos);
      return;
    }
    const location: RecordLocation =
      records.length === 1 ? { kind: 'gzip', offset: pos, length: member.length } : { kind: 'inline' };
    for (const bytes of records) {
      const record = await parseWarcRecord(bytes, file);
      if (record) yield { record, location };
    }
    pos += member.length;
  }
}

async function* scanPlain(file: string, window: FileWindow): AsyncGenerator<ScannedRecord> {
  let pos = 0;
  for (;;) {
    let bytes = await window.bytes(pos, FIRST_READ);
    const start = skipNewlines(bytes, 0);
    if (start === bytes.length) {
      if (pos + bytes.length >= window.size) return;
      pos += start;
      continue;
    }
    pos += start;
    let want = FIRST_READ;
    let extent;
    for (;;) {
      bytes = await window.bytes(pos, want);
      extent = warcRecordLength(bytes, 0);
      if ('length' in extent) break;
      if (pos + bytes.length >= window.size) throw new Error(`the WARC record at byte ${pos} is cut off`);
      want = extent.need > 0 ? extent.need : want * 4;
    }
    const record = await parseWarcRecord(bytes.subarray(0, extent.length), file);
    if (record) yield { record, location: { kind: 'plain', offset: pos, length: extent.length } };
    pos += extent.length;
  }
}

/** Every HTTP record of one WARC file (`.warc` or `.warc.gz`, told apart by content), in file order. */
export async function* scanWarcFile(file: string): AsyncGenerator<ScannedRecord> {
  const handle = await open(file, 'r');
  let count = 0;
  try {
    const window = new FileWindow(handle, (await handle.stat()).size);
    const head = await window.bytes(0, 2);
    const records = isGzip(head) ? scanGzip(file, window) : scanPlain(file, window);
    for await (const scanned of records) {
      count++;
      yield scanned;
    }
  } catch (err) {
    throw new Error(`${file} is not a readable WARC file (record ${count + 1}): ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    await handle.close();
  }
}

/** Reads the record at a `gzip` or `plain` location again; null when no HTTP record is there. */
export async function readRecordAt(
  handle: FileHandle,
  file: string,
  location: { kind: 'gzip' | 'plain'; offset: number; length: number },
): Promise<ArchivedRecord | null> {
  const bytes = Buffer.allocUnsafe(location.length);
  let filled = 0;
  while (filled < location.length) {
    const { bytesRead } = await handle.read(bytes, filled, location.length - filled, location.offset + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  if (filled < location.length) return null;
  return parseWarcRecord(location.kind === 'gzip' ? gunzipSync(bytes) : bytes, file);
}
