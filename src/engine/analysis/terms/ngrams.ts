/**
 * 1-, 2- and 3-word terms. An n-gram is a run of consecutive content words (tokens with a lemma key): a stop word,
 * number, symbol, punctuation mark, sentence or line boundary ends the run, so `espresso machines, grinders` gives
 * `espresso machine` but never `machine grinder`. The one exception is a hyphen written without spaces
 * (`running-shoe`), which joins like a space and shows as a hyphen in the display form.
 */
import type { LexToken } from './tokens.ts';
import { compareStrings, isHyphen } from './tokens.ts';

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
  const keys: string[] = [];
  const surfaces: string[] = [];
  const joiners: string[] = [];
  let joiner = ' ';
  const reset = (): void => {
    keys.length = 0;
    surfaces.length = 0;
    joiners.length = 0;
    joiner = ' ';
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i];
    if (t === undefined) continue;
    if (t.breakBefore) reset();
    if (t.key === '') {
      const next = tokens[i + 1];
      const bridges =
        t.kind === 'punct' &&
        isHyphen(t.surface) &&
        !t.spaceBefore &&
        keys.length > 0 &&
        next !== undefined &&
        !next.spaceBefore &&
        !next.breakBefore &&
        next.key !== '';
      if (bridges) joiner = '-';
      else reset();
      continue;
    }
    keys.push(t.key);
    surfaces.push(displayOf(t));
    joiners.push(keys.length === 1 ? '' : joiner);
    joiner = ' ';
    if (keys.length > MAX_N) {
      keys.shift();
      surfaces.shift();
      joiners.shift();
      joiners[0] = '';
    }
    for (let n = 1; n <= keys.length; n += 1) {
      const from = keys.length - n;
      const key = keys.slice(from).join(' ');
      let acc = table.get(key);
      if (!acc) {
        acc = { n: n as 1 | 2 | 3, count: 0, headingCount: 0, titleCount: 0, forms: new Map(), fallbackForms: new Map() };
        table.set(key, acc);
      }
      acc[field] += 1;
      let form = surfaces[from] ?? '';
      for (let k = from + 1; k < keys.length; k += 1) form += (joiners[k] ?? ' ') + (surfaces[k] ?? '');
      const forms = field === 'count' ? acc.forms : acc.fallbackForms;
      forms.set(form, (forms.get(form) ?? 0) + 1);
    }
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
