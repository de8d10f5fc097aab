/**
 * Saved HTML files into a WARC file, with no network: `agent-api archive import`. Each `.html`, `.htm` or `.xhtml`
 * file (folders searched recursively, in path order) becomes a request/response pair (status 200, its bytes as
 * saved, `text/html` with the charset the page declares, else UTF-8 or windows-1252), dated by the file's
 * modification time, at the URL the page names (page-url.ts) or the base URL joined with its path.
 *
 * Pages a browser saved "complete" (`page.html` beside `page_files/`) import as one page: the `_files` folder holds
 * the page's assets, not pages. Every file is checked before anything is written, so a run either appends all its
 * pages or nothing.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { charsetFromMarkup, decodeBody, detectCharset } from '../charset.ts';
import { savedPageUrl } from './page-url.ts';
import type { PageUrlSource } from './page-url.ts';
import { normalizeArchiveUrl } from './url.ts';
import { serializeExchange, serializeWarcinfo } from './writer.ts';
import type { RecordIdFn } from './writer.ts';

const HTML_EXTENSIONS = new Set(['.html', '.htm', '.xhtml']);

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
  bytes: number;
  date: string;
}

export interface ArchiveImportProgress {
  /** `check`: reading and finding URLs (nothing written yet); `write`: appending records. */
  phase: 'check' | 'write';
  done: number;
  total: number;
  file: string;
}

export interface ArchiveImportInput {
  paths: readonly string[];
  /** The WARC file to append to (created with its folder when missing); `.gz` names get one gzip member per record. */
  out: string;
  /** The URL of each folder given (and of a single file's folder), for pages that name none. */
  baseUrl?: string;
  progress?: (event: ArchiveImportProgress) => void;
  /** Milliseconds since the epoch, for the warcinfo date; defaults to Date.now. */
  now?: () => number;
  /** A fixed WARC-Date for every record instead of the files' times, with `recordId`, for byte-identical output. */
  date?: string;
  recordId?: RecordIdFn;
  software?: string;
}

export interface ArchiveImportResult {
  out: string;
  imported: ImportedPage[];
}

/** Why an import wrote nothing: each file that cannot be imported, with the reason. */
export class ArchiveImportError extends Error {
  constructor(readonly problems: readonly { file: string; reason: string }[]) {
    const shown = problems.slice(0, 10).map((p) => `${p.file}: ${p.reason}`);
    const more = problems.length > 10 ? `\n  ...and ${problems.length - 10} more` : '';
    super(
      `nothing was written; ${problems.length === 1 ? 'a file' : `${problems.length} files`} cannot be imported:\n  ${shown.join('\n  ')}${more}`,
    );
    this.name = 'ArchiveImportError';
  }
}

function isHtmlName(name: string): boolean {
  return HTML_EXTENSIONS.has(extname(name).toLowerCase());
}

/** The HTML files at the paths given: files as they are, folders searched recursively in sorted path order. */
export async function listHtmlFiles(paths: readonly string[]): Promise<HtmlFile[]> {
  const out: HtmlFile[] = [];
  const seen = new Set<string>();
  const add = (path: string, rel: string) => {
    const key = resolve(path);
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ path, relative: rel });
  };
  for (const path of paths) {
    const info = await stat(path);
    if (info.isFile()) {
      if (!isHtmlName(path))
        throw new ArchiveImportError([{ file: path, reason: 'not an .html, .htm or .xhtml file' }]);
      add(path, basename(path));
      continue;
    }
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true });
      const pages = new Set(entries.filter((e) => e.isFile() && isHtmlName(e.name)).map((e) => e.name));
      // "Save page as, complete" writes page.html and page_files/ with its images, scripts and frames.
      const savedWith = (folder: string) =>
        folder.endsWith('_files') && [...HTML_EXTENSIONS].some((ext) => pages.has(`${folder.slice(0, -6)}${ext}`));
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory() && !savedWith(entry.name)) await walk(full);
        else if (entry.isFile() && isHtmlName(entry.name)) found.push(full);
      }
    };
    await walk(path);
    for (const file of found.sort()) add(file, relative(path, file).split(sep).join('/'));
  }
  return out;
}

/**
 * The charset a saved page's bytes are in: a byte-order mark or the page's `<meta charset>`/`http-equiv`; without
 * either, UTF-8 when the bytes are valid UTF-8, else windows-1252 (what browsers assume for legacy pages).
 */
export function savedPageCharset(bytes: Uint8Array): string {
  const detected = detectCharset(bytes, null);
  if (detected !== 'utf-8' || charsetFromMarkup(bytes) !== null) return detected;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return 'utf-8';
  } catch {
    return 'windows-1252';
  }
}

/** The base URL joined with a relative file path, each segment percent-encoded. */
function joinBaseUrl(base: string, rel: string): string {
  const root = base.endsWith('/') ? base : `${base}/`;
  return new URL(rel.split('/').map(encodeURIComponent).join('/'), root).href;
}

/** Reads one file and works out how it will be archived; a string is the reason it cannot be. */
async function planPage(
  file: HtmlFile,
  baseUrl: string | undefined,
  fixedDate: string | undefined,
): Promise<ImportedPage | string> {
  const [bytes, info] = await Promise.all([readFile(file.path), stat(file.path)]);
  const charset = savedPageCharset(bytes);
  const html = decodeBody(bytes, `text/html; charset=${charset}`).text;
  const found = savedPageUrl(html, baseUrl === undefined ? null : joinBaseUrl(baseUrl, file.relative));
  if (!found) {
    return 'no URL: no absolute canonical link, og:url or "saved from url" comment, and no --base-url to resolve one against';
  }
  return {
    file: file.path,
    url: normalizeArchiveUrl(found.url) ?? found.url,
    source: found.source,
    charset,
    bytes: bytes.byteLength,
    date: fixedDate ?? info.mtime.toISOString(),
  };
}

/** Checks every file, then appends them all to `out`; throws ArchiveImportError (writing nothing) if any fails. */
export async function archiveImport(input: ArchiveImportInput): Promise<ArchiveImportResult> {
  if (input.baseUrl !== undefined) {
    const base = normalizeArchiveUrl(input.baseUrl);
    if (base === null || !/^https?:/.test(base)) {
      throw new ArchiveImportError([{ file: input.baseUrl, reason: '--base-url must be an absolute http(s) URL' }]);
    }
  }
  const files = await listHtmlFiles(input.paths);
  if (files.length === 0) {
    throw new ArchiveImportError(input.paths.map((p) => ({ file: p, reason: 'holds no .html, .htm or .xhtml file' })));
  }
  const pages: ImportedPage[] = [];
  const problems: { file: string; reason: string }[] = [];
  for (const [i, file] of files.entries()) {
    let planned: ImportedPage | string;
    try {
      planned = await planPage(file, input.baseUrl, input.date);
    } catch (err) {
      planned = `cannot be read: ${(err as Error).message}`;
    }
    if (typeof planned === 'string') problems.push({ file: file.path, reason: planned });
    else pages.push(planned);
    input.progress?.({ phase: 'check', done: i + 1, total: files.length, file: file.path });
  }
  if (problems.length > 0) throw new ArchiveImportError(problems);

  const gzip = input.out.toLowerCase().endsWith('.gz');
  const options = { gzip, ...(input.recordId ? { recordId: input.recordId } : {}) };
  await mkdir(dirname(input.out), { recursive: true });
  // Records go to a file beside `out` first and are appended in one copy, so a file that vanishes or cannot be read
  // after the check still leaves `out` as it was.
  const staged = `${input.out}.import-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(staged, 'wx');
  try {
    try {
      await handle.write(
        await serializeWarcinfo(
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
        ),
      );
      for (const [i, page] of pages.entries()) {
        // Read again rather than held from the check: an import of many pages keeps one in memory at a time.
        const payload = await readFile(page.file);
        page.bytes = payload.byteLength;
        const record = await serializeExchange(
          {
            url: page.url,
            date: page.date,
            status: 200,
            statusText: 'OK',
            headers: [
              ['Content-Type', `text/html; charset=${page.charset}`],
              ['Content-Length', String(payload.byteLength)],
            ],
            payload,
          },
          options,
        );
        await handle.write(record);
        input.progress?.({ phase: 'write', done: i + 1, total: pages.length, file: page.file });
      }
    } finally {
      await handle.close();
    }
    await pipeline(createReadStream(staged), createWriteStream(input.out, { flags: 'a' }));
  } finally {
    await rm(staged, { force: true });
  }
  return { out: input.out, imported: pages };
}
