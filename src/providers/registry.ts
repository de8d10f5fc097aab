import { systemClock, type TimeSource } from '../clock.ts';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import {
  PROVIDER_KINDS,
  type AnyProviderDefinition,
  type ProviderBuildDeps,
  type ProviderKind,
  type ProviderSettingsOf,
} from './define.ts';
import { PROVIDERS } from './definitions/index.ts';
import type { JsonClientOptions } from './http/json-client.ts';
import { answerEngineSearch, type AnswerResearchPlatform } from './search/platforms.ts';
import type { AnswerEngine, AnswerPlatform, ResearchPlatform, SearchProvider, Writer } from './types.ts';
import { RESEARCH_PLATFORMS } from './types.ts';

export { DEFAULT_OPENAI_SEARCH_MODEL } from './definitions/openai.ts';
export { DEFAULT_PERPLEXITY_MODEL } from './definitions/perplexity.ts';

/**
 * Builds the real providers from settings: which research platforms can run, the writer, and the answer engine
 * for each tracker platform. A platform nobody serves stays absent, so callers report missing coverage, never a
 * zero. Each provider is defined once in `providers/definitions/` (kind, name, settings, factory); this module only
 * walks that list.
 */

/**
 * The settings the providers read: the two choosing settings, the timeout, and every key a definition's settings
 * schema names (model settings an embedding caller may leave out are optional there, with the default the
 * definition states).
 */
export type ProviderSettings = Pick<Config, 'SERP_PROVIDER' | 'LLM_PROVIDER' | 'PROVIDER_TIMEOUT_MS'> &
  ProviderSettingsOf<(typeof PROVIDERS)[number]>;

/** Provider definitions that read `ProviderSettings` (the built-in list, or a test's list with its own fakes). */
export type ProviderDefinitions = readonly AnyProviderDefinition<ProviderSettings>[];

export interface ProviderRegistryDeps {
  /** Serves `organic` when SERP_PROVIDER=archive. */
  archiveSearch: SearchProvider;
  clock?: TimeSource;
  /** HTTP tuning for every adapter (tests inject sleep and dispatcher; production keeps the defaults). */
  http?: Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers' | 'timeoutMs'>;
  /** The providers to choose from; default every definition of `providers/definitions/index.ts`. */
  definitions?: ProviderDefinitions;
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

/** Whether the setting that chooses a provider of this kind names it (answer engines are never chosen). */
function isChosen(def: { kind: ProviderKind; name: string }, settings: ProviderSettings): boolean {
  const selector = PROVIDER_KINDS[def.kind];
  return selector !== null && settings[selector] === def.name;
}

/**
 * What enables one research platform, for error messages: the SERP providers that answer it (keyless ones by name,
 * the others with their credentials), then the answer engines that double as it.
 */
function needsFor(platform: ResearchPlatform, definitions: ProviderDefinitions): string {
  const serving = definitions.filter((d) => d.research.includes(platform));
  const serp = serving.filter((d) => d.kind === 'serp');
  const keyless = serp.filter((d) => d.needs.length === 0).map((d) => `SERP_PROVIDER=${d.name}`);
  const keyed = serp.filter((d) => d.needs.length > 0);
  const parts = [...keyless];
  if (keyed.length > 0) {
    const names = keyed.map((d) => d.name).join(' or ');
    const credentials = keyed.map((d) => d.needs.join('/')).join(' or ');
    parts.push(`SERP_PROVIDER=${names} with credentials (${credentials})`);
  }
  for (const d of serving) if (d.kind === 'answer') parts.push(d.needs.join('/'));
  return parts.length > 0 ? parts.join(', or ') : 'a provider that serves it';
}

/** Startup check: a chosen provider without its credentials is a configuration error naming the variable. */
export function checkProviderSettings(s: ProviderSettings, definitions: ProviderDefinitions = PROVIDERS): void {
  const problems = definitions.flatMap((d) => d.problems(s, isChosen(d, s)));
  if (problems.length > 0) throw new Error(`Invalid provider configuration:\n  ${problems.join('\n  ')}`);
}

/** Builds every configured provider once; throws an Error naming the variable when the settings are inconsistent. */
export function createProviderRegistry(settings: ProviderSettings, deps: ProviderRegistryDeps): ProviderRegistry {
  const definitions = deps.definitions ?? PROVIDERS;
  checkProviderSettings(settings, definitions);
  const clock = deps.clock ?? systemClock;
  const build: ProviderBuildDeps = {
    http: { ...deps.http, timeoutMs: settings.PROVIDER_TIMEOUT_MS },
    clock,
    archiveSearch: deps.archiveSearch,
  };

  const research = new Map<ResearchPlatform, SearchProvider>();
  const answerEngines: Partial<Record<AnswerPlatform, AnswerEngine>> = {};
  let writer: Writer | null = null;
  for (const def of definitions) {
    if (def.kind === 'answer') {
      const engine = def.build(settings, build);
      if (!engine) continue;
      answerEngines[def.name as AnswerPlatform] = engine;
      for (const p of def.research) research.set(p, answerEngineSearch(engine, p as AnswerResearchPlatform, clock));
    } else if (isChosen(def, settings)) {
      if (def.kind === 'writer') writer = def.build(settings, build);
      else {
        // The platforms it declares (what error messages name) that the built provider answers.
        const serp = def.build(settings, build);
        if (serp) for (const p of def.research) if (serp.platforms.includes(p)) research.set(p, serp);
      }
    }
  }

  function missing(platforms: readonly ResearchPlatform[]): ApiError {
    const needs = platforms.map((p) => [p, needsFor(p, definitions)] as const);
    return new ApiError('invalid_input', needs.map(([p, n]) => `research platform '${p}' needs ${n}`).join('; '), {
      platforms: [...platforms],
      settings: Object.fromEntries(needs),
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
