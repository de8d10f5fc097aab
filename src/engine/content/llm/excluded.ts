/**
 * The excluded-topic test. A topic is mentioned when it occurs case-insensitively starting at a word boundary, with
 * any ending (so `price` catches `prices`, but `art` does not catch `start`); spaces inside a topic match any run of
 * whitespace. Over-matching only drops a sentence; under-matching would publish what the client excluded.
 */

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A predicate telling whether a text mentions any of the topics (always false for none). */
export function excludedMatcher(topics: readonly string[]): (text: string) => boolean {
  const patterns = topics
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
    .map((t) => new RegExp(`(?<![\\p{L}\\p{N}])${t.split(/\s+/).map(escape).join('\\s+')}`, 'iu'));
  if (patterns.length === 0) return () => false;
  return (text) => patterns.some((p) => p.test(text));
}
