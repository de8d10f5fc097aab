import { systemClock, type TimeSource } from '../clock.ts';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { createAnthropicSearchEngine } from './answer/anthropic-search.ts';
import { createDataForSeoAiOverviewEngine } from './answer/dataforseo-ai-overview.ts';
import { createOpenAiSearchEngine } from './answer/openai-search.ts';
import { createPerplexityEngine } from './answer/perplexity.ts';
import type { JsonClientOptions } from './http/json-client.ts';
import { createDataForSeoSearch } from './search/dataforseo.ts';
import { answerEngineSearch } from './search/platforms.ts';
import { createSerpApiSearch } from './search/serpapi.ts';
import type { AnswerEngine, AnswerPlatform, ResearchPlatform, SearchProvider, Writer } from './types.ts';
import { RESEARCH_PLATFORMS } from './types.ts';
import { createAnthropicWriter } from './writer/anthropic.ts';
import { createOpenAiWriter } from './writer/openai.ts';

/**
 * Builds the real providers from settings: which research platforms can run, the writer, and the answer engine
 * for each tracker platform. A platform nobody serves stays absent, so callers report missing coverage, never a
 * zero.
 */

type ConfigKeys =
  | 'SERP_PROVIDER'
  | 'DATAFORSEO_LOGIN'
  | 'DATAFORSEO_PASSWORD'
  | 'DATAFORSEO_BASE_URL'
  | 'SERPAPI_API_KEY'
  | 'SERPAPI_BASE_URL'
  | 'LLM_PROVIDER'
  | 'OPENAI_API_KEY'
  | 'OPENAI_BASE_URL'
  | 'OPENAI_MODEL'
  | 'ANTHROPIC_API_KEY'
  | 'ANTHROPIC_BASE_URL'
  | 'ANTHROPIC_MODEL'
  | 'PERPLEXITY_API_KEY'
  | 'PERPLEXITY_BASE_URL'
  | 'PROVIDER_TIMEOUT_MS';

/** Model settings an embedding caller may leave out; each has the default shown. */
export interface ProviderExtraSettings {
  /** Model behind the `chatgpt` answer engine and research; default gpt-4o-search-preview. */
  OPENAI_SEARCH_MODEL?: string;
  /** Sonar model for the `perplexity` answer engine; default sonar. */
  PERPLEXITY_MODEL?: string;
  /** Model behind the `claude` answer engine and research; default ANTHROPIC_MODEL. */
  ANTHROPIC_SEARCH_MODEL?: string;
}

export type ProviderSettings = Pick<Config, ConfigKeys> & ProviderExtraSettings;

export const DEFAULT_OPENAI_SEARCH_MODEL = 'gpt-4o-search-preview';
export const DEFAULT_PERPLEXITY_MODEL = 'sonar';

export interface ProviderRegistryDeps {
  /** Serves `organic` when SERP_PROVIDER=archive. */
  archiveSearch: SearchProvider;
  clock?: TimeSource;
  /** HTTP tuning for every adapter (tests inject sleep and dispatcher; production keeps the defaults). */
  http?: Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers' | 'timeoutMs'>;
}

export interface ProviderRegistry {
  /** The provider for one research platform; ApiError('invalid_input') naming the setting when none is configured. */
  researchProviderFor(platform: ResearchPlatform): SearchProvider;
  /** Providers for every platform asked for, checked before any paid work; one ApiError lists all that are missing. */
  resolveResearch(platforms: readonly ResearchPlatform[]): Map<ResearchPlatform, SearchProvider>;
  /** Research platforms this configuration serves. */
  readonly researchPlatforms: readonly ResearchPlatform[];
  /** The real writer, or null for LLM_PROVIDER=extractive (the extractive writer is built elsewhere). */
  readonly writer: Writer | null;
  /** Answer engines by tracker platform; a platform without one is absent. */
  readonly answerEngines: Readonly<Partial<Record<AnswerPlatform, AnswerEngine>>>;
}

const present = (v: string | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/** What enables each research platform, for error messages. */
const NEEDS: Record<ResearchPlatform, string> = {
  organic:
    'SERP_PROVIDER=archive, or SERP_PROVIDER=dataforseo or serpapi with credentials (DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD or SERPAPI_API_KEY)',
  google_video_pack:
    'SERP_PROVIDER=dataforseo or serpapi with credentials (DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD or SERPAPI_API_KEY)',
  youtube_search:
    'SERP_PROVIDER=dataforseo or serpapi with credentials (DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD or SERPAPI_API_KEY)',
  chatgpt: 'OPENAI_API_KEY',
  claude: 'ANTHROPIC_API_KEY',
};

/** Startup check: a chosen provider without its credentials is a configuration error naming the variable. */
export function checkProviderSettings(s: ProviderSettings): void {
  const problems: string[] = [];
  const dfsLogin = present(s.DATAFORSEO_LOGIN);
  const dfsPassword = present(s.DATAFORSEO_PASSWORD);
  if (s.SERP_PROVIDER === 'dataforseo' && !dfsLogin && !dfsPassword)
    problems.push('SERP_PROVIDER=dataforseo needs DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD');
  else if (dfsLogin !== dfsPassword)
    problems.push(
      `${dfsLogin ? 'DATAFORSEO_PASSWORD' : 'DATAFORSEO_LOGIN'} is missing (DataForSEO needs both DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD)`,
    );
  if (s.SERP_PROVIDER === 'serpapi' && !present(s.SERPAPI_API_KEY))
    problems.push('SERP_PROVIDER=serpapi needs SERPAPI_API_KEY');
  if (s.LLM_PROVIDER === 'openai' && !present(s.OPENAI_API_KEY) && isOpenAiHost(s.OPENAI_BASE_URL)) {
    problems.push(
      'LLM_PROVIDER=openai needs OPENAI_API_KEY (or OPENAI_BASE_URL pointing at a server that needs no key, such as Ollama)',
    );
  }
  if (s.LLM_PROVIDER === 'anthropic' && !present(s.ANTHROPIC_API_KEY))
    problems.push('LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY');
  if (problems.length > 0) throw new Error(`Invalid provider configuration:\n  ${problems.join('\n  ')}`);
}

function isOpenAiHost(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/** Builds every configured provider once; throws an Error naming the variable when the settings are inconsistent. */
export function createProviderRegistry(settings: ProviderSettings, deps: ProviderRegistryDeps): ProviderRegistry {
  checkProviderSettings(settings);
  const clock = deps.clock ?? systemClock;
  const http = { ...deps.http, timeoutMs: settings.PROVIDER_TIMEOUT_MS };

  const dataForSeo =
    present(settings.DATAFORSEO_LOGIN) && present(settings.DATAFORSEO_PASSWORD)
      ? {
          login: settings.DATAFORSEO_LOGIN,
          password: settings.DATAFORSEO_PASSWORD,
          baseUrl: settings.DATAFORSEO_BASE_URL,
        }
      : null;
  const openAiKey = present(settings.OPENAI_API_KEY) ? settings.OPENAI_API_KEY : null;
  const anthropicKey = present(settings.ANTHROPIC_API_KEY) ? settings.ANTHROPIC_API_KEY : null;

  let serp: SearchProvider | null = null;
  if (settings.SERP_PROVIDER === 'dataforseo' && dataForSeo)
    serp = createDataForSeoSearch({ ...http, ...dataForSeo, clock });
  if (settings.SERP_PROVIDER === 'serpapi' && present(settings.SERPAPI_API_KEY)) {
    serp = createSerpApiSearch({
      ...http,
      apiKey: settings.SERPAPI_API_KEY,
      baseUrl: settings.SERPAPI_BASE_URL,
      clock,
    });
  }

  const answerEngines: Partial<Record<AnswerPlatform, AnswerEngine>> = {};
  if (openAiKey) {
    answerEngines.chatgpt = createOpenAiSearchEngine({
      ...http,
      apiKey: openAiKey,
      baseUrl: settings.OPENAI_BASE_URL,
      model: present(settings.OPENAI_SEARCH_MODEL) ? settings.OPENAI_SEARCH_MODEL : DEFAULT_OPENAI_SEARCH_MODEL,
      clock,
    });
  }
  if (anthropicKey) {
    answerEngines.claude = createAnthropicSearchEngine({
      ...http,
      apiKey: anthropicKey,
      baseUrl: settings.ANTHROPIC_BASE_URL,
      model: present(settings.ANTHROPIC_SEARCH_MODEL) ? settings.ANTHROPIC_SEARCH_MODEL : settings.ANTHROPIC_MODEL,
      clock,
    });
  }
  if (present(settings.PERPLEXITY_API_KEY)) {
    answerEngines.perplexity = createPerplexityEngine({
      ...http,
      apiKey: settings.PERPLEXITY_API_KEY,
      baseUrl: settings.PERPLEXITY_BASE_URL,
      model: present(settings.PERPLEXITY_MODEL) ? settings.PERPLEXITY_MODEL : DEFAULT_PERPLEXITY_MODEL,
      clock,
    });
  }
  if (dataForSeo)
    answerEngines.google_ai_overview = createDataForSeoAiOverviewEngine({ ...http, ...dataForSeo, clock });

  const research = new Map<ResearchPlatform, SearchProvider>();
  if (settings.SERP_PROVIDER === 'archive') research.set('organic', deps.archiveSearch);
  if (serp) for (const p of serp.platforms) research.set(p, serp);
  if (answerEngines.chatgpt) research.set('chatgpt', answerEngineSearch(answerEngines.chatgpt, 'chatgpt', clock));
  if (answerEngines.claude) research.set('claude', answerEngineSearch(answerEngines.claude, 'claude', clock));

  let writer: Writer | null = null;
  if (settings.LLM_PROVIDER === 'openai') {
    writer = createOpenAiWriter({
      ...http,
      ...(openAiKey ? { apiKey: openAiKey } : {}),
      baseUrl: settings.OPENAI_BASE_URL,
      model: settings.OPENAI_MODEL,
      name: isOpenAiHost(settings.OPENAI_BASE_URL) ? 'openai' : 'openai-compatible',
    });
  } else if (settings.LLM_PROVIDER === 'anthropic' && anthropicKey) {
    writer = createAnthropicWriter({
      ...http,
      apiKey: anthropicKey,
      baseUrl: settings.ANTHROPIC_BASE_URL,
      model: settings.ANTHROPIC_MODEL,
    });
  }

  function missing(platforms: readonly ResearchPlatform[]): ApiError {
    const lines = platforms.map((p) => `research platform '${p}' needs ${NEEDS[p]}`);
    return new ApiError('invalid_input', lines.join('; '), {
      platforms: [...platforms],
      settings: Object.fromEntries(platforms.map((p) => [p, NEEDS[p]])),
    });
  }

  return {
    researchProviderFor(platform) {
      const provider = research.get(platform);
      if (!provider) throw missing([platform]);
      return provider;
    },
    resolveResearch(platforms) {
      const wanted = [...new Set(platforms)];
      const absent = wanted.filter((p) => !research.has(p));
      if (absent.length > 0) throw missing(absent);
      return new Map(wanted.map((p) => [p, research.get(p) as SearchProvider]));
    },
    researchPlatforms: RESEARCH_PLATFORMS.filter((p) => research.has(p)),
    writer,
    answerEngines: Object.freeze(answerEngines),
  };
}
