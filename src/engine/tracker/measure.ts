import type { Answer, SearchResult } from '../../providers/types.ts';
import { isOnDomain } from './match.ts';

/** Cited URLs kept per query result (the position is computed over all of them first). */
export const MAX_CITED_URLS = 20;

export interface Measured {
  position: number | null;
  brand_mentioned: boolean;
  brand_cited: boolean;
  cited_urls: string[];
}

/**
 * Organic results: the position is the rank of the first result on the brand's domain, the brand is mentioned when a
 * result's title or snippet names it, and cited when its domain is among the result URLs.
 */
export function measureOrganic(
  results: readonly SearchResult[],
  domain: string,
  mentions: (text: string) => boolean,
): Measured {
  const sorted = [...results].sort((a, b) => a.position - b.position);
  const own = sorted.find((r) => isOnDomain(r.url, domain));
  return {
    position: own ? own.position : null,
    brand_mentioned: sorted.some((r) => mentions(r.title) || mentions(r.snippet)),
    brand_cited: own !== undefined,
    cited_urls: sorted.slice(0, MAX_CITED_URLS).map((r) => r.url),
  };
}

/**
 * An AI answer: mentioned when the answer text names the brand, cited when a citation is on its domain, and the
 * position is the 1-based rank of the first such citation among the answer's citations.
 */
export function measureAnswer(
  answer: Pick<Answer, 'text' | 'citations'>,
  domain: string,
  mentions: (text: string) => boolean,
): Measured {
  const index = answer.citations.findIndex((c) => isOnDomain(c.url, domain));
  return {
    position: index >= 0 ? index + 1 : null,
    brand_mentioned: mentions(answer.text),
    brand_cited: index >= 0,
    cited_urls: answer.citations.slice(0, MAX_CITED_URLS).map((c) => c.url),
  };
}

/** Cited URLs counted over a platform's measured results, most cited first (ties by URL), at most `limit`. */
export function topCited(
  results: ReadonlyArray<{ status: string; cited_urls: readonly string[] }>,
  limit = 100,
): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const r of results) {
    if (r.status !== 'complete') continue;
    for (const url of new Set(r.cited_urls)) counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
}
