/**
 * The web archive as a lookup table: loaded lazily on first use, once per `createWebArchive` call, and indexed by
 * normalised URL. When several records share a URL, the one with the latest WARC-Date wins; on equal dates the one
 * read last (files in path order, records in file order) wins.
 */
import { performance } from 'node:perf_hooks';
import { readArchiveRecords } from './reader.ts';
import type { ArchivedRecord } from './reader.ts';
import { normalizeArchiveUrl } from './url.ts';

/** A loaded archive. */
export interface ArchiveSnapshot {
  /** The WARC files read, in path order. */
  readonly files: readonly string[];
  /** How many distinct URLs the archive answers. */
  readonly size: number;
  /** Milliseconds the load took. */
  readonly loadMs: number;
  /** The record for a URL (normalised before lookup), or undefined. */
  get(url: string): ArchivedRecord | undefined;
  /** Every winning record, sorted by URL. */
  records(): readonly ArchivedRecord[];
}

/** A web archive on disk, read on first `load()`. */
export interface WebArchive {
  readonly path: string;
  load(): Promise<ArchiveSnapshot>;
}

export interface WebArchiveOptions {
  /** A `.warc`/`.warc.gz` file or a folder searched recursively for them; other files are ignored. */
  path: string;
  /** Milliseconds, for the load timing; defaults to performance.now. */
  now?: () => number;
}

/** Fills in revisit records from the response they repeat; a revisit that resolves to nothing is dropped. */
function resolveRevisits(records: ArchivedRecord[]): ArchivedRecord[] {
  const byDigest = new Map<string, ArchivedRecord>();
  const byUrl = new Map<string, ArchivedRecord>();
  for (const r of records) {
    if (r.warcType === 'revisit') continue;
    if (r.payloadDigest) byDigest.set(r.payloadDigest, r);
    byUrl.set(r.url, r);
  }
  const out: ArchivedRecord[] = [];
  for (const r of records) {
    if (r.warcType !== 'revisit') {
      out.push(r);
      continue;
    }
    const refersTo = r.refersTo ? normalizeArchiveUrl(r.refersTo) : null;
    const original =
      (r.payloadDigest ? byDigest.get(r.payloadDigest) : undefined) ?? (refersTo ? byUrl.get(refersTo) : undefined);
    if (!original) continue;
    const ownHeaders = Object.keys(r.headers).length > 0;
    out.push({
      ...r,
      status: ownHeaders ? r.status : original.status,
      statusText: ownHeaders ? r.statusText : original.statusText,
      headers: ownHeaders ? r.headers : original.headers,
      contentType: ownHeaders ? r.contentType : original.contentType,
      payload: original.payload,
    });
  }
  return out;
}

/** Builds the snapshot's URL table from records in read order. */
export function indexRecords(files: readonly string[], records: ArchivedRecord[], loadMs: number): ArchiveSnapshot {
  const byUrl = new Map<string, ArchivedRecord>();
  for (const record of resolveRevisits(records)) {
    const current = byUrl.get(record.url);
    if (!current || record.date >= current.date) byUrl.set(record.url, record);
  }
  const sorted = [...byUrl.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return {
    files,
    size: byUrl.size,
    loadMs,
    get(url: string) {
      const key = normalizeArchiveUrl(url);
      return key === null ? undefined : byUrl.get(key);
    },
    records: () => sorted,
  };
}

/** A lazily loaded web archive; the first `load()` reads the files, later calls share that result. */
export function createWebArchive(options: WebArchiveOptions): WebArchive {
  const now = options.now ?? (() => performance.now());
  let loading: Promise<ArchiveSnapshot> | null = null;
  const read = async (): Promise<ArchiveSnapshot> => {
    const started = now();
    let loaded;
    try {
      loaded = await readArchiveRecords(options.path);
    } catch (err) {
      throw new Error(`Cannot read the web archive at ${options.path}: ${(err as Error).message}`, { cause: err });
    }
    return indexRecords(loaded.files, loaded.records, now() - started);
  };
  return {
    path: options.path,
    load() {
      loading ??= read().catch((err: unknown) => {
        // A failed load (missing file, unreadable folder) is tried again on the next use.
        loading = null;
        throw err;
      });
      return loading;
    },
  };
}
