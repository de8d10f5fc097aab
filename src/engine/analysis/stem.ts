/**
 * The English stemmer: Porter2 (`wink-porter2-stemmer`, the same algorithm as wink's own stem addon), so that
 * `descaling`, `descaled` and `descale` meet. One function for every caller: Optimize's relevance test and term
 * matching, the extractive writer and the archive's search terms.
 */
import porter2 from 'wink-porter2-stemmer';

// Stemming is a pure function of the word and the same words recur on every page: memoised, and the memo is
// cleared when it reaches this size so a long-running server's memory stays flat.
const CACHE_LIMIT = 50_000;
const cache = new Map<string, string>();

/**
 * The Porter2 stem of a lower-case English word. Words with a digit (`mp3s`, `4k`) and words of one or two letters
 * come back as they are.
 */
export function stemEnglish(word: string): string {
  if (word.length <= 2 || /\d/.test(word)) return word;
  let s = cache.get(word);
  if (s === undefined) {
    s = porter2(word);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(word, s);
  }
  return s;
}
