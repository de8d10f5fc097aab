/**
 * `npm run bench -- page-types [--dataset DIR] [--sweep] [--errors] [--fit] [--l2 X]`: the page-type classifier
 * alone, without the extractor comparison of the extraction bench. It extracts every page of a WCXB-layout folder
 * once (default wcxb-dev), then prints accuracy per type of the shipped weights, 5-fold cross-validated accuracy
 * with folds stratified by type (the extraction bench's figure) and with folds grouped by site (no site is in both
 * the training and the judged fold, which is how a held-out set of other sites sees the model), and the time of
 * classifyPage per page. `--sweep` cross-validates a range of L2 penalties, `--errors` lists the pages the
 * site-grouped CV gets wrong, `--fit` writes the weights fitted on every page (with the extraction bench's fit).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { datasetsRoot, loadWcxb } from './lib/extraction-datasets.ts';
import {
  FIT,
  formatAccuracy,
  formatConfusion,
  pageTypeAccuracy,
  writePageTypeWeights,
  argmax,
} from './lib/extraction-page-types.ts';
import { extract } from '../src/engine/analysis/extract/index.ts';
import type { Extraction } from '../src/engine/analysis/extract/types.ts';
import {
  FEATURE_NAMES,
  PAGE_TYPES,
  classifyPage,
  fitSoftmax,
  pageFeatures,
  predict,
} from '../src/engine/analysis/page-type/index.ts';

interface Args {
  dataset: string;
  sweep: boolean;
  errors: boolean;
  fit: boolean;
  l2: number;
  show: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const out: Args = {
    dataset: join(datasetsRoot(), 'wcxb-dev'),
    sweep: false,
    errors: false,
    fit: false,
    l2: FIT.l2,
    show: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dataset') out.dataset = resolve(argv[++i] ?? '');
    else if (a === '--sweep') out.sweep = true;
    else if (a === '--errors') out.errors = true;
    else if (a === '--fit') out.fit = true;
    else if (a === '--l2') out.l2 = Number(argv[++i]);
    else if (a === '--show') out.show.push(...(argv[++i] ?? '').split(','));
  }
  return out;
}

interface Page {
  id: string;
  url: string;
  site: string;
  title: string;
  truth: string;
  predicted: string;
  features: number[];
  usClassify: number;
  signals: Record<string, number>;
  /** The features of the same extraction stripped of its page signals (as an older stored record would be). */
  bareFeatures: number[];
}

/** The site of a page: metadata.json's domain when the folder has one, else the URL's host without www. */
function sitesOf(dir: string): Record<string, string> {
  try {
    const meta = JSON.parse(readFileSync(join(dir, 'metadata.json'), 'utf8')) as {
      files?: Record<string, { domain?: string }>;
    };
    return Object.fromEntries(Object.entries(meta.files ?? {}).map(([id, f]) => [id, f.domain ?? '']));
  } catch {
    return {};
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

const SRC = fileURLToPath(new URL('../src/engine/analysis/', import.meta.url));

/**
 * A key for the extraction code as it is now (extract/ and the page-type signal readers): extractions cached under it are
 * what extract() would return, so a run that only changes features or the fit need not extract again.
 */
function extractionCodeKey(dir: string): string {
  const h = createHash('sha1').update(dir);
  const files = readdirSync(join(SRC, 'extract'))
    .filter((f) => f.endsWith('.ts'))
    .sort();
  for (const f of files) h.update(readFileSync(join(SRC, 'extract', f)));
  for (const f of ['signals.ts', 'tree-signals.ts', 'url-signals.ts', 'controls.ts'])
    h.update(readFileSync(join(SRC, 'page-type', f)));
  return h.digest('hex').slice(0, 16);
}

/** Every page's extraction, from the cache in the temp folder when the extraction code is unchanged. */
function extractAll(dir: string, pages: readonly { html: string; url: string }[]): Extraction[] {
  const cache = join(tmpdir(), `page-types-${extractionCodeKey(dir)}.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as Extraction[];
  const out = pages.map((p) => extract(p.html, { url: p.url }));
  writeFileSync(cache, JSON.stringify(out));
  return out;
}

/** Extracts and classifies every page; the classify time is taken over ten repeats of classifyPage. */
function loadPages(dir: string): Page[] {
  const sites = sitesOf(dir);
  const pages = loadWcxb(dir);
  const extractions = extractAll(dir, pages);
  return pages.map((p, i) => {
    const e = extractions[i] as Extraction;
    classifyPage(e);
    const t = performance.now();
    let predicted = '';
    for (let r = 0; r < 10; r++) predicted = classifyPage(e).type;
    const usClassify = ((performance.now() - t) * 1000) / 10;
    return {
      id: p.id,
      url: p.url,
      site: sites[p.id] || hostOf(p.url) || p.id,
      title: (e.h1 || e.title).slice(0, 70),
      truth: p.pageType,
      predicted,
      features: pageFeatures(e),
      bareFeatures: pageFeatures({ ...e, pageSignals: undefined }),
      usClassify,
      signals: e.pageSignals ?? {},
    };
  });
}

/** Folds dealt per type in order (the extraction bench's stratified folds). */
export function stratifiedFolds(truth: readonly string[], folds = 5): number[] {
  const seen = new Map<string, number>();
  return truth.map((t) => {
    const k = seen.get(t) ?? 0;
    seen.set(t, k + 1);
    return k % folds;
  });
}

/**
 * Folds grouped by site: every page of a site lands in the fold its site's first page was dealt to, and sites are
 * dealt per type in order, so folds stay near-stratified while no site is on both sides of a split.
 */
export function siteFolds(truth: readonly string[], sites: readonly string[], folds = 5): number[] {
  const seen = new Map<string, number>();
  const siteFold = new Map<string, number>();
  return truth.map((t, i) => {
    const site = sites[i] ?? String(i);
    const known = siteFold.get(site);
    if (known !== undefined) return known;
    const k = seen.get(t) ?? 0;
    seen.set(t, k + 1);
    siteFold.set(site, k % folds);
    return k % folds;
  });
}

/** Each page judged by a model fitted on the other folds. */
export function crossValidate(
  features: readonly (readonly number[])[],
  truth: readonly string[],
  fold: readonly number[],
  l2: number,
  judged: readonly (readonly number[])[] = features,
): string[] {
  const out = new Array<string>(truth.length).fill('');
  const k = Math.max(...fold) + 1;
  for (let f = 0; f < k; f++) {
    const train = truth.map((_, i) => i).filter((i) => fold[i] !== f);
    const model = fitSoftmax(
      train.map((i) => features[i] ?? []),
      train.map((i) => truth[i] ?? ''),
      PAGE_TYPES,
      FEATURE_NAMES,
      { ...FIT, l2 },
    );
    truth.forEach((_, i) => {
      if (fold[i] === f) out[i] = argmax(model, judged[i] ?? []);
    });
  }
  return out;
}

const accuracy = (truth: readonly string[], predicted: readonly string[]): number =>
  truth.filter((t, i) => predicted[i] === t).length / Math.max(1, truth.length);

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}

export async function run(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  const t0 = performance.now();
  const pages = loadPages(args.dataset);
  log(`${pages.length} pages extracted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const truth = pages.map((p) => p.truth);
  // DROP=name,name zeroes features for an experiment (a constant column gets no weight).
  const drop = new Set((process.env.DROP ?? '').split(',').filter(Boolean));
  const features = pages.map((p) => p.features.map((v, j) => (drop.has(FEATURE_NAMES[j] ?? '') ? 0 : v)));
  const sites = pages.map((p) => p.site);
  const strat = stratifiedFolds(truth);
  const grouped = siteFolds(truth, sites);
  if (args.sweep) {
    for (const l2 of (process.env.L2S ?? '0.01,0.03,0.1,0.3,1').split(',').map(Number)) {
      const a = accuracy(truth, crossValidate(features, truth, strat, l2));
      const b = accuracy(truth, crossValidate(features, truth, grouped, l2));
      log(`l2 ${l2}: 5-fold CV ${a.toFixed(3)}, by site ${b.toFixed(3)}`);
    }
  }
  const cv = crossValidate(features, truth, strat, args.l2);
  const cvSite = crossValidate(features, truth, grouped, args.l2);
  const rows = pageTypeAccuracy(truth, cv, cvSite);
  log(`5-fold CV (l2 ${args.l2}): stratified | grouped by site`);
  log(formatAccuracy(rows).replace('accuracy 5-fold CV', 'by site').replace('accuracy', 'stratified'));
  log(formatConfusion(truth, cvSite, 'by site: true \\ pred.'));
  if (args.errors) {
    pages.forEach((p, i) => {
      if (cvSite[i] !== p.truth) log(`${p.id} ${p.truth} -> ${cvSite[i]}  ${p.url}  | ${p.title}`);
    });
  }
  const shipped = accuracy(
    truth,
    pages.map((p) => p.predicted),
  );
  const bare = accuracy(
    truth,
    crossValidate(
      features,
      truth,
      grouped,
      args.l2,
      pages.map((p) => p.bareFeatures),
    ),
  );
  log(`without page signals (stand-ins from the extraction), by site: ${bare.toFixed(3)}`);
  const us = pages.reduce((a, p) => a + p.usClassify, 0) / Math.max(1, pages.length);
  const all = rows[rows.length - 1];
  log(
    `page types: shipped weights ${shipped.toFixed(3)}, 5-fold CV ${all?.accuracy.toFixed(3)}, by site ${all?.cvAccuracy.toFixed(3)}; classifyPage ${us.toFixed(1)} µs/page`,
  );
  for (const id of args.show)
    showPage(
      pages.find((p) => p.id === id),
      features,
      truth,
      args.l2,
    );
  if (args.fit) {
    const path = writePageTypeWeights(features, truth, 'wcxb-dev');
    log(`weights fitted on ${pages.length} pages: ${path}`);
  }
}

/**
 * One page's signals and the features that moved it most, in a model fitted without its site: what to look at when
 * a page is misjudged.
 */
function showPage(page: Page | undefined, features: readonly number[][], truth: readonly string[], l2: number): void {
  if (!page) return;
  const keep = features.map((_, i) => i).filter((i) => truth[i] !== undefined && features[i] !== page.features);
  const model = fitSoftmax(
    keep.map((i) => features[i] ?? []),
    keep.map((i) => truth[i] ?? ''),
    PAGE_TYPES,
    FEATURE_NAMES,
    { ...FIT, l2 },
  );
  const p = predict(model, page.features);
  log(`\n${page.id} ${page.truth} ${page.url} | ${page.title}`);
  log(model.classes.map((c, i) => `${c} ${(p[i] ?? 0).toFixed(2)}`).join(', '));
  log(
    Object.entries(page.signals)
      .filter(([, v]) => v !== 0)
      .map(([k, v]) => `${k}=${Math.round(v * 100) / 100}`)
      .join(' '),
  );
  for (const c of [page.truth, model.classes[p.indexOf(Math.max(...p))] ?? '']) {
    const ci = model.classes.indexOf(c);
    const terms = FEATURE_NAMES.map((f, j) => {
      const zj = ((page.features[j] ?? 0) - (model.mean[j] ?? 0)) / (model.scale[j] || 1);
      return [f, zj * (model.weights[ci]?.[j] ?? 0), page.features[j] ?? 0] as const;
    }).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
    log(
      `  ${c}: ${terms
        .slice(0, 12)
        .map(([f, t, v]) => `${f}(${Math.round(v * 100) / 100}) ${t.toFixed(2)}`)
        .join(', ')}`,
    );
  }
}
