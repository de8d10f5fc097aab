/**
 * The web archive, indexed on disk. Opening it lists its WARC files, takes their SHA-256 (remembered by file
 * identity in the index folder, file-hash.ts, so an unchanged archive is not read again at each start) and opens the
 * index built for exactly that content, building it first when there is none: once per archive content, shared by
 * every process and reused on later starts. A folder gets one index keyed by all its files' names and hashes (the
 * latest capture of a URL can be in any file), so adding or changing any file builds a new one. When a new index is
 * ready, the indexes built for earlier contents of the same archive path are removed.
 *
 * Index files are named `<archive name>-<path hash>-<content key>.<kind>.sqlite` in the index folder (by default a
 * folder beside the server's database; the archive itself may be read-only). */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { hashFiles } from './file-hash.ts';
import { buildAndOpen, removeStaleIndexes } from './index-file.ts';
import { RECORD_INDEX_FORMAT, buildRecordIndex, openRecordIndex } from './record-index.ts';
import type { ArchiveFile, RecordIndex } from './record-index.ts';
import { listWarcFiles } from './reader.ts';

/** An open archive index. */
export interface ArchiveIndex extends RecordIndex {
  /** The WARC files read, in path order. */
  readonly files: readonly string[];
  /** The content key: a SHA-256 over the files' names and hashes. */
  readonly key: string;
  /** The index database file. */
  readonly indexPath: string;
  /** Whether this open built the index (false: it was already there). */
  readonly built: boolean;
  /** Milliseconds the open took (hashing, and building when it did). */
  readonly openMs: number;
  /** Where an index derived from this one (the search index) lives: it shares the content key and is cleaned up with it. */
  companionPath(kind: string): string;
}

/** A web archive on disk, indexed on first `open()`. */
export interface WebArchive {
  readonly path: string;
  readonly indexDir: string;
  /** Opens the index, building it when this content has none; later calls share the result. */
  open(): Promise<ArchiveIndex>;
  /** Closes the index (stopping a build in progress); a later `open()` opens it again. */
  close(): Promise<void>;
}

export interface WebArchiveOptions {
  /** A `.warc`/`.warc.gz` file or a folder searched recursively for them; other files are ignored. */
  path: string;
  /** Where index files go; defaults to `defaultIndexDir()`. */
  indexDir?: string;
  /** Milliseconds, for the open timing; defaults to performance.now. */
  now?: () => number;
  /** Called after each record read while the URL index is built, for progress. */
  onRecord?: (read: number) => void;
}

/**
 * The default index folder: `archive-index` beside the database file, or a per-user folder in the system's
 * temporary directory when there is no database file (library use, `:memory:`).
 */
export function defaultIndexDir(databasePath?: string): string {
  if (databasePath && databasePath !== ':memory:') return join(dirname(resolve(databasePath)), 'archive-index');
  let user: string;
  try {
    user = String(userInfo().uid);
  } catch {
    user = 'user';
  }
  return join(tmpdir(), `agent-api-archive-index-${user}`);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The archive's files with their names relative to it and their content hashes (remembered in the index folder). */
async function describeFiles(root: string, indexDir: string): Promise<ArchiveFile[]> {
  const paths = await listWarcFiles(root);
  const single = (await stat(root)).isFile();
  const hashes = await hashFiles(paths, join(indexDir, 'file-hashes.json'));
  return Promise.all(
    paths.map(async (path, i) => ({
      path,
      name: single ? basename(path) : relative(root, path).split(sep).join('/'),
      sha256: hashes[i]!,
      bytes: (await stat(path)).size,
    })),
  );
}

/** The content key: the index format and every file's name and hash, in path order. */
export function contentKey(files: readonly ArchiveFile[]): string {
  const lines = files.map((f) => `${f.name}\t${f.sha256}\n`).join('');
  return sha256(`agent-api web archive index ${RECORD_INDEX_FORMAT}\n${lines}`).slice(0, 32);
}

/** The file-name prefix every index of the archive at `root` shares, whatever its content. */
function namePrefix(root: string): string {
  const resolved = resolve(root);
  const name =
    basename(resolved)
      .toLowerCase()
      .replace(/\.warc(\.gz)?$/, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'archive';
  return `${name}-${sha256(resolved).slice(0, 12)}`;
}

/** A web archive indexed on disk on first use. */
export function createWebArchive(options: WebArchiveOptions): WebArchive {
  const now = options.now ?? (() => performance.now());
  const indexDir = resolve(options.indexDir ?? defaultIndexDir());
  let opening: Promise<ArchiveIndex> | null = null;
  let abort = new AbortController();

  const openIndex = async (signal: AbortSignal): Promise<ArchiveIndex> => {
    const started = now();
    let files: ArchiveFile[];
    try {
      files = await describeFiles(options.path, indexDir);
    } catch (err) {
      throw new Error(`Cannot read the web archive at ${options.path}: ${(err as Error).message}`, { cause: err });
    }
    const key = contentKey(files);
    const prefix = namePrefix(options.path);
    const base = join(indexDir, `${prefix}-${key}`);
    const indexPath = `${base}.records.sqlite`;
    const { value: index, built } = await buildAndOpen(
      indexPath,
      (temp) => buildRecordIndex(temp, files, { key, signal, onRecord: options.onRecord }),
      (path) => openRecordIndex(path, files, key),
      { signal },
    );
    await removeStaleIndexes(indexDir, `${prefix}-`, (name) => name.startsWith(`${prefix}-${key}.`));
    return {
      ...index,
      files: files.map((f) => f.path),
      key,
      indexPath,
      built,
      openMs: now() - started,
      companionPath: (kind) => `${base}.${kind}.sqlite`,
    };
  };

  return {
    path: options.path,
    indexDir,
    open() {
      opening ??= openIndex(abort.signal).catch((err: unknown) => {
        // A failed open (missing file, unreadable folder) is tried again on the next use.
        opening = null;
        throw err;
      });
      return opening;
    },
    async close() {
      const current = opening;
      if (!current) return;
      abort.abort(new Error('the web archive was closed'));
      abort = new AbortController();
      opening = null;
      const index = await current.catch(() => null);
      await index?.close();
    },
  };
}
