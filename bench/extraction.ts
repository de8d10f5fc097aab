/**
 * `npm run bench -- extraction [--dataset DIR] [--per-type N] [--workers N] [--fit-page-types]`: main-content F1 and time per page of
 * our extractor against Readability.js on linkedom, side by side in one process, scored with each dataset's
 * published scorer (ports in bench/lib/extraction-scorers.ts). Without --dataset it runs zyte-aeb and wcxb-dev from
 * the external datasets folder beside the checkout (data, not part of this repository; see
 * bench/lib/extraction-datasets.ts); with it, any folder in the WCXB layout, and the last line reads
 * `extraction F1 <ours> vs <readability> on <N> pages`. Pages are shared among worker threads (default: one per
 * core, at most 2); each worker times both extractors on every page it gets, alternating which runs first. The
 * default run also prints pages/s of extraction plus term analysis on one core. Every WCXB run also prints the
 * page-type classifier's accuracy per type with its confusion matrix, 5-fold cross-validated accuracy (the shipped
 * weights are fitted on wcxb-dev), and what reading its signals costs; --fit-page-types refits the weights
 * (bench/lib/extraction-page-types.ts).
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { datasetsRoot, loadWcxb, loadZyte } from './lib/extraction-datasets.ts';
import { extract } from '../src/engine/analysis/extract/index.ts';
import { createTermAnalyzer } from '../src/engine/analysis/terms/index.ts';
import {
  crossValidatedPredictions,
  formatAccuracy,
  formatConfusion,
  pageTypeAccuracy,
  signalCost,
  writePageTypeWeights,
} from './lib/extraction-page-types.ts';
import { type Row, type ScoredPage, formatTable, runBothParallel, wcxbRows, zyteRow } from './lib/extraction-run.ts';

interface Args {
  dataset: string | null;
  perType: number;
  workers: number;
  fitPageTypes: boolean;
}

function parseArgs(args: readonly string[]): Args {
  const out: Args = {
    dataset: null,
    perType: Infinity,
    workers: Math.min(2, availableParallelism()),
    fitPageTypes: false,
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--dataset') out.dataset = args[++i] ?? null;
    else if (a === '--per-type') out.perType = Number(args[++i]);
    else if (a === '--workers') out.workers = Math.max(1, Number(args[++i]) || 1);
    else if (a === '--fit-page-types') out.fitPageTypes = true;
  }
  return out;
}

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}

async function wcxb(name: string, dir: string, args: Args): Promise<Row[]> {
  const pages = loadWcxb(dir, args.perType);
  const inputs = pages.map((p) => ({ id: p.id, url: p.url, pageType: p.pageType, html: p.html }));
  const results = await runBothParallel(inputs, args.workers);
  if (args.fitPageTypes) {
    const path = writePageTypeWeights(
      results.map((r) => r.features),
      results.map((r) => r.pageType),
      name,
    );
    log(`page-type weights fitted on ${results.length} pages of ${name}: ${path} (run again to measure them)`);
  }
  log(pageTypeReport(name, results));
  // Ten pages of each type: enough for a stable share, a few seconds on one core.
  const taken = new Map<string, number>();
  const sample = pages.filter((p) => {
    const k = taken.get(p.pageType) ?? 0;
    taken.set(p.pageType, k + 1);
    return k < 10;
  });
  log(signalCost(sample));
  return wcxbRows(
    name,
    pages.map((p) => p.mainContent),
    results,
  );
}

/**
 * Page-type accuracy of the shipped classifier per type, its confusion matrix, the 5-fold cross-validated figures
 * (the shipped weights were fitted on this set, so CV is the estimate for unseen pages) and the classifier's time.
 */
function pageTypeReport(name: string, results: readonly ScoredPage[]): string {
  const truth = results.map((r) => r.pageType);
  const predicted = results.map((r) => r.predictedType);
  const cv = crossValidatedPredictions(
    results.map((r) => r.features),
    truth,
  );
  const rows = pageTypeAccuracy(truth, predicted, cv);
  const all = rows[rows.length - 1];
  const msClassify = results.reduce((a, r) => a + r.msClassify, 0) / results.length;
  const msOurs = results.reduce((a, r) => a + r.msOurs, 0) / results.length;
  return [
    `${name}: page type`,
    formatAccuracy(rows),
    formatConfusion(truth, predicted, 'true \\ predicted'),
    formatConfusion(truth, cv, 'CV: true \\ pred.'),
    `page type ${name}: accuracy ${all?.accuracy.toFixed(3)}, 5-fold CV ${all?.cvAccuracy.toFixed(3)}; classifyPage ${msClassify.toFixed(3)} ms/page after extraction (${msOurs.toFixed(1)} ms/page, signals included)`,
    '',
  ].join('\n');
}

async function zyte(dir: string, args: Args): Promise<Row> {
  const pages = loadZyte(dir);
  const inputs = pages.map((p) => ({ id: p.id, url: p.url, pageType: 'article', html: p.html }));
  const results = await runBothParallel(inputs, args.workers);
  return zyteRow(
    'zyte-aeb',
    pages.map((p) => p.articleBody),
    results,
  );
}

export async function run(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  if (args.dataset) {
    const dir = resolve(args.dataset);
    if (!existsSync(join(dir, 'html'))) throw new Error(`no html/ folder in ${dir}`);
    const rows = await wcxb(basename(dir), dir, args);
    log(formatTable(rows));
    const all = rows[rows.length - 1] as Row;
    log(`extraction F1 ${all.f1Ours.toFixed(3)} vs ${all.f1Reference.toFixed(3)} on ${all.n} pages`);
    return;
  }
  const root = datasetsRoot();
  const rows = [await zyte(join(root, 'zyte-aeb'), args), ...(await wcxb('wcxb-dev', join(root, 'wcxb-dev'), args))];
  log(formatTable(rows));
  const z = rows[0] as Row;
  const w = rows[rows.length - 1] as Row;
  log(
    `zyte-aeb: F1 ${z.f1Ours.toFixed(3)} vs ${z.f1Reference.toFixed(3)}; wcxb-dev: F1 ${w.f1Ours.toFixed(3)} vs ${w.f1Reference.toFixed(3)}`,
  );
  log(extractAndTermsThroughput(join(root, 'zyte-aeb'), join(root, 'wcxb-dev')));
}

/**
 * Extraction plus term analysis, one page after another on this thread (one core): the work Optimize and research
 * do per fetched page. The raw functions, so nothing is cached.
 */
function extractAndTermsThroughput(zyteDir: string, wcxbDir: string): string {
  const pages = [
    ...loadZyte(zyteDir).map((p) => ({ url: p.url, html: p.html })),
    ...loadWcxb(wcxbDir, 20).map((p) => ({ url: p.url, html: p.html })),
  ];
  const analyzer = createTermAnalyzer();
  const one = (p: { url: string; html: string }) => {
    const e = extract(p.html, { url: p.url });
    analyzer.analyzeDocument({
      text: e.mainText,
      headings: e.headings.map((h) => h.text),
      title: e.title,
      language: e.lang || 'en',
    });
  };
  for (const p of pages.slice(0, 20)) one(p);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const p of pages) one(p);
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return `extract + terms on one core: ${(pages.length / wallS).toFixed(1)} pages/s (${(cpuMs / pages.length).toFixed(1)} ms CPU per page, ${pages.length} pages: zyte-aeb and 20 per WCXB page type)`;
}
