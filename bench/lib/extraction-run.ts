/**
 * Runs our extractor and the reference (Readability.js on linkedom) over dataset pages, interleaved and timed in
 * the same process, and scores both with the dataset's published scorer.
 */
import { Worker } from 'node:worker_threads';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { extract } from '../../src/engine/analysis/extract/index.ts';
import { classifyPage, pageFeatures } from '../../src/engine/analysis/page-type/index.ts';
import { type TpFpFn, wcxbWordF1, zyteMetrics, zyteShingleMatching } from './extraction-scorers.ts';

export interface ScoredPage {
  pageType: string;
  ours: string;
  reference: string;
  msOurs: number;
  msReference: number;
  /** The page-type classifier's answer and its input, from the same extraction as `ours`. */
  predictedType: string;
  features: number[];
  /** Time of classifyPage alone (features plus model), after extraction. */
  msClassify: number;
}

export interface PageInput {
  id: string;
  url: string;
  pageType: string;
  html: string;
}

/** The reference extractor: Readability's textContent on a fresh linkedom document. */
export function referenceText(html: string): string {
  try {
    const { document } = parseHTML(html);
    return new Readability(document as never).parse()?.textContent ?? '';
  } catch {
    return '';
  }
}

/** Our extractor's main text. */
export function oursText(html: string, url: string): string {
  return extract(html, { url }).mainText;
}

interface OursResult {
  text: string;
  predictedType: string;
  features: number[];
  msClassify: number;
}

/** Our extractor's main text, plus the page type classified from the same extraction. */
function oursWithType(html: string, url: string): OursResult {
  const e = extract(html, { url });
  const t = performance.now();
  const predictedType = classifyPage(e).type;
  const msClassify = performance.now() - t;
  return { text: e.mainText, predictedType, features: pageFeatures(e), msClassify };
}

/**
 * Extracts every page with both extractors. A warm-up pass over the first pages runs both untimed; then each page
 * is timed with the two run back to back, alternating which goes first so neither always inherits the other's
 * garbage.
 */
export function runBoth(pages: readonly PageInput[], warmup = 8): ScoredPage[] {
  for (const p of pages.slice(0, warmup)) {
    oursText(p.html, p.url);
    referenceText(p.html);
  }
  return pages.map((p, i) => {
    let ours: OursResult = { text: '', predictedType: '', features: [], msClassify: 0 };
    let reference = '';
    let msOurs = 0;
    let msReference = 0;
    const timeOurs = (): void => {
      const t = performance.now();
      ours = oursWithType(p.html, p.url);
      msOurs = performance.now() - t;
    };
    const timeReference = (): void => {
      const t = performance.now();
      reference = referenceText(p.html);
      msReference = performance.now() - t;
    };
    if (i % 2 === 0) {
      timeOurs();
      timeReference();
    } else {
      timeReference();
      timeOurs();
    }
    return {
      pageType: p.pageType,
      ours: ours.text,
      reference,
      msOurs,
      msReference,
      predictedType: ours.predictedType,
      features: ours.features,
      msClassify: ours.msClassify,
    };
  });
}

/**
 * `runBoth` spread over worker threads: pages are dealt round-robin, each worker times both extractors on its own
 * pages (so every timing still compares the two under the same conditions), and results come back in page order.
 */
export async function runBothParallel(pages: readonly PageInput[], workers: number): Promise<ScoredPage[]> {
  if (workers <= 1 || pages.length < 2 * workers) return runBoth(pages);
  const shards = Array.from({ length: workers }, (_, w) => pages.filter((_, i) => i % workers === w));
  const results = await Promise.all(
    shards.map(
      (shard) =>
        new Promise<ScoredPage[]>((resolve, reject) => {
          const worker = new Worker(WORKER_BOOT, {
            eval: true,
            workerData: new URL('./extraction-worker.ts', import.meta.url).href,
          });
          worker.once('message', (r: ScoredPage[]) => {
            resolve(r);
            void worker.terminate();
          });
          worker.once('error', reject);
          worker.postMessage(shard);
        }),
    ),
  );
  return pages.map((_, i) => results[i % workers]?.[Math.floor(i / workers)] as ScoredPage);
}

// Worker threads do not inherit the tsx loader, so the worker registers it before importing the TypeScript entry.
const WORKER_BOOT = `
const { workerData } = require('node:worker_threads');
import('tsx/esm/api').then(({ register }) => { register(); return import(workerData); });
`;

export interface Row {
  dataset: string;
  pageType: string;
  n: number;
  f1Ours: number;
  f1Reference: number;
  msOurs: number;
  msReference: number;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Zyte rows: the published metric (F1 of mean precision and mean recall over shingles). */
export function zyteRow(dataset: string, truths: readonly string[], results: readonly ScoredPage[]): Row {
  const ours: TpFpFn[] = results.map((r, i) => zyteShingleMatching(truths[i] ?? '', r.ours));
  const ref: TpFpFn[] = results.map((r, i) => zyteShingleMatching(truths[i] ?? '', r.reference));
  return {
    dataset,
    pageType: 'article',
    n: results.length,
    f1Ours: zyteMetrics(ours).f1,
    f1Reference: zyteMetrics(ref).f1,
    msOurs: mean(results.map((r) => r.msOurs)),
    msReference: mean(results.map((r) => r.msReference)),
  };
}

/** WCXB rows: mean word-level F1 per page type, then overall. */
export function wcxbRows(dataset: string, truths: readonly string[], results: readonly ScoredPage[]): Row[] {
  const groups = new Map<string, number[]>();
  results.forEach((r, i) => {
    const list = groups.get(r.pageType) ?? [];
    list.push(i);
    groups.set(r.pageType, list);
  });
  const row = (pageType: string, idx: readonly number[]): Row => ({
    dataset,
    pageType,
    n: idx.length,
    f1Ours: mean(idx.map((i) => wcxbWordF1(results[i]?.ours ?? '', truths[i] ?? '')[2])),
    f1Reference: mean(idx.map((i) => wcxbWordF1(results[i]?.reference ?? '', truths[i] ?? '')[2])),
    msOurs: mean(idx.map((i) => results[i]?.msOurs ?? 0)),
    msReference: mean(idx.map((i) => results[i]?.msReference ?? 0)),
  });
  const rows = [...groups.keys()].sort().map((t) => row(t, groups.get(t) ?? []));
  rows.push(
    row(
      'ALL',
      results.map((_, i) => i),
    ),
  );
  return rows;
}

/** Fixed-width table of rows. */
export function formatTable(rows: readonly Row[]): string {
  const head = [
    'dataset',
    'page type',
    'N',
    'F1 ours',
    'F1 readability',
    'ms/page ours',
    'ms/page readability',
    'time ratio',
  ];
  const body = rows.map((r) => [
    r.dataset,
    r.pageType,
    String(r.n),
    r.f1Ours.toFixed(3),
    r.f1Reference.toFixed(3),
    r.msOurs.toFixed(1),
    r.msReference.toFixed(1),
    (r.msOurs / r.msReference).toFixed(2),
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => (b[c] ?? '').length)));
  const line = (cells: string[]): string => cells.map((x, c) => x.padEnd(widths[c] ?? 0)).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
