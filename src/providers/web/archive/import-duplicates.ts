/**
 * Which file an import keeps when several name the same URL. An archive holds one page per URL, so the others are
 * left out and reported (winner, loser and the rule that decided), never silently shadowed. The rule, in order:
 *
 * 1. **The stronger source of the URL**: canonical link, then `og:url`, then the "saved from url" comment, then
 *    `--base-url`. A canonical link is the site's own statement of which URL the content belongs to; `og:url` says
 *    the same for sharing but is kept less carefully; the comment only records where the browser was; a base URL
 *    joined with a file path is the importer's guess. A page that names X as canonical is X's content even when
 *    another file was saved from X's address with tracking parameters, a print view or an AMP copy.
 * 2. **The more text** (pageTextLength: the characters a reader sees, without markup, scripts, styles and comments),
 *    measured only between files tied on the source. Files claiming a URL with equal authority are usually a full
 *    page and a variant of it (a truncated save, a paginated or print copy); the text is what search and writing
 *    use, so the fuller copy serves them better. A count over the markup rather than a main-content extraction:
 *    it costs milliseconds where the extractor costs a good part of a second on a large page, and a variant that
 *    lacks the content lacks it in both measures.
 * 3. **Path order** (the order the import lists files in): deterministic and independent of file times, which a
 *    copy resets, so one folder imports the same way on every machine.
 */
import type { PageUrlSource } from './page-url.ts';

/** A file and the URL it names. `order` is its place in the import's file list (lower comes first). */
export interface UrlClaim {
  file: string;
  url: string;
  source: PageUrlSource;
  order: number;
}

/** A URL named by two files: the file kept, the one left out, and why. */
export interface DuplicateUrl {
  url: string;
  winner: string;
  loser: string;
  /** Which step of the rule decided. */
  rule: 'source' | 'text' | 'path-order';
  reason: string;
}

/** Stronger sources first. */
export const SOURCE_STRENGTH: readonly PageUrlSource[] = ['canonical', 'og:url', 'saved-from', 'base-url'];

const SOURCE_WORDS: Record<PageUrlSource, string> = {
  canonical: 'its canonical link',
  'og:url': 'its og:url',
  'saved-from': 'its "saved from url" comment',
  'base-url': '--base-url',
};

const strength = (claim: UrlClaim) => SOURCE_STRENGTH.indexOf(claim.source);

const NOT_SEEN = /<!--[\s\S]*?-->|<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>|<[^>]*>/gi;

/** The characters of a page's text a reader sees: markup, scripts, styles and comments out, spaces collapsed. */
export function pageTextLength(html: string): number {
  return html
    .replace(NOT_SEEN, ' ')
    .replace(/&(#?[a-z0-9]+);/gi, '_')
    .replace(/\s+/g, ' ')
    .trim().length;
}

/**
 * One claim per URL, in the claims' order, and a duplicate entry for every claim left out. `textLength` (the
 * claim's pageTextLength) is called only for claims tied with the strongest source of their URL.
 */
export async function resolveDuplicates<T extends UrlClaim>(
  claims: readonly T[],
  textLength: (claim: T) => Promise<number>,
): Promise<{ kept: T[]; duplicates: DuplicateUrl[] }> {
  const byUrl = new Map<string, T[]>();
  for (const claim of claims) {
    const group = byUrl.get(claim.url);
    if (group) group.push(claim);
    else byUrl.set(claim.url, [claim]);
  }
  const dropped = new Set<T>();
  const duplicates: DuplicateUrl[] = [];
  for (const [url, group] of byUrl) {
    if (group.length === 1) continue;
    const best = Math.min(...group.map(strength));
    const tied = group.filter((c) => strength(c) === best);
    const text = new Map<T, number>();
    if (tied.length > 1) for (const claim of tied) text.set(claim, await textLength(claim));
    const rank = (a: T, b: T) =>
      strength(a) - strength(b) || (text.get(b) ?? 0) - (text.get(a) ?? 0) || a.order - b.order;
    const [winner, ...losers] = [...group].sort(rank);
    if (!winner) continue;
    for (const loser of losers) {
      dropped.add(loser);
      duplicates.push({ url, winner: winner.file, loser: loser.file, ...why(winner, loser, text) });
    }
  }
  duplicates.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return { kept: claims.filter((c) => !dropped.has(c)), duplicates };
}

function why<T extends UrlClaim>(winner: T, loser: T, text: Map<T, number>): Pick<DuplicateUrl, 'rule' | 'reason'> {
  if (winner.source !== loser.source) {
    return {
      rule: 'source',
      reason: `the winner's URL comes from ${SOURCE_WORDS[winner.source]}, a stronger source than the loser's ${SOURCE_WORDS[loser.source].replace(/^its /, '')}`,
    };
  }
  const [w, l] = [text.get(winner) ?? 0, text.get(loser) ?? 0];
  if (w !== l) {
    return {
      rule: 'text',
      reason: `both name it by ${SOURCE_WORDS[winner.source]}; the winner has more text (${w} characters against ${l})`,
    };
  }
  return {
    rule: 'path-order',
    reason: `both name it by ${SOURCE_WORDS[winner.source]} and have as much text (${w} characters); the winner comes first in path order`,
  };
}
