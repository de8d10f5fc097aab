/**
 * The snippet of a search hit: the sentence of the page's main text that best matches the query (rarer terms
 * count more), cut to 200 characters around its first query term.
 */
import { cleanText } from '../../../text-hygiene.ts';
import { createTermizer, sentences, terms } from './terms.ts';

const SNIPPET_MAX = 200;

/** Adjacent term pairs, keyed with a space (no single term contains one). */
export function pairs(list: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < list.length; i++) out.push(`${list[i - 1]} ${list[i]}`);
  return out;
}

/** Cuts a sentence to at most 200 characters at a word boundary, around its first query term when that is late. */
export function clip(sentence: string, anchor: number): string {
  if (sentence.length <= SNIPPET_MAX) return sentence;
  let start = 0;
  if (anchor > SNIPPET_MAX - 60) {
    start = sentence.lastIndexOf(' ', Math.max(0, anchor - 40)) + 1;
  }
  const prefix = start > 0 ? '…' : '';
  const room = SNIPPET_MAX - prefix.length - 1;
  let piece = sentence.slice(start, start + room + 1);
  if (start + room < sentence.length) {
    const cut = piece.lastIndexOf(' ', room);
    piece = piece.slice(0, cut > room / 2 ? cut : room).trimEnd();
    return `${prefix}${piece}…`;
  }
  return `${prefix}${piece}`.slice(0, SNIPPET_MAX);
}

/** A page's main text as the search index keeps it: its sentences, and the search terms of each. */
export interface SentencedText {
  sentences: string[];
  /** Per sentence, its terms joined by single spaces. */
  terms: string[];
}

/** Splits a text into sentences and termizes each; the terms of all sentences, in order, are the text's terms. */
export function sentenceText(text: string, termize: (text: string) => string[] = createTermizer()): SentencedText {
  const list = sentences(text);
  return { sentences: list, terms: list.map((s) => termize(s).join(' ')) };
}

/**
 * Picks and clips the best sentence for `queryTerms` (distinct, as `terms` gives them), each weighted by `idf`.
 * Short sentences (headings, labels) count half; among equals the longer wins, then the earlier.
 */
export function bestSnippet(text: SentencedText, queryTerms: readonly string[], idf: (term: string) => number): string {
  const needles = queryTerms.map((t) => ` ${t} `);
  let best: string | undefined;
  let bestScore = 0;
  text.sentences.forEach((sentence, i) => {
    let score = 0;
    const line = ` ${text.terms[i] ?? ''} `;
    needles.forEach((needle, j) => {
      if (line.includes(needle)) score += idf(queryTerms[j]!);
    });
    if (sentence.length < 40) score *= 0.5;
    score += Math.min(sentence.length, 160) / 1e4;
    if (score > bestScore) {
      best = sentence;
      bestScore = score;
    }
  });
  const chosen = best ?? text.sentences[0];
  if (!chosen) return '';
  const lower = chosen.toLowerCase();
  let anchor = chosen.length;
  for (const word of chosen.split(/[^\p{L}\p{N}]+/u)) {
    if (word && queryTerms.includes(terms(word)[0] ?? '')) {
      anchor = Math.min(anchor, lower.indexOf(word.toLowerCase()));
      break;
    }
  }
  // One line, clean of what inputs refuse: an index built before pages' text was cleaned still holds such text.
  return cleanText(clip(chosen, anchor), 'short');
}
