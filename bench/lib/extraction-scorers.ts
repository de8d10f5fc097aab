/**
 * Faithful TypeScript ports of the two published extraction scorers:
 * - zyte-aeb/evaluate.py: 4-word-shingle TP/FP/FN per page, normalised per page, precision and recall averaged over
 *   pages, F1 as the harmonic mean of those averages (case-sensitive tokens).
 * - wcxb-dev/evaluate.py: bag-of-words precision/recall/F1 per page over lowercased tokens, averaged over pages.
 * Python's `\w` (re.UNICODE) is str.isalnum() or '_': Unicode letters and numbers, not combining marks.
 */

const TOKEN_RE = /[\p{L}\p{N}_]+/gu;

/** Python `re.findall(r'\w+', text)`. */
export function pyWordTokens(text: string): string[] {
  return text ? (text.match(TOKEN_RE) ?? []) : [];
}

export type TpFpFn = readonly [number, number, number];

function shingles(text: string, n: number): Map<string, number> {
  const tokens = pyWordTokens(text);
  const counts = new Map<string, number>();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last; i++) {
    const shingle = tokens.slice(i, i + n);
    if (shingle.length === 0) continue;
    // U+0000 cannot occur inside a \w token, so joining on it keeps tuples distinct.
    const key = shingle.join('\u0000');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** zyte-aeb `string_shingle_matching`: normalised TP/FP/FN over 4-word shingles. */
export function zyteShingleMatching(truth: string, pred: string, n = 4): TpFpFn {
  const t = shingles(truth, n);
  const p = shingles(pred, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const keys = new Set([...t.keys(), ...p.keys()]);
  for (const key of keys) {
    const tc = t.get(key) ?? 0;
    const pc = p.get(key) ?? 0;
    tp += Math.min(tc, pc);
    fp += Math.max(0, pc - tc);
    fn += Math.max(0, tc - pc);
  }
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [tp, fp, fn];
}

function precisionScore(tp: number, fp: number, fn: number): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

function recallScore(tp: number, fp: number, fn: number): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

function mean(values: number[]): number {
  // statistics.mean raises on no data; a NaN shows up in the table instead of crashing the run.
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** zyte-aeb `metrics_from_tp_fp_fns`. */
export function zyteMetrics(rows: readonly TpFpFn[]): { f1: number; precision: number; recall: number } {
  const precision = mean(rows.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => precisionScore(tp, fp, fn)));
  const recall = mean(rows.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => recallScore(tp, fp, fn)));
  const f1 = (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall };
}

/** wcxb-dev `tokenize`: lowercased `\w+` tokens. */
export function wcxbTokens(text: string): string[] {
  return text ? pyWordTokens(text.toLowerCase()) : [];
}

/** wcxb-dev `word_f1`: [precision, recall, f1] over token multisets. */
export function wcxbWordF1(predicted: string, reference: string): [number, number, number] {
  const pred = wcxbTokens(predicted);
  const ref = wcxbTokens(reference);
  if (ref.length === 0) return pred.length === 0 ? [1, 1, 1] : [0, 0, 0];
  if (pred.length === 0) return [0, 0, 0];
  const refCounts = new Map<string, number>();
  for (const t of ref) refCounts.set(t, (refCounts.get(t) ?? 0) + 1);
  const predCounts = new Map<string, number>();
  for (const t of pred) predCounts.set(t, (predCounts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const [t, c] of predCounts) overlap += Math.min(c, refCounts.get(t) ?? 0);
  const precision = overlap / pred.length;
  const recall = overlap / ref.length;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return [precision, recall, f1];
}

/** wcxb-dev `snippet_check`: fraction of snippets found (case-insensitive substring). */
export function wcxbSnippetRate(text: string, snippets: readonly string[]): number {
  if (snippets.length === 0) return 1;
  const lower = text.toLowerCase();
  return snippets.filter((s) => lower.includes(s.toLowerCase())).length / snippets.length;
}
