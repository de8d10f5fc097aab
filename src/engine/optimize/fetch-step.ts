import { FetchError, type FetchErrorCode, type FetchedPage } from '../../providers/types.ts';
import { contentHash } from '../analysis/analysis.ts';
import { classifyPage } from '../analysis/page-type/index.ts';
import type { Engine } from '../engine.ts';
import { PermanentError, RetryableError } from '../runner/types.ts';
import { MAX_PER_SITE, preselect } from './competitors.ts';
import type { Ctx, FetchedDoc, FetchOutput } from './pipeline-types.ts';

type FetchDeps = Pick<Engine, 'providers' | 'analysis' | 'limits'>;

/** The failed fetch in words, for the saved error of a run whose page could not be fetched. */
const FAILURE_PHRASE: Record<FetchErrorCode, string> = {
  blocked: 'was blocked by the address policy',
  invalid_url: 'is not a valid URL',
  unsupported_scheme: 'is not an http(s) URL',
  timeout: 'timed out',
  too_large: 'is larger than the size limit',
  too_many_redirects: 'redirected too many times',
  network: 'could not be reached',
  not_archived: 'is not in the web archive (offline mode)',
};

function isHtml(page: FetchedPage): boolean {
  return page.contentType === 'text/html' || page.contentType === 'application/xhtml+xml';
}

/**
 * Fetches one page (the target or a competitor) and, as it arrives, reads its page type (once per page: the score
 * step reuses it) and analyses its terms (unless `terms` is false: a page fetched only for its type); a failed fetch
 * is recorded.
 */
export async function fetchDoc(
  { providers, analysis, limits }: FetchDeps,
  ctx: Pick<Ctx, 'signal'>,
  url: string,
  position: number | null,
  language: string,
  { terms = true }: { terms?: boolean } = {},
): Promise<FetchedDoc> {
  const base: FetchedDoc = {
    url,
    position,
    ok: false,
    status: null,
    finalUrl: null,
    contentType: null,
    contentHash: null,
    fetchedAt: null,
    source: null,
    reason: null,
    extraction: null,
    terms: null,
  };
  try {
    const page = await limits.fetch.add(() => providers.fetcher.fetch(url, { signal: ctx.signal }));
    const doc = {
      ...base,
      status: page.status,
      finalUrl: page.url,
      contentType: page.contentType,
      contentHash: contentHash(page.body),
      fetchedAt: page.fetchedAt,
      source: page.source,
    };
    if (page.status !== 200) return { ...doc, reason: `answered HTTP ${page.status}` };
    if (!isHtml(page)) return { ...doc, reason: `is not HTML (${page.contentType ?? 'no content type'})` };
    const extraction = analysis.extract(page.body, page.url);
    const { type, confidence } = classifyPage(extraction);
    return {
      ...doc,
      ok: true,
      extraction,
      terms: terms ? analysis.terms(extraction, language) : null,
      pageType: { type, confidence: Math.round(confidence * 1000) / 1000 },
    };
  } catch (err) {
    if (err instanceof FetchError) return { ...base, reason: `${err.code}: ${err.message}`, failure: err.code };
    throw err;
  }
}

/**
 * The fetch step: the page, the preselected competitors and the best-ranked results of the page's own site (at most
 * MAX_PER_SITE) at once; a page that cannot be analysed fails the run. The own-site results stay excluded as
 * same_site and count nowhere; they are fetched only to read their page type, so that the page_type advice can name
 * the page of the site that already fits the search intent (search-intent.ts) instead of guessing from a title.
 */
export async function fetchPages(engine: FetchDeps, ctx: Ctx): Promise<FetchOutput> {
  const { input } = ctx;
  const search = ctx.output('search');
  const { targets, excluded } = preselect(search.results, {
    pageUrl: input.url,
    excludeDomains: input.excludeDomains ?? [],
    allowSameSite: input.forceCompetitors === true,
  });
  const ownSite = excluded.filter((e) => e.reason === 'same_site').slice(0, MAX_PER_SITE);
  const [page, ...others] = await Promise.all([
    fetchDoc(engine, ctx, input.url, null, input.language),
    ...targets.map((t) => fetchDoc(engine, ctx, t.url, t.position, input.language)),
    ...ownSite.map((t) => fetchDoc(engine, ctx, t.url, t.position, input.language, { terms: false })),
  ]);
  const competitors = others.slice(0, targets.length);
  const sameSite = others.slice(targets.length);
  if (!page!.ok) {
    const reason = `The page could not be analysed: it ${page!.failure ? `${FAILURE_PHRASE[page!.failure]} (${page!.reason})` : page!.reason}.`;
    // A server error or rate limit from the page's site is as temporary as a timeout: retry it.
    const status = page!.status;
    const transient =
      page!.failure === 'timeout' ||
      page!.failure === 'network' ||
      (status !== null && (status >= 500 || status === 429));
    throw transient ? new RetryableError(reason) : new PermanentError(reason);
  }
  return { page, competitors, excluded, sameSite };
}
