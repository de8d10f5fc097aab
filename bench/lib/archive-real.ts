/**
 * A web archive of real pages for the index-build bench: the WCXB dev pages (`../shared/datasets/wcxb-dev`, relative
 * to the repository root), each written as a response record at a URL of its own domain, repeated under varied URLs
 * until the archive holds the number of pages asked for. Dates and record ids are fixed, so two runs index the same
 * bytes.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { writeBenchArchive } from './bench-warc.ts';
import type * as IndexModuleNs from '../../src/archive-index.ts';
import type * as ExtractModuleNs from '../../src/engine/analysis/extract/index.ts';
import type * as SearchModuleNs from '../../src/providers/search/archive-search.ts';
import type * as ArchiveModuleNs from '../../src/providers/web/archive/archive.ts';

type ArchiveModule = typeof ArchiveModuleNs;
type SearchModule = typeof SearchModuleNs;
type IndexModule = typeof IndexModuleNs;
type ExtractModule = typeof ExtractModuleNs;

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
 * One build on an empty index folder, with the modules of `srcDir` (this checkout's src/ or the baseline's):
 * `baseline` indexes in-thread with that tree's analysis extractor, as the server did before worker threads;
 * `in-thread` and `workers` use this server's extractor (src/archive-index.ts) without and with its worker threads.
 */
async function buildChild(mode: string, archivePath: string, indexDir: string, srcDir: string): Promise<BuildReport> {
  const from = (path: string) => pathToFileURL(join(srcDir, path)).href;
  const [{ createWebArchive }, { createArchiveSearch }] = await Promise.all([
    import(from('providers/web/archive/archive.ts')) as Promise<ArchiveModule>,
    import(from('providers/search/archive-search.ts')) as Promise<SearchModule>,
  ]);
  const index = mode === 'baseline' ? null : ((await import(from('archive-index.ts'))) as IndexModule);
  const extractor = index
    ? { extractorId: index.ARCHIVE_EXTRACTOR_ID, extractText: index.archiveExtractText }
    : await baselineExtractor(from('engine/analysis/extract/index.ts'));
  const archive = createWebArchive({ path: archivePath, indexDir });
  let threads = 0;
  let pages = 0;
  const search = createArchiveSearch({
    archive,
    ...extractor,
    onIndexPage: (done) => (pages = done),
    ...(mode === 'workers' && index
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

/** The baseline's extractor as its composition root wired it: the analysis extractor's title and main text. */
async function baselineExtractor(moduleUrl: string) {
  const { extract } = (await import(moduleUrl)) as ExtractModule;
  return {
    extractorId: 'baseline',
    extractText: (html: string, url: string) => {
      const e = extract(html, { url });
      return { title: e.title, text: e.mainText };
    },
  };
}

/** Runs a build child in a fresh process (its own heap and peak RSS); answers its report. */
async function runBuildChild(
  mode: string,
  archivePath: string,
  indexDir: string,
  srcDir = join(ROOT, 'src'),
): Promise<BuildReport> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', mode, archivePath, indexDir, srcDir],
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
 * The index build as it was before worker threads and the leaner DOM: main at the commit before that work. Its
 * extractor is built from that tree, checked out beside this one with `git worktree` (sharing node_modules).
 */
export const INDEX_BUILD_BASELINE = 'e6a42c2^';

/** Checks the baseline out into `dir`; answers its src/ folder and how to remove it, or null without git. */
async function checkoutBaseline(dir: string): Promise<{ srcDir: string; remove(): void } | null> {
  const { execFileSync } = await import('node:child_process');
  const { symlinkSync } = await import('node:fs');
  const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { stdio: 'ignore' });
  try {
    git('worktree', 'add', '--detach', dir, INDEX_BUILD_BASELINE);
  } catch {
    return null;
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { srcDir: join(dir, 'src'), remove: () => git('worktree', 'remove', '--force', dir) };
}

/**
 * Builds an archive of `pages` real pages and indexes it three ways, each in its own process on an empty index
 * folder: the baseline (INDEX_BUILD_BASELINE, one thread), this checkout in one thread, and this checkout with its
 * worker threads. Rows for bench/lib/harness.ts's table; null when the dataset is absent.
 */
export async function archiveIndexBuild(pages: number): Promise<string[][] | null> {
  const source = loadWcxbPages();
  if (!source) return null;
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { availableParallelism, tmpdir } = await import('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'agent-api-bench-index-'));
  const baseline = await checkoutBaseline(join(dir, 'baseline'));
  try {
    const archivePath = join(dir, 'wcxb.warc.gz');
    const distinct = await writeRealArchive(archivePath, source, pages);
    const base = baseline
      ? await runBuildChild('baseline', archivePath, join(dir, 'index-baseline'), baseline.srcDir)
      : null;
    const before = await runBuildChild('in-thread', archivePath, join(dir, 'index-in-thread'));
    const after = await runBuildChild('workers', archivePath, join(dir, 'index-workers'));
    const total = (r: BuildReport) => r.recordsMs + r.pagesMs;
    const perThousand = (r: BuildReport) => total(r) / (r.pages / 1000);
    const cell = (r: BuildReport | null, f: (r: BuildReport) => string) => (r ? f(r) : 'no git');
    const row = (figure: string, f: (r: BuildReport) => string, unit: string, note = '') => [
      figure,
      cell(base, f),
      f(before),
      f(after),
      unit,
      note,
    ];
    const speedup = (r: BuildReport | null) => (r ? `${(total(r) / total(after)).toFixed(2)}x` : 'n/a');
    return [
      row(
        `index build, ${before.pages} real pages`,
        (r) => s1(total(r)),
        's',
        `workers ${speedup(base)} faster than the baseline (goal: 2x), ${speedup(before)} than one thread now; ${after.threads} worker threads on ${availableParallelism()} cores; ${distinct} distinct WCXB pages`,
      ),
      row('  reading the WARC file (URL index)', (r) => s1(r.recordsMs), 's', 'one thread in all'),
      row('  extracting and indexing pages', (r) => s1(r.pagesMs), 's'),
      row('pages per second', (r) => (r.pages / (total(r) / 1000)).toFixed(1), 'pages/s'),
      row(
        'CPU time, all threads',
        (r) => s1(r.cpuMs),
        's',
        'work done, whatever else runs on the machine: a wall-time ratio above the core count means other load',
      ),
      row(
        'CPU per page',
        (r) => (r.cpuMs / r.pages).toFixed(0),
        'ms',
        `cores busy (CPU / wall): ${[base, before, after].map((r) => (r ? (r.cpuMs / total(r)).toFixed(2) : 'n/a')).join(', ')}`,
      ),
      row('per thousand pages', (r) => s1(perThousand(r)), 's', 'the README figure'),
      row('peak RSS', (r) => r.peakRssMb.toFixed(0), 'MB', 'workers: main thread and workers'),
    ];
  } finally {
    baseline?.remove();
    await rm(dir, { recursive: true, force: true });
  }
}

const invoked = process.argv[1] ? fileURLToPath(import.meta.url) === process.argv[1] : false;
if (invoked && process.argv[2] === '--child') {
  const [mode = '', archivePath = '', indexDir = '', srcDir = join(ROOT, 'src')] = process.argv.slice(3);
  const report = await buildChild(mode, archivePath, indexDir, srcDir);
  process.stdout.write(`${JSON.stringify(report)}\n`);
  // Worker threads and timers must not keep the measured process alive.
  process.exit(0);
}
