/**
 * The client's excluded topics and the other brands of the research: text that mentions them never reaches a
 * brief or draft. Matching is case-insensitive and inflection-aware: a topic matches when its word stems (or the
 * stems of the analyzer's lemma form of it) occur as a contiguous run in the text.
 */
import type { TermAnalyzer } from '../../analysis/terms/types.ts';
import { tokenize } from './text.ts';
import { runIn } from '../../analysis/words.ts';
import { brandLabel, createBrandMatcher } from '../../analysis/brands.ts';

export { brandLabel, createBrandMatcher };

export interface Matcher {
  /** True when the text mentions one of the phrases. */
  matches(text: string): boolean;
  /** True when a phrase of two or more words lies inside one of the phrases (`solar water` of `solar water heater`). */
  partOf?(text: string): boolean;
  readonly empty: boolean;
}

function runs(phrases: readonly string[][], tokens: readonly string[]): boolean {
  return phrases.some((p) => runIn(tokens, p));
}

/** A matcher over stem sequences; `lemmas` adds the analyzer's lemma form of each topic. */
export function createTopicMatcher(topics: readonly string[], language: string, analyzer?: TermAnalyzer): Matcher {
  const phrases: string[][] = [];
  const seen = new Set<string>();
  const add = (text: string): void => {
    const stems = tokenize(text, language).map((t) => t.stem);
    const k = stems.join(' ');
    if (stems.length > 0 && !seen.has(k)) {
      seen.add(k);
      phrases.push(stems);
    }
  };
  for (const topic of topics) {
    if (typeof topic !== 'string' || !topic.trim()) continue;
    add(topic);
    if (!analyzer) continue;
    // The analyzer's lemmas catch irregular forms the stemmer misses; its longest term is the whole phrase.
    const terms = analyzer.analyzeDocument({ text: topic, language }).terms;
    const longest = [...terms].sort((a, b) => b.n - a.n || (a.key < b.key ? -1 : 1))[0];
    if (longest) add(longest.key);
  }
  return {
    empty: phrases.length === 0,
    matches(text: string): boolean {
      if (phrases.length === 0 || !text) return false;
      return runs(
        phrases,
        tokenize(text, language).map((t) => t.stem),
      );
    },
    partOf(text: string): boolean {
      const stems = tokenize(text, language).map((t) => t.stem);
      return stems.length >= 2 && phrases.some((p) => runs([stems], p));
    },
  };
}

/**
 * The writer's matcher for the research sites' names (docs/extractive-writer.md section 3): the shared brand matcher,
 * where a word standing for a name by its first letters needs an inner capital (`RapidFlow`), so that a plain
 * capitalised `Water` or `Comfort` does not drop a sentence as naming `waterwise` or `comfortairhvac`.
 */
export const createSiteMatcher = (labels: readonly string[]): Matcher =>
  createBrandMatcher(labels, { prefixNeedsInnerCapital: true });

/** Both matchers as one. */
export function anyOf(...matchers: Matcher[]): Matcher {
  const live = matchers.filter((m) => !m.empty);
  return { empty: live.length === 0, matches: (text) => live.some((m) => m.matches(text)) };
}
