/** Research the way the pipeline does it, on the shipped sample archive: search, fetch and extract up to 8 pages. */
import { fileURLToPath } from 'node:url';
import { contentHash } from '../../../src/engine/analysis/analysis.ts';
import { extract } from '../../../src/engine/analysis/extract/index.ts';
import type { Research, ResearchSource } from '../../../src/engine/content/types.ts';
import { createArchiveSearch } from '../../../src/providers/search/archive-search.ts';
import { createArchiveFetcher, createWebArchive } from '../../../src/providers/web/archive/index.ts';

export const SAMPLE_ARCHIVE = fileURLToPath(new URL('../../../web-archive', import.meta.url));

let web: { fetcher: ReturnType<typeof createArchiveFetcher>; search: ReturnType<typeof createArchiveSearch> } | null =
  null;

/** The researched pages of `query` (no relevance gate: the writer's own rules are under test). */
export async function archiveResearch(query: string): Promise<Research> {
  if (!web) {
    const archive = createWebArchive({ path: SAMPLE_ARCHIVE });
    web = { fetcher: createArchiveFetcher({ archive, offline: true }), search: createArchiveSearch({ archive }) };
  }
  const found = await web.search.search(query, { platform: 'organic' });
  const sources: ResearchSource[] = [];
  for (const r of found.results.slice(0, 8)) {
    const page = await web.fetcher.fetch(r.url);
    if (page.status !== 200) continue;
    const extraction = extract(page.body, { url: page.url });
    sources.push({
      id: sources.length + 1,
      url: page.url,
      title: extraction.title || r.title,
      platform: 'organic',
      position: r.position,
      contentHash: contentHash(page.body),
      wordCount: extraction.wordCount,
      extraction,
    });
  }
  return { query, searches: [], sources, skipped: [], imported: null };
}
