/**
 * Which ranking pages are competitors (docs/scoring.md, "Which pages are competitors"). Before fetching: the scored
 * page itself, pages of its own site and of domains the caller excluded. After fetching: pages that could not be
 * fetched or are not HTML, pages that fail the relevance test, pages of another kind than the search intent
 * (search-intent.ts), and pages beyond two per site. Every page left out is listed with its reason; none of them
 * counts anywhere.
 */
import { hostOf } from '../analysis/extract/urls.ts';
import { registrableDomain } from '../analysis/site.ts';
import type { Extraction } from '../analysis/extract/types.ts';
import {
  PROMINENT_SHARE,
  RELEVANCE_THRESHOLD,
  relevanceOf,
  type HeadTerms,
  type Relevance,
} from '../analysis/score/relevance.ts';
import type { PageType } from '../analysis/page-type/index.ts';
import { documentKey } from '../rendering/document-key.ts';
import { isMismatch, mismatchDetail, searchIntent, type SearchIntent } from './search-intent.ts';

export { EXCLUSION_REASONS, type ExclusionReason } from './exclusions.ts';
import type { ExclusionReason } from './exclusions.ts';

export interface ExcludedCompetitor {
  url: string;
  position: number | null;
  reason: ExclusionReason;
  /** Why, in words. */
  detail: string;
  /** Its page type, when it was fetched and read. */
  page_type?: PageType;
}

/** Pages kept per site (registrable domain). */
export const MAX_PER_SITE = 2;
/** Below this many competitors a result is marked `confidence: "low"`. */
export const MIN_CONFIDENT_COMPETITORS = 3;

export interface Candidate {
  url: string;
  position: number | null;
}

/**
 * The site of a URL: its host's registrable domain by the Public Suffix List (`a.github.io` and `b.github.io` are two
 * sites, `www.bbc.co.uk` and `news.bbc.co.uk` one); an IP address or `localhost` is its own site. '' when the URL has
 * no host.
 */
export function siteOf(url: string): string {
  const host = hostOf(url);
  return host ? registrableDomain(host) : '';
}

/** A host or domain as a caller wrote it (`www.Example.com`, `https://example.com/x`) as a registrable domain. */
export function domainOf(input: string): string {
  const trimmed = input.trim().toLowerCase();
  const host = /^[a-z][a-z0-9+.-]*:\/\//.test(trimmed) ? hostOf(trimmed) : trimmed.split('/')[0]!.split(':')[0]!;
  return host ? registrableDomain(host) : '';
}

/**
 * Drops, before any fetch: repeats of a URL, the scored page, pages of its site (unless `allowSameSite`) and of
 * excluded domains.
 */
export function preselect(
  candidates: readonly Candidate[],
  options: { pageUrl: string; excludeDomains: readonly string[]; allowSameSite: boolean },
): { targets: Candidate[]; excluded: ExcludedCompetitor[] } {
  const self = documentKey(options.pageUrl);
  const ownSite = siteOf(options.pageUrl);
  const excludedDomains = new Set(options.excludeDomains.map(domainOf).filter(Boolean));
  const seen = new Set([self]);
  const targets: Candidate[] = [];
  const excluded: ExcludedCompetitor[] = [];
  for (const { url, position } of candidates) {
    const c = { url, position };
    const key = documentKey(c.url);
    if (seen.has(key)) continue;
    seen.add(key);
    const site = siteOf(c.url);
    if (site && site === ownSite && !options.allowSameSite) {
      excluded.push({ ...c, reason: 'same_site', detail: `${site} is the scored page's own site` });
    } else if (site && excludedDomains.has(site)) {
      excluded.push({ ...c, reason: 'excluded_domain', detail: `${site} is in exclude_domains` });
    } else {
      targets.push(c);
    }
  }
  return { targets, excluded };
}

/** Why a page failed the relevance test, in words. */
function offTopicDetail(r: Relevance, head: HeadTerms): string {
  const parts: string[] = [];
  if (r.prominent < PROMINENT_SHARE && r.missing.length) {
    parts.push(`its title, H1 and opening lack ${r.missing.map((w) => `"${w}"`).join(', ')}`);
  }
  if (r.score < RELEVANCE_THRESHOLD) parts.push(`its relevance ${r.score} is below ${RELEVANCE_THRESHOLD}`);
  if (!r.compound && r.prominent < 1) {
    const words = head.compounds.map(
      ([a, b]) => `"${head.words[head.stems.indexOf(a)]} ${head.words[head.stems.indexOf(b)]}"`,
    );
    parts.push(`its title, H1 and opening never use ${words.join(' or ')}`);
  }
  return `not about the keyword: ${parts.join('; ')}`;
}

/** A fetched candidate: its extraction when usable, else why not; its page type when it was read. */
export interface FetchedCandidate extends Candidate {
  extraction: Extraction | null;
  failure: { reason: 'unfetchable' | 'not_html'; detail: string } | null;
  pageType?: { type: PageType; confidence: number } | null;
}

/** The page type of an excluded entry, when known. */
function typeField(page: FetchedCandidate): { page_type?: PageType } {
  return page.pageType ? { page_type: page.pageType.type } : {};
}

/**
 * Keeps the fetched candidates that are real competitors, in rank order: fetched HTML, on topic (unless `force`), of
 * the search intent's kind when the intent is dominant (unless `force`), at most MAX_PER_SITE per site (unless
 * `force`). Answers the kept ones, their relevance, the excluded ones with reasons, and the search intent of the
 * relevant ones (those on topic; null when none has a known type).
 *
 * The intent is read before the type and per-site rules: it counts the first MAX_PER_SITE relevant pages of each site,
 * so the pages of the intent's type it counts are the ones the per-site cap keeps, and a dominant intent (3 pages or
 * more) always leaves at least 3 competitors.
 */
export function selectCompetitors<T extends FetchedCandidate>(
  fetched: readonly T[],
  options: { head: HeadTerms; language: string; force: boolean },
): { kept: { page: T; relevance: Relevance }[]; excluded: ExcludedCompetitor[]; intent: SearchIntent | null } {
  const ranked = [...fetched].sort(
    (a, b) => (a.position ?? Number.MAX_SAFE_INTEGER) - (b.position ?? Number.MAX_SAFE_INTEGER),
  );
  const relevant: { page: T; relevance: Relevance }[] = [];
  const excluded: ExcludedCompetitor[] = [];
  for (const page of ranked) {
    const base = { url: page.url, position: page.position };
    if (page.failure || !page.extraction) {
      const f = page.failure ?? { reason: 'unfetchable' as const, detail: 'no content' };
      excluded.push({ ...base, reason: f.reason, detail: f.detail });
      continue;
    }
    const relevance = relevanceOf(page.extraction, options.head, options.language);
    if (!relevance.onTopic && !options.force) {
      excluded.push({
        ...base,
        reason: 'off_topic',
        detail: offTopicDetail(relevance, options.head),
        ...typeField(page),
      });
      continue;
    }
    relevant.push({ page, relevance });
  }
  const intent = searchIntent(
    relevant.flatMap(({ page }) =>
      page.pageType ? [{ ...page.pageType, position: page.position, site: siteOf(page.url) }] : [],
    ),
    MAX_PER_SITE,
  );
  const perSite = new Map<string, number>();
  const kept: { page: T; relevance: Relevance }[] = [];
  for (const { page, relevance } of relevant) {
    const base = { url: page.url, position: page.position };
    if (!options.force && intent && page.pageType && isMismatch(intent, page.pageType)) {
      const detail = mismatchDetail(page.pageType.type, intent);
      excluded.push({ ...base, reason: 'page_type_mismatch', detail, ...typeField(page) });
      continue;
    }
    const site = siteOf(page.url);
    const n = perSite.get(site) ?? 0;
    if (n >= MAX_PER_SITE && !options.force) {
      const detail = `${MAX_PER_SITE} pages of ${site} are already compared`;
      excluded.push({ ...base, reason: 'domain_cap', detail, ...typeField(page) });
      continue;
    }
    perSite.set(site, n + 1);
    kept.push({ page, relevance });
  }
  return { kept, excluded, intent };
}
