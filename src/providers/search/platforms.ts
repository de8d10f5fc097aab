import type {
  AnswerEngine,
  AnswerPlatform,
  ResearchPlatform,
  SearchOptions,
  SearchProvider,
  SearchResponse,
  SearchResult,
} from '../types.ts';
import { ProviderError } from '../types.ts';

/**
 * Locale mapping shared by the SERP and answer-engine adapters, and the bridge that lets an AI answer engine serve
 * research (the URLs it cites become the "results").
 */

export interface LocaleParts {
  /** Language for the search engine's interface (Google `hl`, DataForSEO `language_code`), lower-case. */
  language: string;
  /** ISO 3166-1 alpha-2 region from the language tag, lower-case, or null. */
  region: string | null;
}

/** 'en-US' → {language:'en', region:'us'}; 'pt_BR' → pt/br; 'en' → en/null; empty → en/null. */
export function splitLanguage(tag: string | undefined): LocaleParts {
  const parts = (tag ?? '').trim().replace(/_/g, '-').split('-').filter(Boolean);
  const language = (parts[0] ?? 'en').toLowerCase();
  const region =
    parts
      .slice(1)
      .find((p) => /^[a-z]{2}$/i.test(p))
      ?.toLowerCase() ?? null;
  return { language, region };
}

/** Google's `hl` keeps the script/region only for Chinese (zh-cn, zh-tw); every other language is two letters. */
export function googleHl(tag: string | undefined): string {
  const { language, region } = splitLanguage(tag);
  return language === 'zh' && region ? `zh-${region === 'tw' || region === 'hk' ? 'tw' : 'cn'}` : language;
}

/** DataForSEO language codes are ISO 639-1 except Chinese, which it spells zh-CN / zh-TW. */
export function dataForSeoLanguage(tag: string | undefined): string {
  const hl = googleHl(tag);
  return hl.startsWith('zh-') ? `zh-${hl.slice(3).toUpperCase()}` : hl;
}

/** Canonical region code ('UK' → 'GB', 'DD' → 'DE') and its English name, or null for codes that name no country. */
function region(code: string, names: Intl.DisplayNames): { code: string; name: string } | null {
  if (!/^[a-z]{2}$/i.test(code)) return null;
  let canonical: string;
  try {
    canonical = (Intl.getCanonicalLocales(`und-${code.toUpperCase()}`)[0] ?? '').slice(4);
  } catch {
    return null;
  }
  const name = canonical ? names.of(canonical) : undefined;
  return name && name !== canonical && name !== 'Unknown Region' ? { code: canonical, name } : null;
}

const regionNames = () => new Intl.DisplayNames(['en'], { type: 'region' });

/** English country name for an ISO alpha-2 code ('US' → 'United States'), or null when unknown. */
export function countryName(code: string): string | null {
  return region(code, regionNames())?.name ?? null;
}

/** ISO alpha-2 code, lower-case, for an English country name or code ('United Kingdom' → 'gb'), or null. */
export function countryCode(nameOrCode: string): string | null {
  const wanted = nameOrCode.trim().toLowerCase();
  const names = regionNames();
  if (/^[a-z]{2}$/.test(wanted)) return region(wanted, names)?.code.toLowerCase() ?? null;
  if (wanted === 'usa' || wanted === 'united states of america') return 'us';
  // 676 look-ups at most, once per request: cheaper than keeping a table in module state.
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const hit = region(code, names);
      if (hit && hit.code === code && hit.name.toLowerCase() === wanted) return code.toLowerCase();
    }
  }
  return null;
}

export interface ParsedLocation {
  /** The parts as given, trimmed: e.g. ['Austin', 'Texas', 'United States']. */
  parts: string[];
  city: string | null;
  region: string | null;
  /** ISO alpha-2, lower-case, when the last part names a country. */
  country: string | null;
}

/** Reads a free-form "City, Region, Country" (or a bare country name or code) location. */
export function parseLocation(location: string | undefined): ParsedLocation | null {
  const parts = (location ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return null;
  const country = countryCode(parts[parts.length - 1] as string);
  const rest = country ? parts.slice(0, -1) : parts;
  return { parts, city: rest[0] ?? null, region: rest.length > 1 ? (rest[rest.length - 1] as string) : null, country };
}

/** The `user_location` object OpenAI-style web search takes, or undefined when nothing is known. */
export function approximateLocation(
  location: string | undefined,
  language: string | undefined,
): { country?: string; region?: string; city?: string } | undefined {
  const parsed = parseLocation(location);
  const country = parsed?.country ?? splitLanguage(language).region;
  const out: { country?: string; region?: string; city?: string } = {};
  if (country) out.country = country.toUpperCase();
  if (parsed?.region) out.region = parsed.region;
  if (parsed?.city) out.city = parsed.city;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Answer-engine platforms that double as research platforms. */
export type AnswerResearchPlatform = Extract<ResearchPlatform, AnswerPlatform>;

/**
 * Research on an AI platform: asks the engine the query and returns the URLs it cites, in citation order, as
 * ranked results. The snippet is empty because the engines do not quote per source.
 */
export function answerEngineSearch(
  engine: AnswerEngine,
  platform: AnswerResearchPlatform,
  clock: { now(): number } = Date,
): SearchProvider {
  return {
    name: engine.name,
    platforms: [platform],
    async search(query: string, options: SearchOptions): Promise<SearchResponse> {
      if (options.platform !== platform) {
        throw new ProviderError(engine.name, `${engine.name} does not serve research platform '${options.platform}'`, {
          retryable: false,
        });
      }
      const answer = await engine.ask(query, platform, {
        ...(options.location !== undefined ? { location: options.location } : {}),
        ...(options.language !== undefined ? { language: options.language } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
      });
      const limit = Math.max(1, Math.min(options.limit ?? 10, 10));
      return searchResponse(
        answer.provider,
        platform,
        query,
        options,
        clock.now(),
        answer.citations
          .slice(0, limit)
          .map((c, i) => ({ position: i + 1, url: c.url, title: c.title ?? c.url, snippet: '' })),
      );
    },
  };
}

/** Limit for SERP adapters: default 10, at least 1, at most `max`. */
export function clampLimit(limit: number | undefined, max = 10): number {
  return Math.max(1, Math.min(Math.floor(limit ?? 10), max));
}

/** A SearchResponse stamped with the provider, the query and options asked for, and the time of the answer. */
export function searchResponse(
  provider: string,
  platform: ResearchPlatform,
  query: string,
  options: Pick<SearchOptions, 'location' | 'language'>,
  fetchedAtMs: number,
  results: SearchResult[],
): SearchResponse {
  return {
    provider,
    platform,
    query,
    location: options.location ?? null,
    language: options.language ?? null,
    fetchedAt: new Date(fetchedAtMs).toISOString(),
    results,
  };
}
