/**
 * Page-type accuracy for the extraction bench: the shipped classifier's accuracy per type and its confusion matrix,
 * and, because its weights were fitted on this very development set, a 5-fold cross-validated accuracy (refit on
 * four fifths, judged on the fifth) which is the honest figure for pages it has not seen. `--fit-page-types` writes
 * the weights fitted on all pages to src/engine/analysis/page-type/weights.ts.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument } from '../../src/engine/analysis/extract/dom.ts';
import { extract } from '../../src/engine/analysis/extract/index.ts';
import { readMetadata } from '../../src/engine/analysis/extract/metadata.ts';
import { buildTree } from '../../src/engine/analysis/extract/tree.ts';
import { emptyControls, noteControl, readTreeSignals } from '../../src/engine/analysis/page-type/signals.ts';
import {
  FEATURE_NAMES,
  PAGE_TYPES,
  type SoftmaxModel,
  fitSoftmax,
  predict,
} from '../../src/engine/analysis/page-type/index.ts';

/** The fit the shipped weights use; cross-validation refits with the same. */
export const FIT = { l2: 0.03, iterations: 300, rate: 0.5 } as const;

export interface TypeAccuracy {
  pageType: string;
  n: number;
  accuracy: number;
  cvAccuracy: number;
}

/** Fraction of rows where predicted equals truth, per type and over all ('ALL' last). */
function accuracyByType(truth: readonly string[], predicted: readonly string[]): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  const add = (k: string, ok: boolean): void => {
    const v = out.get(k) ?? [0, 0];
    out.set(k, [v[0] + (ok ? 1 : 0), v[1] + 1]);
  };
  truth.forEach((t, i) => {
    add(t, predicted[i] === t);
    add('ALL', predicted[i] === t);
  });
  return out;
}

/** The class a model gives the highest probability. */
export function argmax(model: SoftmaxModel, x: readonly number[]): string {
  const p = predict(model, x);
  return model.classes[p.indexOf(Math.max(...p))] ?? '';
}

/**
 * Predictions of a k-fold cross-validation: each page is judged by a model fitted without it. Folds are dealt per
 * type in order (stratified), so every fold holds each type in proportion.
 */
export function crossValidatedPredictions(
  features: readonly (readonly number[])[],
  truth: readonly string[],
  folds = 5,
): string[] {
  const fold = new Array<number>(truth.length);
  const seen = new Map<string, number>();
  truth.forEach((t, i) => {
    const k = seen.get(t) ?? 0;
    fold[i] = k % folds;
    seen.set(t, k + 1);
  });
  const out = new Array<string>(truth.length).fill('');
  for (let f = 0; f < folds; f++) {
    const train = truth.map((_, i) => i).filter((i) => fold[i] !== f);
    const model = fitSoftmax(
      train.map((i) => features[i] ?? []),
      train.map((i) => truth[i] ?? ''),
      PAGE_TYPES,
      FEATURE_NAMES,
      FIT,
    );
    truth.forEach((_, i) => {
      if (fold[i] === f) out[i] = argmax(model, features[i] ?? []);
    });
  }
  return out;
}

/** Accuracy per type of the shipped model and of cross-validation. */
export function pageTypeAccuracy(
  truth: readonly string[],
  predicted: readonly string[],
  cvPredicted: readonly string[],
): TypeAccuracy[] {
  const shipped = accuracyByType(truth, predicted);
  const cv = accuracyByType(truth, cvPredicted);
  const keys = [...shipped.keys()].filter((k) => k !== 'ALL').sort();
  return [...keys, 'ALL'].map((k) => {
    const [ok, n] = shipped.get(k) ?? [0, 0];
    const [cvOk] = cv.get(k) ?? [0, 0];
    return { pageType: k, n, accuracy: n ? ok / n : Number.NaN, cvAccuracy: n ? cvOk / n : Number.NaN };
  });
}

/** Fixed-width table: type, N, accuracy of the shipped weights, 5-fold CV accuracy. */
export function formatAccuracy(rows: readonly TypeAccuracy[]): string {
  const head = ['page type', 'N', 'accuracy', 'accuracy 5-fold CV'];
  const body = rows.map((r) => [r.pageType, String(r.n), r.accuracy.toFixed(3), r.cvAccuracy.toFixed(3)]);
  return fixedWidth(head, body);
}

/** Confusion matrix: a row per true type, a column per predicted type. */
export function formatConfusion(truth: readonly string[], predicted: readonly string[], title: string): string {
  const types = [...PAGE_TYPES];
  const head = [title, ...types.map((t) => t.slice(0, 6))];
  const body = types.map((t) => [
    t,
    ...types.map((p) => String(truth.filter((x, i) => x === t && predicted[i] === p).length)),
  ]);
  return fixedWidth(head, body);
}

function fixedWidth(head: readonly string[], body: readonly string[][]): string {
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => (b[c] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((x, c) => x.padEnd(widths[c] ?? 0)).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

const WEIGHTS_PATH = fileURLToPath(new URL('../../src/engine/analysis/page-type/weights.ts', import.meta.url));

/** Fits on every page and writes the weights module; returns its path. */
export function writePageTypeWeights(
  features: readonly (readonly number[])[],
  truth: readonly string[],
  source: string,
): string {
  const model = fitSoftmax(features, truth, PAGE_TYPES, FEATURE_NAMES, FIT);
  writeFileSync(WEIGHTS_PATH, modelSource(model, `${truth.length} pages of ${source}`));
  return WEIGHTS_PATH;
}

const r4 = (v: number): number => Math.round(v * 10_000) / 10_000;

/** The weights module's source: one line per feature, so a diff of a refit reads feature by feature. */
export function modelSource(model: SoftmaxModel, fittedOn: string): string {
  const rows = model.features.map(
    (f, i) =>
      `    [${JSON.stringify(f)}, ${r4(model.mean[i] ?? 0)}, ${r4(model.scale[i] ?? 1)}, [${model.classes.map((_, c) => r4(model.weights[c]?.[i] ?? 0)).join(', ')}]],`,
  );
  return `/**
 * Fitted weights of the page-type model (softmax.ts), written by \`npm run bench -- extraction --fit-page-types\`
 * (bench/lib/extraction-page-types.ts) from ${fittedOn}, with l2 ${FIT.l2}, ${FIT.iterations} iterations. Do not edit by
 * hand: refit. Each row is [feature, mean, scale, weight per class in \`classes\` order]; a positive weight means more
 * of the feature (in standard deviations) makes that type likelier.
 */
import type { SoftmaxModel } from './softmax.ts';

const classes = ${JSON.stringify(model.classes)};
const bias = [${model.bias.map(r4).join(', ')}];
const rows: [string, number, number, number[]][] = [
${rows.join('\n')}
];

export const PAGE_TYPE_MODEL: SoftmaxModel = {
  classes,
  features: rows.map((r) => r[0]),
  mean: rows.map((r) => r[1]),
  scale: rows.map((r) => r[2]),
  weights: classes.map((_, c) => rows.map((r) => r[3][c] ?? 0)),
  bias,
};
`;
}

/**
 * What reading the page signals costs inside extraction, on one thread: the tree pass (readTreeSignals) and the
 * form-control counting added to the metadata walk, timed on a fresh parse of each page, against a whole extract().
 */
export function signalCost(pages: readonly { html: string; url: string }[]): string {
  let msExtract = 0;
  let msTree = 0;
  let msControls = 0;
  for (const [round, p] of [...pages.map((p) => [0, p] as const), ...pages.map((p) => [1, p] as const)]) {
    let t = performance.now();
    extract(p.html, { url: p.url });
    const dExtract = performance.now() - t;
    const doc = parseDocument(p.html);
    if (!doc) continue;
    t = performance.now();
    readMetadata(doc);
    const dPlain = performance.now() - t;
    const controls = emptyControls();
    t = performance.now();
    readMetadata(doc, (el, tag) => {
      if (tag === 'button' || tag === 'input' || tag === 'textarea') noteControl(el, tag, controls);
    });
    const dControls = performance.now() - t - dPlain;
    const { nodes } = buildTree(doc);
    t = performance.now();
    readTreeSignals(nodes, {});
    const dTree = performance.now() - t;
    if (round === 0) continue; // the first round warms up
    msExtract += dExtract;
    msTree += dTree;
    msControls += Math.max(0, dControls);
  }
  const n = Math.max(1, pages.length);
  const share = (100 * (msTree + msControls)) / Math.max(1e-9, msExtract);
  return `page signals on one thread: ${(msTree / n).toFixed(2)} ms tree pass + ${(msControls / n).toFixed(2)} ms form controls per page, ${share.toFixed(1)}% of extract() (${(msExtract / n).toFixed(1)} ms/page, ${pages.length} pages)`;
}
