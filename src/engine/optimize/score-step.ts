import { buildCompetitorModel, SCORING_VERSION, scoreAgainstModel, scoreCompetitors } from '../analysis/score/index.ts';
import { headTerms } from '../analysis/score/relevance.ts';
import type { Engine } from '../engine.ts';
import { PermanentError } from '../runner/types.ts';
import { MIN_CONFIDENT_COMPETITORS, selectCompetitors, type ExcludedCompetitor } from './competitors.ts';
import type { Ctx, FetchOutput, ScoreOutput, SearchOutput } from './pipeline-types.ts';

const REASON_WORDS: Record<ExcludedCompetitor['reason'], string> = {
  same_site: "on the page's own site",
  excluded_domain: 'on an excluded domain',
  domain_cap: 'over the two-per-site cap',
  off_topic: 'off topic',
  unfetchable: 'unfetchable',
  not_html: 'not HTML',
};

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

/** The evidence written beside the result: the search, the page's fetch and extraction, and every candidate's fate. */
function evidenceOf(search: SearchOutput, fetched: FetchOutput, excluded: readonly ExcludedCompetitor[]) {
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
    },
    competitors: fetched.competitors.map((c) => {
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
      };
    }),
    scoringVersion: SCORING_VERSION,
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
  const excluded = [...fetched.excluded, ...selection.excluded].sort(
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
  return {
    model,
    result: {
      ...scored,
      competitorCount: used.length,
      competitors: selection.kept.map(({ page: c, relevance }, i) => ({
        url: c.url,
        title: c.extraction!.title,
        position: c.position,
        wordCount: c.extraction!.wordCount,
        score: compScores[i]!,
        relevance: relevance.score,
      })),
      excluded_competitors: excluded,
      confidence: low ? ('low' as const) : ('normal' as const),
      warnings: low ? [lowConfidence(input.keyword, used.length, excluded)] : [],
      scoringVersion: SCORING_VERSION,
    },
    evidence: evidenceOf(search, fetched, excluded),
  };
}
