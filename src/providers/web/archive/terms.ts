/**
 * Deterministic text to search terms: lower-case, accents folded, stop words dropped (the English list of
 * terms/stopwords.ts, which the Optimize analysis uses too) and the English Porter2 stemmer (stem.ts) so "bakes",
 * "baking" and "baked" meet "bake". The same function serves documents and queries, which is all BM25 needs.
 */
import { stemEnglish } from '../../../engine/analysis/stem.ts';
import { EN_CONTRACTION_PIECES, stopWordsFor } from '../../../engine/analysis/terms/stopwords.ts';

const STOP_WORDS = stopWordsFor('en');

/** The search stem of a lower-case, accent-folded word. */
export function stem(word: string): string {
  return stemEnglish(word);
}

/** A terms function that remembers each word's stem: indexing a corpus repeats the same words many times. */
export function createTermizer(): (text: string) => string[] {
  const stems = new Map<string, string | null>();
  return (text) => {
    const out: string[] = [];
    const folded = text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '');
    for (const match of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = match[0];
      let term = stems.get(word);
      if (term === undefined) {
        const dropped =
          STOP_WORDS.has(word) || EN_CONTRACTION_PIECES.has(word) || (word.length === 1 && !/\d/.test(word));
        term = dropped ? null : stem(word);
        stems.set(word, term);
      }
      if (term !== null) out.push(term);
    }
    return out;
  };
}

/** The search terms of a text, in order, with repeats. */
export function terms(text: string): string[] {
  return createTermizer()(text);
}

/** Splits text into sentences at end punctuation followed by a capital or digit, and at line breaks. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n+/)) {
    for (const piece of block.split(/(?<=[.!?])\s+(?=["'“(\p{Lu}\p{N}])/u)) {
      const s = piece.replace(/\s+/g, ' ').trim();
      if (s !== '') out.push(s);
    }
  }
  return out;
}
