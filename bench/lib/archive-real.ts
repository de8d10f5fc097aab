/**
 * A web archive of real pages for the index-build bench: the WCXB dev pages (`../shared/datasets/wcxb-dev`, relative
 * to the repository root), each written as a response record at a URL of its own domain, repeated under varied URLs
 * until the archive holds the number of pages asked for. Dates and record ids are fixed, so two runs index the same
 * bytes.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { writeBenchArchive } from './bench-warc.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where the WCXB dev split is expected: a sibling of the checkout, as the extraction bench reads it. */
export const WCXB_DEV_DIR = join(ROOT, '..', 'shared', 'datasets', 'wcxb-dev');

interface SourcePage {
  id: string;
  domain: string;
  html: Buffer;
}

/** The WCXB dev pages (id order), or null when the dataset is not there. */
export function loadWcxbPages(dir = WCXB_DEV_DIR): SourcePage[] | null {
  const htmlDir = join(dir, 'html');
  if (!existsSync(htmlDir)) return null;
  let domains: Record<string, { domain?: string }> = {};
  try {
    const meta = JSON.parse(readFileSync(join(dir, 'metadata.json'), 'utf8')) as {
      files?: Record<string, { domain?: string }>;
    };
    domains = meta.files ?? {};
  } catch {
    // Without metadata every page gets a made-up domain from its id.
  }
  const names = readdirSync(htmlDir)
    .filter((n) => n.endsWith('.html.gz'))
    .sort();
  return names.map((name) => {
    const id = name.slice(0, -'.html.gz'.length);
    return {
      id,
      domain: domains[id]?.domain ?? `page-${id}.example.com`,
      html: gunzipSync(readFileSync(join(htmlDir, name))),
    };
  });
}

/**
 * Writes a `.warc.gz` of `count` pages taken round-robin from `source`; the n-th repetition of a page lives at
 * `/wcxb/<id>/copy-<n>/` so every URL is distinct. Answers the number of distinct source pages used.
 */
export async function writeRealArchive(file: string, source: readonly SourcePage[], count: number): Promise<number> {
  function* pages() {
    for (let i = 0; i < count; i++) {
      const page = source[i % source.length]!;
      const copy = Math.floor(i / source.length);
      // No charset: the index sniffs it from the page, as for a real crawl that sent none.
      yield {
        url: `https://${page.domain}/wcxb/${page.id}/${copy === 0 ? '' : `copy-${copy}/`}`,
        html: page.html,
        contentType: 'text/html',
      };
    }
  }
  await writeBenchArchive(file, 'wcxb.warc.gz', 'agent-api-bench-archive-real', pages());
  return Math.min(count, source.length);
}

// ---------------------------------------------------------------------------------------------------------------
// The index build, today's way (every page extracted in the thread that writes the index) against worker threads.

/** What one build child measured. */
interface BuildReport {
  mode: string;
  pages: number;
  threads: number;
  /** Reading the WARC file into the URL index (hashing included). */
  recordsMs: number;
  /** Extracting and indexing the pages. */
  pagesMs: number;
  /** CPU time of the whole process (every thread), user and system. */
  cpuMs: number;
  peakRssMb: number;
}

/** Peak resident set size of this process (VmHWM) in MB; the current RSS where /proc is missing. */
function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m?.[1]) return Number(m[1]) / 1024;
  } catch {
    // Not Linux.
  }
  return process.memoryUsage().rss / 2 ** 20;
}

/**
 * One build on an empty index folder with the server's extractor: `in-thread` as before this change, `workers` with
 * the server's worker threads (src/archive-index.ts).
 */
async function buildChild(mode: string, archivePath: string, indexDir: string): Promise<BuildReport> {
  const [{ createWebArchive }, { createArchiveSearch }, index] = await Promise.all([
    import('../../src/providers/web/archive/archive.ts'),
    import('../../src/providers/search/archive-search.ts'),
    import('../../src/archive-index.ts'),
  ]);
  const archive = createWebArchive({ path: archivePath, indexDir });
  let threads = 0;
  let pages = 0;
  const search = createArchiveSearch({
    archive,
    extractorId: index.ARCHIVE_EXTRACTOR_ID,
    extractText: index.archiveExtractText,
    onIndexPage: (done) => (pages = done),
    ...(mode === 'workers'
      ? {
          workers: async (count: number) => {
            const workers = await index.startArchiveIndexWorkers({ pages: count });
            threads = workers?.threads ?? 0;
            return workers;
          },
        }
      : {}),
  });
  const started = performance.now();
  await archive.open();
  const recordsDone = performance.now();
  await search.warm();
  const pagesMs = performance.now() - recordsDone;
  await search.close();
  await archive.close();
  const cpu = process.cpuUsage();
  return {
    mode,
    pages,
    threads,
    recordsMs: recordsDone - started,
    pagesMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssMb: peakRssMb(),
  };
}

/** Runs a build child in a fresh process (its own heap and peak RSS); answers its report. */
async function runBuildChild(mode: string, archivePath: string, indexDir: string): Promise<BuildReport> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', mode, archivePath, indexDir],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    child.once('error', reject);
    child.once('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{'))
        reject(new Error(`build child ${mode} exited ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(last) as BuildReport);
    });
  });
}

const s1 = (ms: number) => (ms / 1000).toFixed(1);

/**
 * Builds an archive of `pages` real pages and indexes it in-thread and with workers, each in its own process on an
 * empty index folder. Rows for bench/lib/harness.ts's table; null when the dataset is absent.
 */
export async function archiveIndexBuild(pages: number): Promise<string[][] | null> {
  const source = loadWcxbPages();
  if (!source) return null;
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { availableParallelism, tmpdir } = await import('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'agent-api-bench-index-'));
  try {
    const archivePath = join(dir, 'wcxb.warc.gz');
    const distinct = await writeRealArchive(archivePath, source, pages);
    const before = await runBuildChild('in-thread', archivePath, join(dir, 'index-in-thread'));
    const after = await runBuildChild('workers', archivePath, join(dir, 'index-workers'));
    const total = (r: BuildReport) => r.recordsMs + r.pagesMs;
    const perThousand = (r: BuildReport) => total(r) / (r.pages / 1000);
    const row = (figure: string, a: string, b: string, unit: string, note = '') => [figure, a, b, unit, note];
    return [
      row(
        `index build, ${before.pages} real pages`,
        s1(total(before)),
        s1(total(after)),
        's',
        `${(total(before) / total(after)).toFixed(2)}x faster with ${after.threads} worker threads on ${availableParallelism()} cores (goal: 2x); ${distinct} distinct WCXB pages`,
      ),
      row('  reading the WARC file (URL index)', s1(before.recordsMs), s1(after.recordsMs), 's', 'one thread in both'),
      row(
        '  extracting and indexing pages',
        s1(before.pagesMs),
        s1(after.pagesMs),
        's',
        `${(before.pagesMs / after.pagesMs).toFixed(2)}x`,
      ),
      row(
        'pages per second',
        (before.pages / (total(before) / 1000)).toFixed(1),
        (after.pages / (total(after) / 1000)).toFixed(1),
        'pages/s',
      ),
      row(
        'CPU time, all threads',
        s1(before.cpuMs),
        s1(after.cpuMs),
        's',
        'work done, whatever else runs on the machine: a wall-time ratio above the core count means other load',
      ),
      row(
        'CPU per page',
        (before.cpuMs / before.pages).toFixed(0),
        (after.cpuMs / after.pages).toFixed(0),
        'ms',
        `CPU / wall: ${(after.cpuMs / total(after)).toFixed(2)} cores busy with workers, ${(before.cpuMs / total(before)).toFixed(2)} before`,
      ),
      row('per thousand pages', s1(perThousand(before)), s1(perThousand(after)), 's', 'the README figure'),
      row(
        'peak RSS',
        before.peakRssMb.toFixed(0),
        after.peakRssMb.toFixed(0),
        'MB',
        'workers: main thread and workers',
      ),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const invoked = process.argv[1] ? fileURLToPath(import.meta.url) === process.argv[1] : false;
if (invoked && process.argv[2] === '--child') {
  const report = await buildChild(process.argv[3] ?? '', process.argv[4] ?? '', process.argv[5] ?? '');
  process.stdout.write(`${JSON.stringify(report)}\n`);
  // Worker threads and timers must not keep the measured process alive.
  process.exit(0);
}
