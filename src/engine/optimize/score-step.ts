import { buildCompetitorModel, scoreAgainstModel, scoreCompetitors } from '../analysis/score/index.ts';
import { headTerms } from '../analysis/score/relevance.ts';
import type { Engine } from '../engine.ts';
import { PermanentError } from '../runner/types.ts';
import { MIN_CONFIDENT_COMPETITORS, selectCompetitors, siteOf, type ExcludedCompetitor } from './competitors.ts';
import type { Ctx, FetchedDoc, FetchOutput, ScoreOutput, SearchOutput } from './pipeline-types.ts';
import { pageTypeRecommendation, type OwnSiteResult, type PageTypeOf, type SearchIntent } from './search-intent.ts';

const REASON_WORDS: Record<ExcludedCompetitor['reason'], string> = {
  same_site: "on the page's own site",
  excluded_domain: 'on an excluded domain',
  domain_cap: 'over the two-per-site cap',
  off_topic: 'off topic',
  unfetchable: 'unfetchable',
  not_html: 'not HTML',
  page_type_mismatch: 'of another page type than the search intent',
};

const byRank = (a: { position: number | null }, b: { position: number | null }) =>
  (a.position ?? Number.MAX_SAFE_INTEGER) - (b.position ?? Number.MAX_SAFE_INTEGER);

/** A fetched page's type as the result and the evidence record it; nothing when it was not read. */
function typeOf(doc: Pick<FetchedDoc, 'pageType'>): Partial<PageTypeOf> {
  return doc.pageType ? { page_type: doc.pageType.type, page_type_confidence: doc.pageType.confidence } : {};
}

/**
 * The page's own-site results whose type is known: the same_site results fetched for their type, and the own-site
 * candidates `force_competitors` kept. The page_type advice names one only from these, never from a title or a URL.
 */
function ownSiteResults(fetched: FetchOutput, pageUrl: string): OwnSiteResult[] {
  const site = siteOf(pageUrl);
  const docs = [...(fetched.sameSite ?? []), ...fetched.competitors.filter((c) => site && siteOf(c.url) === site)];
  return docs.flatMap((d) => (d.ok && d.pageType ? [{ url: d.url, position: d.position, type: d.pageType.type }] : []));
}

/** The same_site exclusions with the type of those fetched for it. */
function withOwnSiteTypes(excluded: readonly ExcludedCompetitor[], fetched: FetchOutput): ExcludedCompetitor[] {
  const types = new Map((fetched.sameSite ?? []).flatMap((d) => (d.pageType ? [[d.url, d.pageType.type]] : [])));
  return excluded.map((e) => {
    const type = e.reason === 'same_site' ? types.get(e.url) : undefined;
    return type ? { ...e, page_type: type } : e;
  });
}

/** "3 off topic, 1 on the page's own site": the exclusions counted by reason. */
function exclusionSummary(excluded: readonly ExcludedCompetitor[]): string {
  const counts = new Map<string, number>();
  for (const e of excluded) counts.set(REASON_WORDS[e.reason], (counts.get(REASON_WORDS[e.reason]) ?? 0) + 1);
  return [...counts].map(([why, n]) => `${n} ${why}`).join(', ');
}

function noCompetitors(keyword: string, results: number, excluded: readonly ExcludedCompetitor[]): string {
  if (results === 0) return `The search for "${keyword}" returned no ranking pages to compare with.`;
  return `None of the ${results} ranking pages for "${keyword}" is a competitor to compare with (${exclusionSummary(excluded)}).`;
}

function lowConfidence(keyword: string, used: number, excluded: readonly ExcludedCompetitor[]): string {
  const why = excluded.length ? ` (left out: ${exclusionSummary(excluded)})` : '';
  return `Only ${used} ranking ${used === 1 ? 'page is' : 'pages are'} about "${keyword}"${why}; the score and advice rest on fewer than ${MIN_CONFIDENT_COMPETITORS} competitors.`;
}

/**
 * The evidence written beside the result: the search, the page's fetch, extraction and type, every candidate's fate
 * and type (the own-site results fetched for their type among them, never included), and the search intent.
 */
function evidenceOf(
  search: SearchOutput,
  fetched: FetchOutput,
  excluded: readonly ExcludedCompetitor[],
  intent: SearchIntent | null,
) {
  const p = fetched.page;
  const ex = p.extraction!;
  return {
    search: {
      provider: search.provider,
      platform: 'organic',
      query: search.query,
      language: search.language,
      fetchedAt: search.fetchedAt,
      results: search.results.map((r) => ({ position: r.position, url: r.url, title: r.title })),
    },
    page: {
      url: p.url,
      finalUrl: p.finalUrl,
      status: p.status,
      contentHash: p.contentHash,
      fetchedAt: p.fetchedAt,
      source: p.source,
      title: ex.title,
      h1: ex.h1,
      metaDescription: ex.metaDescription,
      canonical: ex.canonical,
      lang: ex.lang,
      wordCount: ex.wordCount,
      headings: ex.headings.length,
      paragraphs: ex.paragraphs.length,
      lists: ex.lists.length,
      tables: ex.tables.length,
      images: ex.images.length,
      links: ex.links.length,
      ...typeOf(p),
    },
    competitors: [...fetched.competitors, ...(fetched.sameSite ?? [])].sort(byRank).map((c) => {
      const out = excluded.find((e) => e.url === c.url);
      return {
        url: c.url,
        position: c.position,
        included: !out,
        status: c.status,
        finalUrl: c.finalUrl,
        contentHash: c.contentHash,
        fetchedAt: c.fetchedAt,
        source: c.source,
        reason: c.reason ?? out?.detail ?? null,
        excludedAs: out?.reason ?? null,
        ...typeOf(c),
      };
    }),
    ...(intent ? { search_intent: intent } : {}),
  };
}

/** The score step: the competitors kept, the model built from them, the page scored against it, and the evidence. */
export function scorePageStep({ analysis }: Pick<Engine, 'analysis'>, ctx: Ctx): ScoreOutput {
  const { input } = ctx;
  const search = ctx.output('search');
  const fetched = ctx.output('fetch');
  const head = headTerms(input.keyword, input.language);
  const selection = selectCompetitors(
    fetched.competitors.map((c) => ({
      ...c,
      failure: c.ok
        ? null
        : {
            reason: c.failure || c.status !== 200 ? ('unfetchable' as const) : ('not_html' as const),
            detail: c.reason ?? 'could not be fetched',
          },
    })),
    { head, language: input.language, force: input.forceCompetitors === true },
  );
  const excluded = [...withOwnSiteTypes(fetched.excluded, fetched), ...selection.excluded].sort(
    (a, b) => (a.position ?? 99) - (b.position ?? 99) || (a.url < b.url ? -1 : 1),
  );
  const used = selection.kept.map((k) => k.page);
  if (used.length === 0) {
    throw new PermanentError(noCompetitors(input.keyword, search.results.length, excluded));
  }
  const source = analysis.analyze(input.url, fetched.page.extraction!, input.language, fetched.page.terms ?? undefined);
  const comps = used.map((c) => analysis.analyze(c.url, c.extraction!, input.language, c.terms ?? undefined));
  const model = buildCompetitorModel(analysis.analyzer, comps, input.keyword, input.language);
  const scored = scoreAgainstModel(analysis.analyzer, source, model);
  const compScores = scoreCompetitors(analysis.analyzer, comps, input.keyword, input.language);
  const low = used.length < MIN_CONFIDENT_COMPETITORS;
  const { intent } = selection;
  const pageType = fetched.page.pageType;
  const advice =
    pageType &&
    pageTypeRecommendation(input.keyword, pageType, intent, ownSiteResults(fetched, input.url), scored.recommendations);
  return {
    model,
    result: {
      ...scored,
      // The page_type advice goes first: it carries the list's largest points (search-intent.ts).
      recommendations: advice ? [advice, ...scored.recommendations] : scored.recommendations,
      ...typeOf(fetched.page),
      competitorCount: used.length,
      competitors: selection.kept.map(({ page: c, relevance }, i) => ({
        url: c.url,
        title: c.extraction!.title,
        position: c.position,
        wordCount: c.extraction!.wordCount,
        score: compScores[i]!,
        relevance: relevance.score,
        ...typeOf(c),
      })),
      excluded_competitors: excluded,
      ...(intent ? { search_intent: intent } : {}),
      confidence: low ? ('low' as const) : ('normal' as const),
      warnings: low ? [lowConfidence(input.keyword, used.length, excluded)] : [],
      scoringVersion: scored.scoringVersion,
    },
    evidence: { ...evidenceOf(search, fetched, excluded, intent), scoringVersion: scored.scoringVersion },
  };
}
