/**
 * `npm run bench -- import [--before REF|none] [--concurrency N]`: the throughput of `agent-api archive import` on
 * the 350 real pages of the WCXB dev set (../shared/datasets/wcxb-dev/html/*.html.gz, beside the checkout; skipped
 * with a message when absent). Goal: at least 100 pages/s on 2 cores for the import itself.
 *
 * - **in process**: archiveImport on the gzipped files as they are, without --base-url (what a user gets: pages that
 *   name no URL refused, duplicates reported) and with one (every page written), with the CPU time of all threads
 *   per page, the event loop's busy time per page, and the size written.
 * - **side by side**: the command line of REF (default: the import before it became resumable, all or nothing) and of this
 *   checkout, both through tsx on the same pages gunzipped to `.html` (REF reads no `.gz`) with --base-url (REF
 *   writes nothing if one file lacks a URL). Wall time, start-up included. REF's sources come from `git archive`,
 *   run against this checkout's node_modules.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import { archiveImport } from '../src/providers/web/archive/html-import.ts';
import type { ArchiveImportResult } from '../src/providers/web/archive/html-import.ts';
import { datasetsRoot } from './lib/extraction-datasets.ts';
import { processCpuMs, table } from './lib/harness.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The import before it became resumable: all or nothing, the whole page parsed, level-9 gzip, digests in WebAssembly. */
const BEFORE = 'e6a42c2';
const BASE_URL = 'https://wcxb.example/';
const GOAL = 100;

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

interface InProcess {
  result: ArchiveImportResult;
  seconds: number;
  cpuMsPerPage: number;
  /** CPU time of the main thread alone (the event loop; zlib and file reads run on other threads). */
  mainCpuMsPerPage: number;
  loopMsPerPage: number;
  bytes: number;
}

/** CPU milliseconds of this process's main thread (Linux: its task's /proc stat, in 10 ms ticks). */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return processCpuMs(process.pid);
  }
}

async function inProcess(
  dir: string,
  out: string,
  baseUrl: string | undefined,
  concurrency?: number,
): Promise<InProcess> {
  rmSync(out, { force: true });
  const loop = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const main = mainThreadCpuMs();
  const began = performance.now();
  const result = await archiveImport({
    paths: [dir],
    out,
    ...(baseUrl ? { baseUrl } : {}),
    ...(concurrency ? { concurrency } : {}),
  });
  const seconds = (performance.now() - began) / 1000;
  const used = process.cpuUsage(cpu);
  const files = result.imported.length + result.refused.length + result.duplicates.length;
  return {
    result,
    seconds,
    cpuMsPerPage: (used.user + used.system) / 1000 / files,
    mainCpuMsPerPage: (mainThreadCpuMs() - main) / files,
    loopMsPerPage: performance.eventLoopUtilization(loop).active / files,
    bytes: existsSync(out) ? statSync(out).size : 0,
  };
}

/**
 * Runs a checkout's launcher through tsx: its wall time in seconds, its CPU time (user + system of every thread,
 * from bash's `times` for its children) and its exit code.
 */
function runCli(
  root: string,
  args: string[],
  db: string,
): Promise<{ seconds: number; cpuMs: number; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const script = '"$@" >/dev/null; code=$?; times; exit $code';
    const child = spawn('bash', ['-c', script, 'bash', process.execPath, join(root, 'bin/agent-api.js'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', AGENT_API_DB: db, AGENT_API_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + String(d)).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code) => {
      // `times` prints the shell's times, then its children's: "0m12.345s 0m1.234s".
      const children = stdout.trim().split('\n').at(-1) ?? '';
      const cpuMs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
        (sum, m) => sum + (Number(m[1]) * 60 + Number(m[2])) * 1000,
        0,
      );
      resolve({ seconds: (performance.now() - began) / 1000, cpuMs, code, stderr });
    });
  });
}

/** REF's sources and launcher in a temporary folder, sharing this checkout's node_modules; null when REF is unknown. */
function checkoutOf(ref: string, into: string): string | null {
  try {
    execFileSync('git', ['cat-file', '-e', `${ref}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    return null;
  }
  mkdirSync(into, { recursive: true });
  const tar = execFileSync('git', ['archive', ref, 'src', 'bin', 'package.json', 'tsconfig.json'], {
    cwd: ROOT,
    maxBuffer: 1 << 30,
  });
  execFileSync('tar', ['-x', '-C', into], { input: tar });
  symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'));
  return into;
}

const rate = (pages: number, seconds: number) => (seconds > 0 ? (pages / seconds).toFixed(1) : '-');
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

export async function run(args: string[]): Promise<void> {
  const source = join(datasetsRoot(), 'wcxb-dev', 'html');
  if (!existsSync(source)) {
    process.stdout.write(`skipped: the WCXB dev pages are not at ${source} (../shared/datasets beside the checkout)\n`);
    return;
  }
  const concurrency = option(args, '--concurrency') ? Number(option(args, '--concurrency')) : undefined;
  const before = option(args, '--before') ?? BEFORE;
  const work = mkdtempSync(join(tmpdir(), 'bench-import-'));
  try {
    const pages = readdirSync(source).filter((f) => f.endsWith('.html.gz')).length;
    const rows: string[][] = [];
    const bare = await inProcess(source, join(work, 'bare.warc.gz'), undefined, concurrency);
    const based = await inProcess(source, join(work, 'based.warc.gz'), BASE_URL, concurrency);
    for (const [name, m] of [
      ['in process, .html.gz, no --base-url', bare],
      ['in process, .html.gz, --base-url', based],
    ] as const) {
      rows.push([
        name,
        String(m.result.imported.length),
        String(m.result.refused.length),
        String(m.result.duplicates.length),
        m.seconds.toFixed(2),
        rate(pages, m.seconds),
        m.cpuMsPerPage.toFixed(1),
        m.mainCpuMsPerPage.toFixed(1),
        m.loopMsPerPage.toFixed(1),
        mb(m.bytes),
      ]);
    }

    // The same pages as plain .html for the side-by-side runs (REF reads no .gz).
    const plain = join(work, 'plain');
    mkdirSync(plain);
    for (const name of readdirSync(source).filter((f) => f.endsWith('.html.gz'))) {
      writeFileSync(join(plain, name.slice(0, -3)), gunzipSync(readFileSync(join(source, name))));
    }
    const db = join(work, 'bench.db');
    const sides: [string, string | null][] = [
      [`CLI of ${before} (before)`, before === 'none' ? null : checkoutOf(before, join(work, 'before'))],
      ['CLI of this checkout', ROOT],
    ];
    for (const [name, root] of sides) {
      if (root === null) {
        rows.push([name, '-', '-', '-', '-', '-', '-', '-', '-', '-']);
        continue;
      }
      const out = join(work, `${rows.length}.warc.gz`);
      const r = await runCli(root, ['archive', 'import', plain, '--out', out, '--base-url', BASE_URL], db);
      const ok = r.code === 0 || (r.code === 1 && root === ROOT);
      if (!ok) process.stderr.write(`${name} exited with ${r.code}: ${r.stderr.slice(-400)}\n`);
      rows.push([
        name,
        '',
        '',
        '',
        r.seconds.toFixed(2),
        rate(pages, r.seconds),
        (r.cpuMs / pages).toFixed(1),
        '',
        '',
        mb(existsSync(out) ? statSync(out).size : 0),
      ]);
    }
    process.stdout.write(
      table(
        [
          'run',
          'written',
          'refused',
          'duplicates',
          'seconds',
          'pages/s',
          'CPU ms/page',
          'main thread CPU ms/page',
          'loop busy ms/page',
          'MB',
        ],
        rows,
      ),
    );
    const best = Number(rate(pages, based.seconds));
    process.stdout.write(
      `${pages} pages of ${mb(readdirSync(plain).reduce((n, f) => n + statSync(join(plain, f)).size, 0))} MB of HTML; ` +
        `goal at least ${GOAL} pages/s for the import itself: ${best >= GOAL ? 'met' : 'not met'} (${best} pages/s on ` +
        `this machine now; CPU ms/page counts every thread, so 2 idle cores allow about ` +
        `${(1000 / Math.max(based.cpuMsPerPage / 2, based.mainCpuMsPerPage)).toFixed(0)} pages/s, bounded by the main ` +
        `thread's share). Side-by-side figures (wall and CPU) include the command's start-up through tsx.\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
