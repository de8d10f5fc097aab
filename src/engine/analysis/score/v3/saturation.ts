/**
 * Saturation (score version 3): the credit a text earns for using a term, BM25-style.
 *
 * - Uses are weighted by where they stand: 1 in a well-formed sentence, 0.5 in a heading, 0.25 in a fragment (a
 *   list item or line that is not a sentence, a table cell). Stuffing a term into a list of bare terms earns little.
 * - The weighted uses `u`, over the uses the competitors' median rate asks of a text this long (`target`, at least
 *   1), saturate: credit = min(1, (1 + K) * x / (x + K)) with x = u / target and K = 0.5. Half the target earns 0.75,
 *   a quarter 0.5, the target 1, and uses beyond it nothing more.
 * - Above the competitors' highest rate (raw uses per 1,000 words, every placement), the credit falls linearly to 0
 *   at twice that rate: repeating a term past what any ranking page does costs credit.
 * Terms match by word stems in order (`descaling kettles` meets `descale kettle`), case-insensitive.
 */
import { tokenize } from '../../words.ts';
import { analyzeText, type AnalyzedText } from './text.ts';

export const K = 0.5;
export const PLACEMENT_WEIGHT = { sentence: 1, heading: 0.5, fragment: 0.25 } as const;

export interface TermUses {
  sentence: number;
  heading: number;
  fragment: number;
}

export interface TermTarget {
  term: string;
  /** The term's weight in the score (its importance); 1 by default. */
  weight?: number;
  /** The competitors' median uses per 1,000 words. */
  medianRate: number;
  /** The competitors' highest uses per 1,000 words. */
  maxRate: number;
}

export interface TermCredit {
  term: string;
  uses: TermUses;
  /** Weighted uses. */
  effectiveUses: number;
  /** Uses the competitors' median rate asks of this text (at least 1). */
  targetUses: number;
  /** Raw uses per 1,000 words. */
  rate: number;
  /** 0-1 before the overuse penalty. */
  saturated: number;
  /** 0-1: 1 up to the competitors' highest rate, 0 at twice it. */
  overuseFactor: number;
  credit: number;
}

export interface SaturationResult {
  /** Weighted mean credit of the terms, 0-100 (null without terms). */
  score: number | null;
  words: number;
  terms: TermCredit[];
}

const stems = (text: string) => tokenize(text, 'en').map((t) => t.stem);

function occurrences(hay: readonly string[], needle: readonly string[]): number {
  if (!needle.length) return 0;
  let n = 0;
  for (let i = 0; i + needle.length <= hay.length; i += 1) {
    let k = 0;
    while (k < needle.length && hay[i + k] === needle[k]) k += 1;
    if (k === needle.length) {
      n += 1;
      i += needle.length - 1;
    }
  }
  return n;
}

/** Stemmed text units of an analysed text, by placement (built once, reused for every term). */
export interface Placements {
  sentence: string[][];
  heading: string[][];
  fragment: string[][];
  words: number;
}

export function placements(a: AnalyzedText): Placements {
  return {
    sentence: a.sentences.filter((s) => s.wellFormed).map((s) => stems(s.text)),
    fragment: [
      ...a.sentences.filter((s) => !s.wellFormed).map((s) => stems(s.text)),
      ...a.blocks.filter((b) => b.kind === 'table').map((b) => stems(b.text)),
    ],
    heading: a.blocks.filter((b) => b.kind === 'heading').map((b) => stems(b.text)),
    words: a.words,
  };
}

/** Uses of a term by placement. */
export function termUses(p: Placements, term: string): TermUses {
  const t = stems(term);
  const count = (units: string[][]) => units.reduce((n, u) => n + occurrences(u, t), 0);
  return { sentence: count(p.sentence), heading: count(p.heading), fragment: count(p.fragment) };
}

/** The saturating credit of one term's uses in a text of `words` words. */
export function termCredit(uses: TermUses, words: number, target: TermTarget): TermCredit {
  const effectiveUses =
    uses.sentence * PLACEMENT_WEIGHT.sentence +
    uses.heading * PLACEMENT_WEIGHT.heading +
    uses.fragment * PLACEMENT_WEIGHT.fragment;
  const targetUses = Math.max(1, (target.medianRate * words) / 1000);
  const x = effectiveUses / targetUses;
  const saturated = Math.min(1, ((1 + K) * x) / (x + K));
  const raw = uses.sentence + uses.heading + uses.fragment;
  const rate = words ? (raw * 1000) / words : 0;
  const max = target.maxRate;
  const overuseFactor = max > 0 && rate > max ? Math.max(0, 1 - (rate - max) / max) : 1;
  return {
    term: target.term,
    uses,
    effectiveUses,
    targetUses: Math.round(targetUses * 100) / 100,
    rate: Math.round(rate * 100) / 100,
    saturated: Math.round(saturated * 1000) / 1000,
    overuseFactor: Math.round(overuseFactor * 1000) / 1000,
    credit: Math.round(saturated * overuseFactor * 1000) / 1000,
  };
}

/** Per-1,000-word rates of a term over competitor texts: median and highest (for `TermTarget`). */
export function competitorRates(
  competitors: readonly Placements[],
  term: string,
): { medianRate: number; maxRate: number } {
  const rates = competitors
    .map((p) => {
      const u = termUses(p, term);
      return p.words ? ((u.sentence + u.heading + u.fragment) * 1000) / p.words : 0;
    })
    .sort((a, b) => a - b);
  if (!rates.length) return { medianRate: 0, maxRate: 0 };
  const mid = rates.length >> 1;
  const medianRate = rates.length % 2 ? rates[mid]! : (rates[mid - 1]! + rates[mid]!) / 2;
  return { medianRate, maxRate: rates[rates.length - 1]! };
}

/** Every term's credit in a text and their weighted mean. */
export function saturation(
  input: string | AnalyzedText | Placements,
  targets: readonly TermTarget[],
): SaturationResult {
  const p = typeof input === 'string' ? placements(analyzeText(input)) : 'blocks' in input ? placements(input) : input;
  const terms = targets.map((t) => termCredit(termUses(p, t.term), p.words, t));
  let total = 0;
  let weight = 0;
  targets.forEach((t, i) => {
    const w = t.weight ?? 1;
    total += w * terms[i]!.credit;
    weight += w;
  });
  return { score: weight ? Math.round((total / weight) * 1000) / 10 : null, words: p.words, terms };
}
