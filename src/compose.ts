import type { Clock } from './clock.ts';
import { readFileSync } from 'node:fs';
import { oauthMode, SAMPLE_ARCHIVE_PATH, type Config } from './config.ts';
import type { Db } from './store/db.ts';
import { createClientDirectory } from './engine/oauth/clients.ts';
import { createExternalIssuer } from './engine/oauth/external-issuer.ts';
import type { OAuthServices } from './engine/oauth/services.ts';
import { createTokenService } from './engine/oauth/tokens.ts';
import type { EngineProviders } from './engine/providers.ts';
import type { Logger } from './logger.ts';
import pkg from '../package.json' with { type: 'json' };
import { ARCHIVE_EXTRACTOR_ID, archiveExtractText, startArchiveIndexWorkers } from './archive-index.ts';
import { createWebArchive, defaultIndexDir } from './providers/web/archive/archive.ts';
import { createIndexProgress } from './providers/web/archive/index-progress.ts';
import type { IndexProgressReport, IndexingStatus } from './providers/web/archive/index-progress.ts';
import { createArchiveFetcher } from './providers/web/archive/fetcher.ts';
import { checkUrl, createSafeFetcher, parseAllowList } from './providers/web/safe-fetch.ts';
import { createArchiveSearch } from './providers/search/archive-search.ts';
import { cleanSearchResults } from './providers/search/clean-results.ts';
import { createProviderRegistry } from './providers/registry.ts';

/**
 * Part of the composition root: the concrete providers for a configuration. The web archive (the sample archive
 * unless AGENT_API_WEB_ARCHIVE names another) answers first; URLs it lacks go live through the SSRF-safe fetcher
 * unless AGENT_API_OFFLINE=1. Its indexes live in AGENT_API_ARCHIVE_INDEX_DIR (default: beside the database); a
 * build reports its progress to the logger and its state through `indexing()` (for /readyz).
 */
export function buildProviders(
  config: Config,
  deps: { clock: Clock; logger?: Logger },
): {
  providers: EngineProviders;
  warm(): Promise<void>;
  indexing(): IndexingStatus;
  close(): Promise<void>;
} {
  const allow = parseAllowList(config.AGENT_API_TEST_FETCH_ALLOW);
  const progress = createIndexProgress({ clock: deps.clock, report: (r) => logIndexProgress(deps.logger, r) });
  const archive = createWebArchive({
    path: config.AGENT_API_WEB_ARCHIVE || SAMPLE_ARCHIVE_PATH,
    indexDir: config.AGENT_API_ARCHIVE_INDEX_DIR ?? defaultIndexDir(config.AGENT_API_DB),
    onRecord: progress.records,
  });
  const live = createSafeFetcher({ allow, clock: deps.clock, extraCa: extraCa(config) });
  const fetcher = createArchiveFetcher({ archive, fallback: live, offline: config.AGENT_API_OFFLINE });
  const archiveSearch = createArchiveSearch({
    archive,
    clock: deps.clock,
    extractorId: ARCHIVE_EXTRACTOR_ID,
    extractText: archiveExtractText,
    onIndexPage: progress.pages,
    workers: async (pages) => {
      const workers = await startArchiveIndexWorkers({
        pages,
        onProblem: (err) =>
          deps.logger?.warn({ err }, 'an archive index worker failed; its pages are indexed in the main thread'),
      });
      deps.logger?.info({ threads: workers?.threads ?? 0 }, "indexing the web archive's pages");
      return workers;
    },
  });
  const registry = createProviderRegistry(config, { archiveSearch, clock: deps.clock });
  return {
    providers: {
      fetcher,
      // Results are text from outside: cleaned of what inputs refuse before they can become sources.
      researchProvider: (platform) => cleanSearchResults(registry.researchProviderFor(platform)),
      writer: registry.writer,
      answerEngines: registry.answerEngines,
      checkUrl: (url) => checkUrl(url, { allow }),
    },
    /** Opens the archive's indexes (building them when this archive content has none) ahead of the first request. */
    warm: async () => {
      progress.begin();
      try {
        await archiveSearch.warm();
        progress.ready();
      } catch (err) {
        progress.failed();
        throw err;
      }
    },
    indexing: () => progress.status(),
    // Together: closing the archive stops an index build the search may be waiting on.
    close: async () => {
      await Promise.all([live.close(), archiveSearch.close(), archive.close()]);
    },
  };
}

/** A build's progress on the log (stderr): one line at most every 2 s, then one when it is done. */
function logIndexProgress(logger: Logger | undefined, r: IndexProgressReport): void {
  const indexing = {
    phase: r.phase,
    done: r.done,
    total: r.total,
    per_second: r.perSecond,
    seconds_left: r.secondsLeft,
    elapsed_seconds: r.elapsedSeconds,
  };
  if (r.kind === 'done') logger?.info({ indexing }, 'web archive indexed');
  else
    logger?.info(
      { indexing },
      r.phase === 'records'
        ? `indexing the web archive: ${r.done} records read`
        : `indexing the web archive: ${r.done} of ${r.total} pages${r.secondsLeft === null ? '' : `, about ${r.secondsLeft} s left`}`,
    );
}

/** The test-only extra CA of the SSRF-safe fetcher (AGENT_API_TEST_FETCH_CA), read once. */
function extraCa(config: Config): string | undefined {
  return config.AGENT_API_TEST_FETCH_CA ? readFileSync(config.AGENT_API_TEST_FETCH_CA, 'utf8') : undefined;
}

/** Bytes a client ID metadata document or an identity provider's metadata or key set may take. */
const OAUTH_DOCUMENT_BYTES = 64 * 1024;

/**
 * Part of the composition root: OAuth for remote MCP clients (docs/oauth.md). Client metadata documents and the
 * external issuer's metadata and keys are fetched through their own SSRF-safe fetcher: small bodies, no redirects.
 * The external issuer is held to the same rules: it must be at a public address (tests list theirs as loopback).
 */
export function buildOAuth(config: Config, deps: { db: Db; clock: Clock }): OAuthServices {
  const mode = oauthMode(config);
  const base = { mode, publicUrl: config.AGENT_API_PUBLIC_URL ?? null };
  if (mode === 'off')
    return { ...base, clients: null, tokens: null, external: null, externalAudience: null, close: async () => {} };
  const fetcher = createSafeFetcher({
    allow: parseAllowList(config.AGENT_API_TEST_FETCH_ALLOW),
    clock: deps.clock,
    extraCa: extraCa(config),
    maxBytes: OAUTH_DOCUMENT_BYTES,
    maxRedirects: 0,
    userAgent: `agent-api/${pkg.version} (OAuth)`,
  });
  const close = () => fetcher.close();
  if (mode === 'external') {
    const external = createExternalIssuer(
      {
        issuer: config.AGENT_API_OAUTH_ISSUER!,
        audience: config.AGENT_API_OAUTH_AUDIENCE ?? `${config.AGENT_API_PUBLIC_URL}/mcp`,
        orgClaim: config.AGENT_API_OAUTH_ORG_CLAIM,
        scopePrefix: config.AGENT_API_OAUTH_SCOPE_PREFIX,
        jwksUrl: config.AGENT_API_OAUTH_JWKS_URL,
      },
      {
        clock: deps.clock,
        fetchJson: async (url) => {
          const page = await fetcher.fetch(url);
          if (page.status !== 200) throw new Error(`${url} answered HTTP ${page.status}`);
          const doc: unknown = JSON.parse(page.body);
          return doc;
        },
      },
    );
    return { ...base, clients: null, tokens: null, external, externalAudience: null, close };
  }
  return {
    ...base,
    clients: createClientDirectory({ db: deps.db, clock: deps.clock, fetchDocument: (url) => fetcher.fetch(url) }),
    tokens: createTokenService({
      db: deps.db,
      clock: deps.clock,
      lifetimes: {
        accessMs: config.AGENT_API_OAUTH_ACCESS_TTL_SECONDS * 1000,
        refreshMs: config.AGENT_API_OAUTH_REFRESH_TTL_SECONDS * 1000,
      },
    }),
    external: null,
    externalAudience: null,
    close,
  };
}
