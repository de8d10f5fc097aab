/**
 * The archive's URL table on disk: one SQLite row per URL the archive answers, with the status, headers and date
 * the fetcher needs and where the payload is (file, byte offset and length of its gzip member or plain record), so
 * a body is read on demand and no payload is held in memory. Payloads that cannot be read alone (a gzip member
 * holding several records) are kept in the database instead.
 *
 * Built from a scan of every file: each capture goes to a temporary table, revisits are resolved against the
 * response they repeat, and the capture with the latest WARC-Date wins per URL (on equal dates the one read last:
 * files in path order, records in file order), as the in-memory table did.
 */
import { z } from 'zod';
import { open } from 'node:fs/promises';
import Database from '../../../sqlite-driver.ts';
import { HTML_MIMES } from './body.ts';
import type { ArchivedRecord } from './record.ts';
import { normalizeArchiveUrl } from './url.ts';
import { readRecordAt, scanWarcFile } from './warc-scan.ts';
import type { RecordLocation } from './warc-scan.ts';

/** Bumped when the tables change, so an index written by another version is rebuilt, not misread. */
export const RECORD_INDEX_FORMAT = 1;

/** One WARC file of the archive, as the index knows it. */
export interface ArchiveFile {
  /** The path to open. */
  path: string;
  /** The path relative to the archive (its name for a single file): what the index stores. */
  name: string;
  sha256: string;
  bytes: number;
}

/** An archived answer without its payload, and where that payload is. */
export interface ArchivedEntry extends Omit<ArchivedRecord, 'payload'> {
  /** The payload's length in bytes. */
  bytes: number;
  /** Where the payload is read from (for a revisit: the record it repeats). */
  location: RecordLocation;
}

/** The on-disk URL table, open for reading. */
export interface RecordIndex {
  /** Distinct URLs answered. */
  readonly size: number;
  /** The record for a URL (normalised before lookup), without its payload. */
  entry(url: string): ArchivedEntry | undefined;
  /** The payload of an entry, read from its WARC file (or the index, for inline payloads). */
  payload(entry: ArchivedEntry): Promise<Uint8Array>;
  /** The record for a URL with its payload. */
  get(url: string): Promise<ArchivedRecord | undefined>;
  /** HTML pages with status 200 in URL order, `limit` at a time after the URL `after` (null: from the start). */
  pages(after: string | null, limit: number): ArchivedEntry[];
  /** How many pages `pages` answers in all. */
  pageCount(): number;
  close(): Promise<void>;
}

interface Row {
  url: string;
  target_uri: string;
  warc_type: ArchivedRecord['warcType'];
  record_id: string | null;
  status: number;
  status_text: string;
  headers: string;
  content_type: string | null;
  date: string;
  file_id: number;
  payload_digest: string | null;
  refers_to: string | null;
  body_file_id: number;
  body_kind: RecordLocation['kind'];
  body_offset: number | null;
  body_length: number | null;
  body_id: number | null;
  body_url: string;
  bytes: number;
}

const SCHEMA = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL, bytes INTEGER NOT NULL);
  CREATE TABLE bodies (id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
  CREATE TABLE records (
    url TEXT PRIMARY KEY, target_uri TEXT NOT NULL, warc_type TEXT NOT NULL, record_id TEXT,
    status INTEGER NOT NULL, status_text TEXT NOT NULL, headers TEXT NOT NULL, content_type TEXT, date TEXT NOT NULL,
    file_id INTEGER NOT NULL, payload_digest TEXT, refers_to TEXT,
    body_file_id INTEGER NOT NULL, body_kind TEXT NOT NULL, body_offset INTEGER, body_length INTEGER,
    body_id INTEGER, body_url TEXT NOT NULL, bytes INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TEMP TABLE captures (
    seq INTEGER PRIMARY KEY, url TEXT NOT NULL, target_uri TEXT NOT NULL, warc_type TEXT NOT NULL, record_id TEXT,
    status INTEGER NOT NULL, status_text TEXT NOT NULL, headers TEXT NOT NULL, content_type TEXT,
    date TEXT NOT NULL, file_id INTEGER NOT NULL, payload_digest TEXT, refers_to TEXT, refers_to_url TEXT,
    own_headers INTEGER NOT NULL, body_kind TEXT NOT NULL, body_offset INTEGER, body_length INTEGER,
    body_id INTEGER, bytes INTEGER NOT NULL, original INTEGER
  );
`;

// A revisit repeats the last-read response with its payload digest, else the last-read one of the URL it refers
// to; it keeps its own status and headers when it has them. One that resolves to nothing is dropped.
const RESOLVE = `
  CREATE INDEX temp.captures_digest ON captures (payload_digest, seq) WHERE warc_type != 'revisit';
  CREATE INDEX temp.captures_url ON captures (url, seq) WHERE warc_type != 'revisit';
  UPDATE captures SET original = COALESCE(
    (SELECT o.seq FROM captures o WHERE o.warc_type != 'revisit' AND o.payload_digest = captures.payload_digest
      ORDER BY o.seq DESC LIMIT 1),
    (SELECT o.seq FROM captures o WHERE o.warc_type != 'revisit' AND o.url = captures.refers_to_url
      ORDER BY o.seq DESC LIMIT 1))
  WHERE warc_type = 'revisit';
  INSERT INTO records
  SELECT w.url, w.target_uri, w.warc_type, w.record_id,
    IIF(w.original IS NULL OR w.own_headers, w.status, o.status),
    IIF(w.original IS NULL OR w.own_headers, w.status_text, o.status_text),
    IIF(w.original IS NULL OR w.own_headers, w.headers, o.headers),
    IIF(w.original IS NULL OR w.own_headers, w.content_type, o.content_type),
    w.date, w.file_id, w.payload_digest, w.refers_to,
    COALESCE(o.file_id, w.file_id), COALESCE(o.body_kind, w.body_kind), COALESCE(o.body_offset, w.body_offset),
    COALESCE(o.body_length, w.body_length), COALESCE(o.body_id, w.body_id), COALESCE(o.url, w.url),
    COALESCE(o.bytes, w.bytes)
  FROM (
    SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.url ORDER BY c.date DESC, c.seq DESC) AS rank
    FROM captures c WHERE c.warc_type != 'revisit' OR c.original IS NOT NULL
  ) w LEFT JOIN captures o ON o.seq = w.original
  WHERE w.rank = 1;
  DELETE FROM bodies WHERE id NOT IN (SELECT body_id FROM records WHERE body_id IS NOT NULL);
  DROP TABLE captures;
`;

export interface BuildRecordIndexOptions {
  /** Stored in the index so a reader can check it opened the index it meant to. */
  key: string;
  signal?: AbortSignal;
  /** Called after each record read, with the number read so far (the total is known only at the end). */
  onRecord?: (read: number) => void;
}

/** Writes the URL table of `files` to a new database at `target`. */
export async function buildRecordIndex(
  target: string,
  files: readonly ArchiveFile[],
  options: BuildRecordIndexOptions,
): Promise<{ records: number }> {
  const db = new Database(target);
  try {
    // A private file renamed into place when complete: no journal or syncs are needed while writing it.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(SCHEMA);
    const addFile = db.prepare('INSERT INTO files (id, name, sha256, bytes) VALUES (?, ?, ?, ?)');
    const addBody = db.prepare('INSERT INTO bodies (payload) VALUES (?)');
    const addCapture = db.prepare(`
      INSERT INTO captures (url, target_uri, warc_type, record_id, status, status_text, headers, content_type, date,
        file_id, payload_digest, refers_to, refers_to_url, own_headers, body_kind, body_offset, body_length, body_id,
        bytes)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    db.exec('BEGIN');
    let read = 0;
    for (const [i, file] of files.entries()) {
      addFile.run(i + 1, file.name, file.sha256, file.bytes);
      for await (const { record: r, location } of scanWarcFile(file.path)) {
        options.signal?.throwIfAborted();
        const bodyId = location.kind === 'inline' ? Number(addBody.run(Buffer.from(r.payload)).lastInsertRowid) : null;
        addCapture.run(
          r.url,
          r.targetUri,
          r.warcType,
          r.recordId,
          r.status,
          r.statusText,
          JSON.stringify(r.headers),
          r.contentType,
          r.date,
          i + 1,
          r.payloadDigest,
          r.refersTo,
          r.refersTo ? normalizeArchiveUrl(r.refersTo) : null,
          Object.keys(r.headers).length > 0 ? 1 : 0,
          location.kind,
          location.kind === 'inline' ? null : location.offset,
          location.kind === 'inline' ? null : location.length,
          bodyId,
          r.payload.byteLength,
        );
        options.onRecord?.(++read);
      }
    }
    db.exec(RESOLVE);
    const records = (db.prepare('SELECT count(*) AS n FROM records').get() as { n: number }).n;
    const meta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    meta.run('format', String(RECORD_INDEX_FORMAT));
    meta.run('key', options.key);
    meta.run('records', String(records));
    db.exec('COMMIT');
    // Readers open it read-only; a rollback journal (not WAL) needs no -wal/-shm files beside it.
    db.pragma('journal_mode = DELETE');
    return { records };
  } finally {
    db.close();
  }
}

/** The headers column: the record's HTTP headers as a JSON object of strings (written by the build above). */
const HEADERS = z.record(z.string(), z.string());

function toEntry(row: Row, fileOf: (id: number) => string): ArchivedEntry {
  const location: RecordLocation =
    row.body_kind === 'inline'
      ? { kind: 'inline' }
      : { kind: row.body_kind, offset: row.body_offset ?? 0, length: row.body_length ?? 0 };
  return {
    url: row.url,
    targetUri: row.target_uri,
    warcType: row.warc_type,
    recordId: row.record_id,
    status: row.status,
    statusText: row.status_text,
    headers: HEADERS.parse(JSON.parse(row.headers)),
    contentType: row.content_type,
    date: row.date,
    file: fileOf(row.file_id),
    payloadDigest: row.payload_digest,
    refersTo: row.refers_to,
    bytes: row.bytes,
    location,
  };
}

/**
 * Opens a built URL table read-only. `files` are the archive's files now, in path order; they must be the files
 * the index was built from (the caller keys indexes by their content), matched by name.
 */
export function openRecordIndex(path: string, files: readonly ArchiveFile[], key: string): RecordIndex {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const meta = new Map(
    (db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]),
  );
  if (meta.get('key') !== key || meta.get('format') !== String(RECORD_INDEX_FORMAT)) {
    db.close();
    throw new Error(`${path} is not the index of this archive`);
  }
  const byName = new Map(files.map((f) => [f.name, f.path]));
  const paths = new Map<number, string>();
  for (const f of db.prepare('SELECT id, name FROM files').all() as { id: number; name: string }[]) {
    const current = byName.get(f.name);
    if (current === undefined) {
      db.close();
      throw new Error(`${path} indexes ${f.name}, which the archive no longer has`);
    }
    paths.set(f.id, current);
  }
  const fileOf = (id: number) => paths.get(id) ?? '';
  const byUrl = db.prepare('SELECT * FROM records WHERE url = ?');
  const body = db.prepare('SELECT payload FROM bodies WHERE id = ?').pluck();
  const bodyId = db.prepare('SELECT body_id, body_file_id, body_url FROM records WHERE url = ?');
  const isPage = `status = 200 AND content_type IN (${HTML_MIMES.map(() => '?').join(', ')})`;
  const pageRows = db.prepare(`SELECT * FROM records WHERE ${isPage} AND url > ? ORDER BY url LIMIT ?`);
  const pageTotal = db.prepare(`SELECT count(*) FROM records WHERE ${isPage}`).pluck();
  let closed = false;

  const entry = (url: string): ArchivedEntry | undefined => {
    const normalised = normalizeArchiveUrl(url);
    if (normalised === null || closed) return undefined;
    const row = byUrl.get(normalised) as Row | undefined;
    return row ? toEntry(row, fileOf) : undefined;
  };

  const payload = async (e: ArchivedEntry): Promise<Uint8Array> => {
    if (closed) throw new Error('the web archive index is closed');
    const where = bodyId.get(e.url) as Pick<Row, 'body_id' | 'body_file_id' | 'body_url'> | undefined;
    if (!where) throw new Error(`${e.url} is not in the web archive index`);
    if (e.location.kind === 'inline') return body.get(where.body_id) as Buffer;
    const file = fileOf(where.body_file_id);
    // Opened per read: an open costs microseconds, and no descriptor is left for anyone to close.
    const handle = await open(file, 'r');
    let record;
    try {
      record = await readRecordAt(handle, file, e.location);
    } catch {
      record = null;
    } finally {
      await handle.close();
    }
    // The index was built from this file's content; anything else at that offset means the file was rewritten.
    if (!record || record.url !== where.body_url) {
      throw new Error(`${file} changed after it was indexed; restart to index it again`);
    }
    return record.payload;
  };

  return {
    size: Number(meta.get('records') ?? 0),
    entry,
    payload,
    async get(url) {
      const e = entry(url);
      if (!e) return undefined;
      const { bytes: _bytes, location: _location, ...rest } = e;
      return { ...rest, payload: await payload(e) };
    },
    pages(after, limit) {
      if (closed) return [];
      return (pageRows.all(...HTML_MIMES, after ?? '', limit) as Row[]).map((r) => toEntry(r, fileOf));
    },
    pageCount() {
      return closed ? 0 : (pageTotal.get(...HTML_MIMES) as number);
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
