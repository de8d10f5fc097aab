/**
 * Word tokens for matching text by meaning rather than spelling: lower-case words, a light English stemmer (so
 * `descaling`, `descaled` and `descale` meet) and stop words. Shared by Optimize's relevance test and keyword checks
 * and by the extractive writer. Pure and locale-independent.
 */
import { stopWordsFor } from './terms/stopwords.ts';

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

// Function words: they carry no topic, so they are left out of overlap scores (but kept for phrase matching).
const STOP_EN = new Set(
  `a about above after again against all almost also am an and any are aren't as at be because been before being
  below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
  either else even ever every few for from further get gets got had hadn't has hasn't have haven't having he her here
  hers herself him himself his how however i if in into is isn't it it's its itself just least less let like made make
  makes many may me might more most much must my myself need needs no nor not now of off often on once one only or
  other others our ours ourselves out over own per quite rather really same several shall she should shouldn't since
  so some such than that that's the their theirs them themselves then there there's these they this those though
  through to too under until up upon us use used uses using very via was wasn't way we well were weren't what what's
  when where whether which while who whom whose why will with within without won't would wouldn't yet you you're your
  yours yourself yourselves etc vs versus`
    .split(/\s+/)
    .filter(Boolean),
);

/** A word of a text: its lower-case form and its stem. */
export interface Token {
  lower: string;
  stem: string;
  stop: boolean;
}

/** Light English suffix stripping so that inflected forms meet (`leaks`, `leaking`, `leaked` -> `leak`). */
export function stemEn(word: string): string {
  let w = word.replace(/['’]s$/, '');
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:x|ch|sh|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is|ous)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = undouble(w.slice(0, -3));
  else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) w = undouble(w.slice(0, -2));
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** Tokens of a text for one language (the stemmer applies to English; stop words to English and the analyzer's). */
export function tokenize(text: string, language: string): Token[] {
  const en = language === 'en';
  const stop = en ? STOP_EN : stopWordsFor(language);
  const out: Token[] = [];
  for (const m of text.toLowerCase().normalize('NFC').matchAll(WORD)) {
    const lower = m[0].replace(/’/g, "'");
    out.push({ lower, stem: en ? stemEn(lower) : lower, stop: stop.has(lower) });
  }
  return out;
}

/** Stems of the content words of a text, de-duplicated, in first-seen order. */
export function contentStems(text: string, language: string): string[] {
  const seen = new Set<string>();
  for (const t of tokenize(text, language)) if (!t.stop && !seen.has(t.stem)) seen.add(t.stem);
  return [...seen];
}

/** True when `needle` occurs as a contiguous run of `haystack` (word sequences). */
export function runIn(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  for (let i = 0; i + needle.length <= haystack.length; i += 1) {
    let k = 0;
    while (k < needle.length && haystack[i + k] === needle[k]) k += 1;
    if (k === needle.length) return true;
  }
  return false;
}
