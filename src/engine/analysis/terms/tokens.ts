/**
 * The token stream both pipelines (wink for English, Intl.Segmenter for the rest) produce, so n-grams, entities and
 * heading matching are written once.
 */

export type Cap = 'none' | 'title' | 'upper' | 'mixed';

export interface LexToken {
  surface: string;
  /** Lower case with dots removed: the unit of entity keys and heading matching. */
  norm: string;
  /** Lemma key when the token is a content word that can be part of a term, else ''. */
  key: string;
  /**
   * The token can end a term (a noun, a proper noun or a word wink cannot tag): terms are noun phrases, so an
   * adjective or an `-ing` form only ever modifies the noun after it. Always true in the segmenter pipeline.
   */
  head: boolean;
  /** Part of an identifier in prose (`getLogger`, `asyncio.Queue()`, `max_size`): never a term nor a plain name. */
  code: boolean;
  kind: 'word' | 'number' | 'punct' | 'other';
  /** Universal POS tag from wink; '' in the segmenter pipeline. */
  pos: string;
  cap: Cap;
  stop: boolean;
  /** Index of the sentence (or line) the token is in. */
  sentence: number;
  /** First word of a sentence, line, quotation or list item: its capital says nothing about being a name. */
  sentenceStart: boolean;
  /** A sentence or line boundary precedes the token: n-grams and names never run across it. */
  breakBefore: boolean;
  spaceBefore: boolean;
  /** wink entity label covering the token ('' when none). */
  entity: string;
}

/** A numeric/date entity reported by wink, by token span (inclusive). */
export interface SpanEntity {
  start: number;
  end: number;
  label: string;
}

export interface TokenStream {
  tokens: LexToken[];
  wordCount: number;
  spans: SpanEntity[];
  /** Identifiers written in prose (`asyncio.Queue()`), by token span (inclusive, dots included). */
  identifiers: Array<{ start: number; end: number }>;
  /** wink's lexicon lookup; the segmenter pipeline has none and answers true (treat every word as common). */
  isCommonWord: (lower: string) => boolean;
}

const LETTER = /\p{L}/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;
// Scripts whose single characters are words: single-letter Latin tokens are noise, single kanji are not.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const HYPHENS = new Set(['-', '‐', '‑']);
/** wink keeps `I'm` whole and tags it PROPN; contractions are never terms or names. */
export const CONTRACTION = /^\p{L}+'(m|s|re|ve|ll|d|t)$/u;

export function hasLetter(s: string): boolean {
  return LETTER.test(s);
}

export function isCjk(s: string): boolean {
  return CJK.test(s);
}

export function isHyphen(s: string): boolean {
  return HYPHENS.has(s);
}

/** Capitalisation class of a word: `title` (Apple), `upper` (NASA), `mixed` (iPhone, McDonald), `none`. */
export function capOf(surface: string): Cap {
  const first = surface.charAt(0);
  const rest = surface.slice(1);
  const restHasUpper = UPPER.test(rest);
  if (UPPER.test(first)) {
    if (!LOWER.test(surface) && surface.replace(/[^\p{L}]/gu, '').length >= 2) return 'upper';
    return restHasUpper ? 'mixed' : 'title';
  }
  return restHasUpper ? 'mixed' : 'none';
}

/** Lower case without dots, so `U.S.` and `Inc.` match `us` and `inc`. */
export function normOf(surface: string): string {
  const lower = surface.toLowerCase();
  return lower.length > 1 ? lower.replaceAll('.', '') || lower : lower;
}

/** Code points, so a single astral character counts as one. */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/** Code-unit order: locale-independent and stable across machines. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
