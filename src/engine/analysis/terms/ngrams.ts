/**
 * 1-, 2- and 3-word terms. An n-gram is a run of consecutive content words (tokens with a lemma key) that ends in a
 * word that can head a noun phrase (LexToken.head), so adjectives and `-ing` forms count only before a noun: a stop word,
 * number, symbol, punctuation mark, sentence or line boundary ends the run, so `espresso machines, grinders` gives
 * `espresso machine` but never `machine grinder`. The one exception is a hyphen written without spaces
 * (`running-shoe`), which joins like a space and shows as a hyphen in the display form. A unit after a number, or a
 * word glued to one (`58 mm portafilter`, `9-bar OPV spring`, `3-way valve`), belongs to the quantity: it starts no
 * term, so the terms are `portafilter`, `OPV spring` and `valve`, never `mm portafilter` or `bar OPV spring`.
 */
import type { LexToken } from './tokens.ts';
import { compareStrings, isCjk, isHyphen } from './tokens.ts';
import { UNITS } from './units.ts';

export const MAX_N = 3;

export interface TermAccumulator {
  n: 1 | 2 | 3;
  count: number;
  headingCount: number;
  titleCount: number;
  /** Surface form -> occurrences in the body. */
  forms: Map<string, number>;
  /** Forms seen in headings and the title, used only when the body never has the term. */
  fallbackForms: Map<string, number>;
}

export type TermTable = Map<string, TermAccumulator>;

export type TermField = 'count' | 'headingCount' | 'titleCount';

/** Adds every n-gram of `tokens` to `table` under `field`; `displayOf` gives a token's display surface. */
export function countNgrams(
  tokens: readonly LexToken[],
  table: TermTable,
  field: TermField,
  displayOf: (t: LexToken) => string,
): void {
  // The last three keys and display surfaces, and the joiner written before each (' ' or '-').
  let k1 = '';
  let k2 = '';
  let k3 = '';
  let s1 = '';
  let s2 = '';
  let s3 = '';
  let j2 = ' ';
  let j3 = ' ';
  // Key joiners: CJK words written without a space stay glued (`咖啡` + `机` -> `咖啡机`).
  let g2 = ' ';
  let g3 = ' ';
  let length = 0;
  let joiner = ' ';
  // The token before is a number, or a number and a hyphen written without spaces (`9-`).
  let quantity = false;
  const add = (key: string, n: 1 | 2 | 3, form: string): void => {
    let acc = table.get(key);
    if (!acc) {
      acc = { n, count: 0, headingCount: 0, titleCount: 0, forms: new Map(), fallbackForms: new Map() };
      table.set(key, acc);
    }
    acc[field] += 1;
    const forms = field === 'count' ? acc.forms : acc.fallbackForms;
    forms.set(form, (forms.get(form) ?? 0) + 1);
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i];
    if (t === undefined) continue;
    if (t.breakBefore) length = 0;
    if (t.key === '') {
      const next = tokens[i + 1];
      const bridges =
        t.kind === 'punct' &&
        isHyphen(t.surface) &&
        !t.spaceBefore &&
        length > 0 &&
        next !== undefined &&
        !next.spaceBefore &&
        !next.breakBefore &&
        next.key !== '';
      if (bridges) joiner = '-';
      else length = 0;
      quantity =
        t.kind === 'number' || t.pos === 'NUM' || (quantity && isHyphen(t.surface) && !t.spaceBefore && !t.breakBefore);
      continue;
    }
    if (quantity && !t.breakBefore && (!t.spaceBefore || UNITS.has(t.norm))) {
      quantity = false;
      length = 0;
      continue;
    }
    quantity = false;
    if (length === 0) joiner = ' ';
    // Shift the window: the old newest becomes second, the old second becomes oldest.
    const glue =
      !t.spaceBefore && joiner === ' ' && length > 0 && isCjk(t.key.charAt(0)) && isCjk(k1.slice(-1)) ? '' : ' ';
    k3 = k2;
    s3 = s2;
    j3 = j2;
    g3 = g2;
    k2 = k1;
    s2 = s1;
    j2 = glue === '' ? '' : joiner;
    g2 = glue;
    k1 = t.key;
    s1 = displayOf(t);
    joiner = ' ';
    length = Math.min(MAX_N, length + 1);
    // Only a noun phrase is a term: the run so far ends in its head noun (`espresso machine`, not `espresso`'s
    // adjective before it alone or `combined`).
    if (!t.head) continue;
    add(k1, 1, s1);
    if (length >= 2) add(k2 + g2 + k1, 2, s2 + j2 + s1);
    if (length >= 3) add(k3 + g3 + k2 + g2 + k1, 3, s3 + j3 + s2 + j2 + s1);
  }
}

/** Most frequent form; ties go to the form with fewer capitals, then to code-unit order. */
export function pickDisplay(forms: ReadonlyMap<string, number>): string | null {
  let best: string | null = null;
  let bestCount = -1;
  let bestCaps = 0;
  for (const [form, count] of forms) {
    const caps = countCapitals(form);
    if (
      best === null ||
      count > bestCount ||
      (count === bestCount && (caps < bestCaps || (caps === bestCaps && compareStrings(form, best) < 0)))
    ) {
      best = form;
      bestCount = count;
      bestCaps = caps;
    }
  }
  return best;
}

function countCapitals(s: string): number {
  let n = 0;
  for (const ch of s) if (ch !== ch.toLowerCase()) n += 1;
  return n;
}
