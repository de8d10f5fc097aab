import type { Clock } from './clock.ts';
import { SAMPLE_ARCHIVE_PATH, type Config } from './config.ts';
import type { EngineProviders } from './engine/providers.ts';
import { extract } from './engine/analysis/extract/index.ts';
import pkg from '../package.json' with { type: 'json' };
import { createWebArchive, defaultIndexDir } from './providers/web/archive/archive.ts';
import { createArchiveFetcher } from './providers/web/archive/fetcher.ts';
import { checkUrl, createSafeFetcher, parseAllowList } from './providers/web/safe-fetch.ts';
import { createArchiveSearch } from './providers/search/archive-search.ts';
import { createProviderRegistry } from './providers/registry.ts';

/**
 * Part of the composition root: the concrete providers for a configuration. The web archive (the sample archive
 * unless AGENT_API_WEB_ARCHIVE names another) answers first; URLs it lacks go live through the SSRF-safe fetcher
 * unless AGENT_API_OFFLINE=1. Its indexes live in AGENT_API_ARCHIVE_INDEX_DIR (default: beside the database).
 */
export function buildProviders(
  config: Config,
  deps: { clock: Clock },
): { providers: EngineProviders; warm(): Promise<void>; close(): Promise<void> } {
  const allow = parseAllowList(config.AGENT_API_TEST_FETCH_ALLOW);
  const archive = createWebArchive({
    path: config.AGENT_API_WEB_ARCHIVE || SAMPLE_ARCHIVE_PATH,
    indexDir: config.AGENT_API_ARCHIVE_INDEX_DIR ?? defaultIndexDir(config.AGENT_API_DB),
  });
  const live = createSafeFetcher({ allow, clock: deps.clock });
  const fetcher = createArchiveFetcher({ archive, fallback: live, offline: config.AGENT_API_OFFLINE });
  const archiveSearch = createArchiveSearch({
    archive,
    clock: deps.clock,
    // Named with the package version, so a release whose extractor reads pages differently indexes them again.
    extractorId: `analysis-${pkg.version}`,
    extractText: (html, url) => {
      const e = extract(html, { url });
      return { title: e.title, text: e.mainText };
    },
  });
  const registry = createProviderRegistry(config, { archiveSearch, clock: deps.clock });
  return {
    providers: {
      fetcher,
      researchProvider: (platform) => registry.researchProviderFor(platform),
      writer: registry.writer,
      answerEngines: registry.answerEngines,
      checkUrl: (url) => checkUrl(url, { allow }),
    },
    /** Opens the archive's indexes (building them when this archive content has none) ahead of the first request. */
    warm: () => archiveSearch.warm(),
    // Together: closing the archive stops an index build the search may be waiting on.
    close: async () => {
      await Promise.all([live.close(), archiveSearch.close(), archive.close()]);
    },
  };
}
