/**
 * Search results as the engine receives them: titles and snippets cleaned of what operation inputs refuse
 * (src/text-hygiene.ts). They are text from pages and upstream services (a SERP's title, an answer engine's
 * summary, an archive index built before its text was cleaned) and become research sources a client sends back.
 */
import { cleanText } from '../../text-hygiene.ts';
import type { SearchProvider } from '../types.ts';

/** `provider` with every result's title and snippet cleaned as one-line text. */
export function cleanSearchResults(provider: SearchProvider): SearchProvider {
  return {
    name: provider.name,
    platforms: provider.platforms,
    async search(query, options) {
      const response = await provider.search(query, options);
      return {
        ...response,
        results: response.results.map((r) => ({
          ...r,
          title: cleanText(r.title, 'short'),
          snippet: cleanText(r.snippet, 'short'),
        })),
      };
    },
  };
}
