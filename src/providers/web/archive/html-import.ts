/**
 * Saved HTML files into a WARC file, with no network: `agent-api archive import`. Each `.html`, `.htm` or `.xhtml`
 * file, or the same gzipped (`.html.gz`: the record holds the page as served, decompressed), becomes a
 * request/response pair (status 200, its bytes as saved, `text/html` with the charset the page declares, else UTF-8
 * or windows-1252), dated by the file's modification time, at the URL the page names (page-url.ts: canonical link,
 * `og:url`, "saved from url" comment, a malformed one passed over for the next; the head is read first and the body
 * only when the head has no canonical link) or the base URL joined with its path.
 * Folders are searched recursively, in path order. Pages a browser saved "complete" (`page.html` beside
 * `page_files/`) import as one page: the `_files` folder holds the page's assets, not pages.
 *
 * An import keeps what it can: every file that gives a page is written, and every file refused is listed with its
 * reason (no URL, unreadable, not HTML). A URL named by several files is written once, from the file
 * import-duplicates.ts chooses, and the others are reported as duplicates. `strict` is all or nothing: any refused
 * file fails the run with all of them named and nothing written.
 *
 * Each file is read once (a duplicate tied on its URL's source again, to measure its text): a few at a time (reading, gunzipping and compressing run on zlib's and libuv's threads
 * while the event loop finds URLs), their records written in path order to a file beside `out`, and the kept
 * records appended to `out` in one copy at the end, so a failure part way leaves `out` as it was.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import { decodeBody, detectCharset } from '../charset.ts';
import { headEnd } from './html-head.ts';
import { pageTextLength, resolveDuplicates } from './import-duplicates.ts';
import type { DuplicateUrl } from './import-duplicates.ts';
import { findSavedPageUrl } from './page-url.ts';
import type { PageUrlSearch, PageUrlSource, SkippedPageUrl } from './page-url.ts';
import { normalizeArchiveUrl } from './url.ts';
import { serializeExchange, serializeWarcinfo } from './writer.ts';
import type { RecordIdFn, WarcWriteOptions } from './writer.ts';

export type { DuplicateUrl } from './import-duplicates.ts';

const HTML_EXTENSIONS = new Set(['.html', '.htm', '.xhtml']);
const gunzip = promisify(gunzipCallback);
/** Files under way at once: enough to keep zlib's threads and the disk busy while the event loop parses. */
const DEFAULT_CONCURRENCY = 4;
/** Records are compressed at zlib's default level: about twice as fast as 9 for about 1% more bytes. */
const GZIP_LEVEL = 6;

/** An HTML file to import, with its path relative to the folder it was found in (its name, for a file given). */
export interface HtmlFile {
  path: string;
  relative: string;
}

/** One page as it will be (or was) archived. */
export interface ImportedPage {
  file: string;
  url: string;
  /** Where the URL came from. */
  source: PageUrlSource;
  charset: string;
  /** The page's bytes as archived (decompressed, for a `.gz` file). */
  bytes: number;
  date: string;
}

/** A file (or a path given) that gave no page, and why. */
export interface RefusedFile {
  file: string;
  reason: string;
}

export interface ArchiveImportProgress {
  /** Files read so far (written or refused), of `total`. */
  done: number;
  total: number;
  /** Of those, how many were refused. */
  refused: number;
  file: string;
}

export interface ArchiveImportInput {
  paths: readonly string[];
  /** The WARC file to append to (created with its folder when missing); `.gz` names get one gzip member per record. */
  out: string;
  /** The URL of each folder given (and of a single file's folder), for pages that name none. */
  baseUrl?: string;
  /** All or nothing: any refused file throws ArchiveImportError naming every one, and nothing is written. */
  strict?: boolean;
  progress?: (event: ArchiveImportProgress) => void;
  /** Milliseconds since the epoch, for the warcinfo date; defaults to Date.now. */
  now?: () => number;
  /** A fixed WARC-Date for every record instead of the files' times, with `recordId`, for byte-identical output. */
  date?: string;
  recordId?: RecordIdFn;
  software?: string;
  /** Files read at once (default 4). */
  concurrency?: number;
}

export interface ArchiveImportResult {
  out: string;
  /** The pages written, in path order. */
  imported: ImportedPage[];
  /** Every file refused, in path order (paths given that cannot be read first). */
  refused: RefusedFile[];
  /** Every URL named by more than one file: one entry per file left out. */
  duplicates: DuplicateUrl[];
}

/** Why an import wrote nothing: each file that cannot be imported, with the reason (all of them). */
export class ArchiveImportError extends Error {
  constructor(readonly problems: readonly RefusedFile[]) {
    super(
      `nothing was written; ${problems.length === 1 ? 'a file' : `${problems.length} files`} cannot be imported:\n  ${problems.map((p) => `${p.file}: ${p.reason}`).join('\n  ')}`,
    );
    this.name = 'ArchiveImportError';
  }
}

/** The name without a trailing `.gz`, for a gzipped saved page. */
function ungzippedName(name: string): string {
  return name.toLowerCase().endsWith('.gz') ? name.slice(0, -3) : name;
}

function isHtmlName(name: string): boolean {
  return HTML_EXTENSIONS.has(extname(ungzippedName(name)).toLowerCase());
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The HTML files at the paths given: files as they are, folders searched recursively in sorted path order. A path
 * that cannot be read or is not an HTML file is refused: thrown as ArchiveImportError when `strict`, else listed.
 */
export async function listHtmlFiles(
  paths: readonly string[],
  options: { strict?: boolean } = {},
): Promise<{ files: HtmlFile[]; refused: RefusedFile[] }> {
  const files: HtmlFile[] = [];
  const refused: RefusedFile[] = [];
  const seen = new Set<string>();
  const add = (path: string, rel: string) => {
    const key = resolve(path);
    if (seen.has(key)) return;
    seen.add(key);
    files.push({ path, relative: rel });
  };
  const refuse = (file: string, reason: string) => {
    if (options.strict) throw new ArchiveImportError([{ file, reason }]);
    refused.push({ file, reason });
  };
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch (err) {
      refuse(path, `cannot be read: ${errorText(err)}`);
      continue;
    }
    if (info.isFile()) {
      if (isHtmlName(path)) add(path, basename(path));
      else refuse(path, 'not an .html, .htm or .xhtml file (or the same gzipped)');
      continue;
    }
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true });
      const pages = new Set(
        entries.filter((e) => e.isFile() && isHtmlName(e.name)).map((e) => ungzippedName(e.name).toLowerCase()),
      );
      // "Save page as, complete" writes page.html and page_files/ with its images, scripts and frames.
      const savedWith = (folder: string) =>
        folder.endsWith('_files') &&
        [...HTML_EXTENSIONS].some((ext) => pages.has(`${folder.slice(0, -6)}${ext}`.toLowerCase()));
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory() && !savedWith(entry.name)) await walk(full);
        else if (entry.isFile() && isHtmlName(entry.name)) found.push(full);
      }
    };
    try {
      await walk(path);
    } catch (err) {
      refuse(path, `cannot be read: ${errorText(err)}`);
      continue;
    }
    if (found.length === 0) refuse(path, 'holds no .html, .htm or .xhtml file');
    for (const file of found.sort()) add(file, relative(path, file).split(sep).join('/'));
  }
  return { files, refused };
}

/** A saved page's bytes: the file's, decompressed when its name ends in `.gz`. */
export async function readSavedFile(path: string): Promise<Buffer> {
  const bytes = await readFile(path);
  // One large output chunk: zlib's default 16 KB ones cost a round trip to its thread each.
  return path.toLowerCase().endsWith('.gz') ? gunzip(bytes, { chunkSize: 1 << 20 }) : bytes;
}

/**
 * The charset a saved page's bytes are in, by the one rule live and archived pages follow (charset.ts): a byte-order
 * mark, else the page's declaration checked against its bytes, else UTF-8 or windows-1252 by what the bytes are.
 */
export function savedPageCharset(bytes: Uint8Array): string {
  return detectCharset(bytes, null);
}

/** The base URL joined with a relative file path (without a `.gz`), each segment percent-encoded. */
function joinBaseUrl(base: string, rel: string): string {
  const root = base.endsWith('/') ? base : `${base}/`;
  return new URL(ungzippedName(rel).split('/').map(encodeURIComponent).join('/'), root).href;
}

/**
 * The page's head decoded by its charset. The head ends at `<body`, found in the bytes read as latin1: markup is
 * ASCII in every charset a page may declare except UTF-16, where nothing is found and the whole page is decoded.
 */
function decodeHead(bytes: Buffer, charset: string): { text: string; whole: boolean } {
  // Most heads end within the first 128 KB; a page is read further (the window doubling) only when its head goes on.
  let end = bytes.byteLength;
  for (let window = 1 << 17; ; window *= 2) {
    const seen = Math.min(window, bytes.byteLength);
    const at = headEnd(bytes.toString('latin1', 0, seen));
    if (at < seen || seen === bytes.byteLength) {
      end = at;
      break;
    }
  }
  return {
    text: decodeBody(bytes.subarray(0, end), `text/html; charset=${charset}`).text,
    whole: end === bytes.byteLength,
  };
}

function noUrlReason(skipped: readonly SkippedPageUrl[]): string {
  const passed = skipped.map((s) => `${s.source} ${JSON.stringify(s.value.slice(0, 200))}`);
  return passed.length === 0
    ? 'no URL: no absolute canonical link, og:url or "saved from url" comment, and no --base-url to resolve one against'
    : `no URL: ${passed.join(', ')} ${passed.length === 1 ? 'is not' : 'are not'} an http(s) URL, no other canonical link, og:url or "saved from url" comment gives one, and no --base-url to fall back on`;
}

interface Prepared {
  page: ImportedPage;
  record: Uint8Array;
}

/** Reads one file and serializes its records; a string is the reason it gives no page. */
async function prepareFile(
  file: HtmlFile,
  input: ArchiveImportInput,
  options: WarcWriteOptions,
): Promise<Prepared | string> {
  let bytes: Buffer;
  let mtime: Date;
  try {
    const [read, info] = await Promise.all([readSavedFile(file.path), stat(file.path)]);
    [bytes, mtime] = [read, info.mtime];
  } catch (err) {
    return `cannot be read: ${errorText(err)}`;
  }
  let charset: string;
  let search: PageUrlSearch;
  try {
    charset = savedPageCharset(bytes);
    const fallback = input.baseUrl === undefined ? null : joinBaseUrl(input.baseUrl, file.relative);
    const head = decodeHead(bytes, charset);
    search = findSavedPageUrl(head.text, fallback);
    // No canonical link in the head: the body may have one (or an og:url), so the page is decoded whole and searched.
    if (search.found?.source !== 'canonical' && !head.whole) {
      search = findSavedPageUrl(decodeBody(bytes, `text/html; charset=${charset}`).text, fallback);
    }
  } catch (err) {
    // One page that trips the decoder or the parser is that page's problem, not the import's.
    return `cannot be read as HTML: ${errorText(err)}`;
  }
  const { found, skipped } = search;
  if (!found) return noUrlReason(skipped);
  const page: ImportedPage = {
    file: file.path,
    url: normalizeArchiveUrl(found.url) ?? found.url,
    source: found.source,
    charset,
    bytes: bytes.byteLength,
    date: input.date ?? mtime.toISOString(),
  };
  try {
    const record = await serializeExchange(
      {
        url: page.url,
        date: page.date,
        status: 200,
        statusText: 'OK',
        headers: [
          ['Content-Type', `text/html; charset=${charset}`],
          ['Content-Length', String(bytes.byteLength)],
        ],
        payload: bytes,
      },
      options,
    );
    return { page, record };
  } catch (err) {
    return `cannot be archived at ${page.url} (from ${page.source}): ${errorText(err)}`;
  }
}

/** How much text a saved page has, for the duplicates rule; 0 when it cannot be read again. */
async function textLength(page: ImportedPage): Promise<number> {
  try {
    const bytes = await readSavedFile(page.file);
    return pageTextLength(decodeBody(bytes, `text/html; charset=${page.charset}`).text);
  } catch {
    return 0;
  }
}

/** Appends byte ranges of `from` to the file `to`, in order, a megabyte at a time. */
async function appendRanges(
  from: string,
  to: string,
  ranges: readonly { start: number; end: number }[],
): Promise<void> {
  const source = await open(from, 'r');
  let target: FileHandle | undefined;
  try {
    target = await open(to, 'a');
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (const { start, end } of ranges) {
      for (let at = start; at < end;) {
        const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, end - at), at);
        if (bytesRead === 0) throw new Error(`${from} ended early`);
        await target.write(buffer.subarray(0, bytesRead));
        at += bytesRead;
      }
    }
  } finally {
    await target?.close();
    await source.close();
  }
}

/** Appends every page it can to `out` and reports the rest; with `strict`, throws ArchiveImportError instead. */
export async function archiveImport(input: ArchiveImportInput): Promise<ArchiveImportResult> {
  if (input.baseUrl !== undefined) {
    const base = normalizeArchiveUrl(input.baseUrl);
    if (base === null || !/^https?:/.test(base)) {
      throw new ArchiveImportError([{ file: input.baseUrl, reason: '--base-url must be an absolute http(s) URL' }]);
    }
  }
  const listed = await listHtmlFiles(input.paths, { strict: input.strict ?? false });
  const files = listed.files;
  if (files.length === 0) throw new ArchiveImportError(listed.refused);

  const gzip = input.out.toLowerCase().endsWith('.gz');
  const options: WarcWriteOptions = {
    gzip,
    level: GZIP_LEVEL,
    ...(input.recordId ? { recordId: input.recordId } : {}),
  };
  await mkdir(dirname(input.out), { recursive: true });
  const staged = `${input.out}.import-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(staged, 'wx');
  try {
    const refused: RefusedFile[] = [];
    const claims: (ImportedPage & { order: number; start: number; end: number })[] = [];
    let size = 0;
    let infoEnd = 0;
    try {
      const info = await serializeWarcinfo(
        {
          filename: basename(input.out),
          date: input.date ?? new Date((input.now ?? Date.now)()).toISOString(),
          fields: {
            software: input.software ?? 'agent-api archive import',
            format: 'WARC File Format 1.1',
            conformsTo: 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
            description: 'saved HTML files imported without network access',
          },
        },
        options,
      );
      await handle.write(info);
      size = infoEnd = info.byteLength;

      // A window of files under way; their records are written in path order as each one's turn comes.
      const width = Math.max(1, input.concurrency ?? DEFAULT_CONCURRENCY);
      const pending: (Promise<Prepared | string> | undefined)[] = [];
      const start = (i: number) => {
        const file = files[i];
        if (file) pending[i] = prepareFile(file, input, options);
      };
      for (let i = 0; i < Math.min(width, files.length); i++) start(i);
      for (const [i, file] of files.entries()) {
        const prepared = await pending[i]!;
        pending[i] = undefined;
        if (typeof prepared === 'string') {
          refused.push({ file: file.path, reason: prepared });
        } else {
          await handle.write(prepared.record);
          claims.push({ ...prepared.page, order: i, start: size, end: size + prepared.record.byteLength });
          size += prepared.record.byteLength;
        }
        input.progress?.({
          done: i + 1,
          total: files.length,
          refused: listed.refused.length + refused.length,
          file: file.path,
        });
        start(i + width);
      }
    } finally {
      await handle.close();
    }
    const allRefused = [...listed.refused, ...refused];
    if (input.strict && allRefused.length > 0) throw new ArchiveImportError(allRefused);

    const { kept, duplicates } = await resolveDuplicates(claims, textLength);
    if (kept.length > 0) {
      // The warcinfo record, then the kept records; neighbours are copied as one range.
      const ranges = [{ start: 0, end: infoEnd }];
      for (const claim of kept) {
        const last = ranges[ranges.length - 1]!;
        if (last.end === claim.start) last.end = claim.end;
        else ranges.push({ start: claim.start, end: claim.end });
      }
      await appendRanges(staged, input.out, ranges);
    }
    const imported = kept.map(({ order: _order, start: _start, end: _end, ...page }) => page);
    return { out: input.out, imported, refused: allRefused, duplicates };
  } finally {
    await rm(staged, { force: true });
  }
}
