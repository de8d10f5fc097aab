/**
 * Word tokens for matching text by meaning rather than spelling: lower-case words, the English stemmer (stem.ts, so
 * `descaling`, `descaled` and `descale` meet) and stop words (terms/stopwords.ts, the one list every tokenizer uses).
 * Shared by Optimize's relevance test and keyword checks and by the extractive writer. Pure and locale-independent.
 */
import { stemEnglish } from './stem.ts';
import { stopWordsFor } from './terms/stopwords.ts';

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** A word of a text: its lower-case form and its stem. */
export interface Token {
  lower: string;
  stem: string;
  stop: boolean;
}

/** The English stem of a lower-case word (`leaks`, `leaking`, `leaked` -> `leak`); see stem.ts. */
export function stemEn(word: string): string {
  return stemEnglish(word);
}

/**
 * Stop words are left out of overlap scores (but kept for phrase matching). A contraction is one when it is a
 * negation (`don't`) or its first part is one (`it's`, `you're`); a possessive of a content word (`john's`) is not.
 */
function isStop(lower: string, stop: ReadonlySet<string>, en: boolean): boolean {
  if (stop.has(lower)) return true;
  if (!en) return false;
  const apostrophe = lower.indexOf("'");
  return apostrophe > 0 && (lower.endsWith("n't") || stop.has(lower.slice(0, apostrophe)));
}

/** Tokens of a text for one language (the stemmer applies to English; stop words to English and the analyzer's). */
export function tokenize(text: string, language: string): Token[] {
  const en = language === 'en';
  const stop = stopWordsFor(language);
  const out: Token[] = [];
  for (const m of text.toLowerCase().normalize('NFC').matchAll(WORD)) {
    const lower = m[0].replace(/’/g, "'");
    out.push({ lower, stem: en ? stemEn(lower) : lower, stop: isStop(lower, stop, en) });
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
