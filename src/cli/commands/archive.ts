/**
 * `agent-api archive add URL... --out FILE.warc.gz` captures pages through the given (SSRF-safe) fetcher into a
 * WARC file; `agent-api archive import PATH... --out FILE.warc.gz` does the same from saved HTML files, with no
 * network (html-import.ts): it writes every page it can, lists every file it refused (exit status 1 when there is
 * one) and the URLs named twice, or with `--strict` writes nothing unless every file is good;
 * `agent-api archive ls PATH` lists what a WARC file or folder holds.
 *
 * `add` appends: each run adds a `warcinfo` record and then one request/response pair per captured URL, written
 * as soon as that URL is done, so an interrupted run keeps what it captured. Reading gives the latest capture of a
 * URL, so re-adding a URL refreshes it. `.gz` names get one gzip member per record; other names plain WARC.
 */
import { mkdir, open } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { basename, dirname } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { FetchError } from '../../providers/types.ts';
import type { FetchedPage, PageFetcher } from '../../providers/types.ts';
import { isTextMime } from '../../providers/web/archive/body.ts';
import { archiveImport } from '../../providers/web/archive/html-import.ts';
import type { ArchiveImportResult } from '../../providers/web/archive/html-import.ts';
import { listWarcFiles } from '../../providers/web/archive/reader.ts';
import { normalizeArchiveUrl } from '../../providers/web/archive/url.ts';
import { scanWarcFile } from '../../providers/web/archive/warc-scan.ts';
import { serializeExchange, serializeWarcinfo } from '../../providers/web/archive/writer.ts';
import { importPace } from '../import-progress.ts';
import type { HttpCapture } from '../../providers/web/archive/writer.ts';

export interface ArchiveAddProgress {
  /** How many URLs are done, this one included. */
  done: number;
  total: number;
  url: string;
  ok: boolean;
  status?: number;
  bytes?: number;
  /** A FetchError code or `error`. */
  errorCode?: string;
  error?: string;
}

export interface ArchiveAddInput {
  urls: readonly string[];
  /** The WARC file to append to (created with its folder when missing). */
  out: string;
  fetcher: PageFetcher;
  progress?: (event: ArchiveAddProgress) => void;
  /** Milliseconds since the epoch, for the warcinfo date; defaults to Date.now. */
  now?: () => number;
  software?: string;
}

export interface ArchiveAddResult {
  out: string;
  captured: { url: string; finalUrl: string; status: number; bytes: number }[];
  failed: { url: string; code: string; message: string }[];
}

/** Headers that describe the wire form of a body the fetcher has already decoded. */
const WIRE_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length']);

/** The HTTP exchange(s) to archive for a fetched page: its response, and a redirect from the URL asked for. */
export function capturesFromPage(page: FetchedPage): HttpCapture[] {
  const text = isTextMime(page.contentType) || page.body !== '' || page.bytes === 0;
  const payload = text ? new TextEncoder().encode(page.body) : new Uint8Array();
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(page.headers)) {
    if (WIRE_HEADERS.has(name)) continue;
    // The body was decoded to a string and is stored as UTF-8, so the declared charset must say so.
    if (name === 'content-type' && text && page.charset.toLowerCase() !== 'utf-8' && page.body !== '') {
      headers.push([name, `${value.split(';')[0]?.trim() ?? value}; charset=utf-8`]);
    } else {
      headers.push([name, value]);
    }
  }
  headers.push(['content-length', String(payload.byteLength)]);
  const captures: HttpCapture[] = [];
  const asked = normalizeArchiveUrl(page.requestedUrl);
  const final = normalizeArchiveUrl(page.url) ?? page.url;
  if (asked !== null && asked !== final) {
    // The fetcher followed redirects and does not say how; record one hop so the URL asked for resolves too.
    captures.push({
      url: asked,
      date: page.fetchedAt,
      status: 302,
      statusText: 'Found',
      headers: [
        ['location', final],
        ['content-length', '0'],
      ],
      payload: new Uint8Array(),
    });
  }
  captures.push({
    url: final,
    date: page.fetchedAt,
    status: page.status,
    statusText: STATUS_CODES[page.status] ?? '',
    headers,
    payload,
    // Binary bodies are not kept by PageFetcher; the record says the payload is not the whole body.
    ...(text ? {} : { truncated: 'unspecified' as const }),
  });
  return captures;
}

/** Fetches each URL through `fetcher` and appends it to the WARC file `out`; one failure does not stop the rest. */
export async function archiveAdd(input: ArchiveAddInput): Promise<ArchiveAddResult> {
  const gzip = input.out.toLowerCase().endsWith('.gz');
  const now = input.now ?? Date.now;
  const urls = [...new Set(input.urls)];
  const result: ArchiveAddResult = { out: input.out, captured: [], failed: [] };
  await mkdir(dirname(input.out), { recursive: true });
  const file = await open(input.out, 'a');
  try {
    const info = await serializeWarcinfo(
      {
        filename: basename(input.out),
        date: new Date(now()).toISOString(),
        fields: {
          software: input.software ?? 'agent-api archive add',
          format: 'WARC File Format 1.1',
          conformsTo: 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
        },
      },
      { gzip },
    );
    await file.write(info);
    let done = 0;
    for (const url of urls) {
      try {
        const page = await input.fetcher.fetch(url);
        for (const capture of capturesFromPage(page)) await file.write(await serializeExchange(capture, { gzip }));
        result.captured.push({ url, finalUrl: page.url, status: page.status, bytes: page.bytes });
        done++;
        input.progress?.({ done, total: urls.length, url, ok: true, status: page.status, bytes: page.bytes });
      } catch (err) {
        const code = err instanceof FetchError ? err.code : 'error';
        const message = err instanceof Error ? err.message : String(err);
        result.failed.push({ url, code, message });
        done++;
        input.progress?.({ done, total: urls.length, url, ok: false, errorCode: code, error: message });
      }
    }
  } finally {
    await file.close();
  }
  return result;
}

export interface ArchiveLsRow {
  url: string;
  status: number;
  contentType: string | null;
  bytes: number;
  date: string;
}

/**
 * Every response, resource and revisit record of a WARC file or folder, in file order (no de-duplication), read
 * one record at a time so any size of archive can be listed.
 */
export async function* archiveLsRows(path: string): AsyncGenerator<ArchiveLsRow> {
  for (const file of await listWarcFiles(path)) {
    for await (const { record: r } of scanWarcFile(file)) {
      yield { url: r.url, status: r.status, contentType: r.contentType, bytes: r.payload.byteLength, date: r.date };
    }
  }
}

/** The rows of `archiveLsRows` as a list. */
export async function archiveLs(path: string): Promise<ArchiveLsRow[]> {
  const rows: ArchiveLsRow[] = [];
  for await (const row of archiveLsRows(path)) rows.push(row);
  return rows;
}

/** The rows as an aligned text table. */
export function formatLsTable(rows: readonly ArchiveLsRow[]): string[] {
  const cells = rows.map((r) => [String(r.status), r.contentType ?? '-', String(r.bytes), r.date, r.url]);
  const header = ['STATUS', 'TYPE', 'BYTES', 'DATE', 'URL'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}

export interface ArchiveCommandDeps {
  createFetcher: () => PageFetcher;
  stdout: (line: string) => void;
  stderr: NodeJS.WritableStream;
  /** Sets the process exit code (1 when some URL failed or file was refused); defaults to process.exitCode. */
  setExitCode?: (code: number) => void;
  /** Milliseconds since the epoch, for the import's pace; defaults to Date.now. */
  now?: () => number;
}

/** Registers `archive add`, `archive import` and `archive ls` on a commander program. */
export function registerArchiveCommands(program: Command, deps: ArchiveCommandDeps): Command {
  const setExitCode =
    deps.setExitCode ??
    ((code: number) => {
      process.exitCode = code;
    });
  const archive = program.command('archive').description('capture pages into a web archive (WARC) and list one');

  archive
    .command('add')
    .description('fetch URLs through the safe fetcher and append them to a WARC file')
    .argument('<urls...>', 'URLs to capture')
    .requiredOption('--out <file>', 'the WARC file to append to (.warc.gz or .warc)')
    .option('--json', 'print one JSON object with the result')
    .action(async (urls: string[], opts: { out: string; json?: boolean }) => {
      const bar = new cliProgress.SingleBar(
        { stream: deps.stderr, format: 'archive add [{bar}] {value}/{total} {url}', hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(urls.length, 0, { url: '' });
      let result: ArchiveAddResult;
      try {
        result = await archiveAdd({
          urls,
          out: opts.out,
          fetcher: deps.createFetcher(),
          progress: (e) => bar.update(e.done, { url: e.url }),
        });
      } finally {
        bar.stop();
      }
      for (const f of result.failed) deps.stderr.write(`failed ${f.url}: ${f.code}: ${f.message}\n`);
      if (opts.json) deps.stdout(JSON.stringify(result));
      else deps.stdout(`captured ${result.captured.length} of ${urls.length} URLs into ${result.out}`);
      if (result.failed.length > 0) setExitCode(1);
    });

  archive
    .command('import')
    .description(
      'append saved HTML files (or folders of them) to a WARC file, with no network; every file refused is listed',
    )
    .argument('<paths...>', '.html/.htm/.xhtml files (or the same gzipped, .html.gz) or folders searched recursively')
    .requiredOption('--out <file>', 'the WARC file to append to (.warc.gz or .warc)')
    .option('--base-url <url>', 'the URL of each folder given, for pages that name no URL of their own')
    .option('--strict', 'all or nothing: if any file is refused, write nothing')
    .option('--json', 'print one JSON object: the pages imported, the files refused and the duplicate URLs')
    .action(async (paths: string[], opts: { out: string; baseUrl?: string; strict?: boolean; json?: boolean }) => {
      // A redrawn bar on a terminal; elsewhere (a log, a pipe) one line every 2 s. Never on stdout.
      const bar = new cliProgress.SingleBar(
        {
          stream: deps.stderr,
          format: 'archive import [{bar}] {value}/{total} files | {rate} pages/s | {left} left | {refused} refused',
          hideCursor: true,
          noTTYOutput: true,
          notTTYSchedule: 2000,
        },
        cliProgress.Presets.shades_classic,
      );
      const now = deps.now ?? Date.now;
      const began = now();
      let started = false;
      let result: ArchiveImportResult;
      try {
        result = await archiveImport({
          paths,
          out: opts.out,
          ...(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {}),
          ...(opts.strict ? { strict: true } : {}),
          progress: (e) => {
            if (!started) {
              started = true;
              bar.start(e.total, 0, { rate: '-', left: '-', refused: 0 });
            }
            bar.update(e.done, { ...importPace(e.done, e.total, now() - began), refused: e.refused });
          },
        });
      } finally {
        if (started) bar.stop();
      }
      for (const r of result.refused) deps.stderr.write(`refused ${r.file}: ${r.reason}\n`);
      for (const d of result.duplicates) {
        deps.stderr.write(`duplicate ${d.url}: kept ${d.winner}, left out ${d.loser} (${d.reason})\n`);
      }
      if (opts.json) {
        deps.stdout(JSON.stringify(result));
      } else {
        const notes = [
          ...(result.refused.length > 0 ? [`${result.refused.length} refused`] : []),
          ...(result.duplicates.length > 0
            ? [`${result.duplicates.length} ${result.duplicates.length === 1 ? 'duplicate' : 'duplicates'} left out`]
            : []),
        ];
        deps.stdout(
          `imported ${result.imported.length} pages into ${result.out}${notes.length > 0 ? `; ${notes.join(', ')}` : ''}`,
        );
      }
      // Scripts notice a partial import; duplicates are resolved by the documented rule and are no failure.
      if (result.refused.length > 0) setExitCode(1);
    });

  archive
    .command('ls')
    .description('list the HTTP records of a WARC file or a folder of them')
    .argument('<path>', 'a .warc/.warc.gz file or a folder')
    .option('--json', 'print one JSON object per record')
    .action(async (path: string, opts: { json?: boolean }) => {
      if (opts.json) {
        for await (const row of archiveLsRows(path)) deps.stdout(JSON.stringify(row));
        return;
      }
      for (const line of formatLsTable(await archiveLs(path))) deps.stdout(line);
    });
  return archive;
}
