/** Plain-language text statistics for the readability checks (documented in docs/scoring.md). */
import { primaryLanguage } from '../terms/document.ts';

export interface TextStats {
  sentences: number;
  words: number;
  syllables: number;
  avgSentenceWords: number;
  /** Flesch reading ease (English formula); null for other languages. */
  fleschReadingEase: number | null;
}

const WORD_RE = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/** English syllables by vowel groups, with a silent final e; at least one per word. */
export function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (!w) return 1;
  if (w.length <= 3) return 1;
  const trimmed = w.replace(/(?:[^laeiouy]es|[^laeiouy]ed|[^laeiouy]e)$/, '').replace(/^y/, '');
  const groups = trimmed.match(/[aeiouy]{1,2}/g);
  return Math.max(1, groups ? groups.length : 1);
}

/** Sentence, word and syllable counts of a text; sentences end at . ! ? or a line break. */
export function textStats(text: string, language: string): TextStats {
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => (s.match(WORD_RE) ?? []).length > 0);
  const words = text.match(WORD_RE) ?? [];
  // By primary subtag: the default language is `en-US`, and every English tag gets the English formula.
  const english = primaryLanguage(language) === 'en';
  const syl = english ? words.reduce((a, w) => a + syllables(w), 0) : 0;
  const n = Math.max(1, sentences.length);
  const wc = Math.max(1, words.length);
  return {
    sentences: sentences.length,
    words: words.length,
    syllables: syl,
    avgSentenceWords: words.length / n,
    fleschReadingEase: english && words.length > 0 ? 206.835 - 1.015 * (words.length / n) - 84.6 * (syl / wc) : null,
  };
}
