import { iso } from '../../clock.ts';
import { FetchError, type FetchErrorCode, type FetchedPage, type SearchResult } from '../../providers/types.ts';
import type { OptimizationStage } from '../../store/schema.ts';
import { OPTIMIZATION_KIND, optimizationStartedAt, updateOptimization } from '../../store/repos/optimizations.ts';
import { contentHash } from '../analysis/analysis.ts';
import type { Extraction } from '../analysis/extract/types.ts';
import type { DocumentTerms } from '../analysis/terms/types.ts';
import {
  buildCompetitorModel,
  SCORING_VERSION,
  scoreAgainstModel,
  scoreCompetitors,
  type CompetitorModel,
  type ScoreResult,
} from '../analysis/score/index.ts';
import { headTerms } from '../analysis/score/relevance.ts';
import { MIN_CONFIDENT_COMPETITORS, preselect, selectCompetitors, type ExcludedCompetitor } from './competitors.ts';
import type { Engine } from '../engine.ts';
import { definePipeline, PermanentError, RetryableError, type Pipeline, type StepContext } from '../runner/types.ts';

export interface OptimizationInput {
  url: string;
  keyword: string;
  language: string;
  /** Domains whose pages are never competitors. */
  excludeDomains?: string[];
  /** Pages that replace the search results as the candidate set. */
  competitorUrls?: string[];
  /** Keep every fetched candidate of competitorUrls: no relevance test, no per-site cap, same site allowed. */
  forceCompetitors?: boolean;
}

interface SearchOutput {
  provider: string;
  query: string;
  language: string;
  fetchedAt: string;
  results: SearchResult[];
}

interface FetchedDoc {
  url: string;
  position: number | null;
  ok: boolean;
  status: number | null;
  finalUrl: string | null;
  contentType: string | null;
  contentHash: string | null;
  fetchedAt: string | null;
  source: string | null;
  /** Why the page is not used, when ok is false (`<fetch error code>: <message>` for fetch failures). */
  reason: string | null;
  /** The fetch error code, when the fetch itself failed. */
  failure?: FetchErrorCode;
  extraction: Extraction | null;
  /** Term analysis, done as the page arrives so it overlaps the wait for slower pages. */
  terms: DocumentTerms | null;
}

interface FetchOutput {
  page: FetchedDoc;
  competitors: FetchedDoc[];
  /** Candidates left out before fetching (the page's own site, excluded domains). */
  excluded: ExcludedCompetitor[];
}

/** What the score step hands to onComplete: the result, the evidence and the model, written to the row. */
interface ScoreOutput {
  result: ScoreResult & {
    competitorCount: number;
    competitors: {
      url: string;
      title: string;
      position: number | null;
      wordCount: number;
      score: number;
      relevance: number;
    }[];
    excluded_competitors: ExcludedCompetitor[];
    confidence: 'normal' | 'low';
    warnings: string[];
    scoringVersion: string;
  };
  evidence: Record<string, unknown>;
  model: CompetitorModel;
}

/** The optimization pipeline's step outputs by step name. */
type OptimizationOutputs = {
  search: SearchOutput;
  fetch: FetchOutput;
  score: ScoreOutput;
};

type Ctx = StepContext<OptimizationInput, OptimizationOutputs>;

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

/** Recommendations the summary view carries. */
export const SUMMARY_RECOMMENDATIONS = 5;

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

/** The optimization pipeline: search the keyword, fetch the page and its competitors, score. */
export function optimizationPipeline(engine: Engine): Pipeline {
  const { providers, analysis, limits } = engine;

  async function fetchDoc(ctx: Ctx, url: string, position: number | null, language: string): Promise<FetchedDoc> {
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
      return { ...doc, ok: true, extraction, terms: analysis.terms(extraction, language) };
    } catch (err) {
      if (err instanceof FetchError) return { ...base, reason: `${err.code}: ${err.message}`, failure: err.code };
      throw err;
    }
  }

  return definePipeline<OptimizationStage, OptimizationInput, OptimizationOutputs>({
    kind: OPTIMIZATION_KIND,
    steps: [
      {
        name: 'search',
        stage: 'searching',
        transient: true,
        async run(ctx) {
          const { input } = ctx;
          if (input.competitorUrls?.length) {
            // The caller's candidates replace the search: no provider is asked.
            return {
              provider: 'competitor_urls',
              query: input.keyword,
              language: input.language,
              fetchedAt: iso(engine.clock.now()),
              results: input.competitorUrls.map((url, i) => ({ position: i + 1, url, title: '', snippet: '' })),
            };
          }
          const provider = providers.researchProvider('organic');
          const r = await limits.search.add(() =>
            provider.search(input.keyword, {
              platform: 'organic',
              language: input.language,
              limit: 10,
              signal: ctx.signal,
              idempotencyKey: ctx.idempotencyKey(),
            }),
          );
          return {
            provider: r.provider,
            query: input.keyword,
            language: input.language,
            fetchedAt: r.fetchedAt,
            results: r.results.slice(0, 10),
          };
        },
      },
      {
        name: 'fetch',
        stage: 'fetching',
        transient: true,
        async run(ctx) {
          const { input } = ctx;
          const search = ctx.output('search');
          const { targets, excluded } = preselect(search.results, {
            pageUrl: input.url,
            excludeDomains: input.excludeDomains ?? [],
            allowSameSite: input.forceCompetitors === true,
          });
          const [page, ...competitors] = await Promise.all([
            fetchDoc(ctx, input.url, null, input.language),
            ...targets.map((t) => fetchDoc(ctx, t.url, t.position, input.language)),
          ]);
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
          return { page, competitors, excluded };
        },
      },
      {
        name: 'score',
        stage: 'scoring',
        // onComplete writes the result and evidence to the optimization row.
        transient: true,
        async run(ctx) {
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
          const source = analysis.analyze(
            input.url,
            fetched.page.extraction!,
            input.language,
            fetched.page.terms ?? undefined,
          );
          const comps = used.map((c) => analysis.analyze(c.url, c.extraction!, input.language, c.terms ?? undefined));
          const model = buildCompetitorModel(analysis.analyzer, comps, input.keyword, input.language);
          const scored = scoreAgainstModel(analysis.analyzer, source, model);
          const compScores = scoreCompetitors(analysis.analyzer, comps, input.keyword, input.language);
          const low = used.length < MIN_CONFIDENT_COMPETITORS;
          const p = fetched.page;
          const ex = p.extraction!;
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
            evidence: {
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
            },
          };
        },
      },
    ],
    async enterStage(ctx, stage) {
      const startedAt = await optimizationStartedAt(ctx.trx, ctx.resourceId);
      await updateOptimization(
        ctx.trx,
        ctx.resourceId,
        { status: 'running', stage, started_at: startedAt ?? ctx.now },
        ctx.now,
      );
    },
    async onComplete(ctx) {
      const out = ctx.output('score');
      const duration = ctx.now - ((await optimizationStartedAt(ctx.trx, ctx.resourceId)) ?? ctx.now);
      await updateOptimization(
        ctx.trx,
        ctx.resourceId,
        {
          status: 'complete',
          stage: null,
          completed_at: ctx.now,
          score: out.result.rankabilityScore,
          source_word_count: out.result.sourceWordCount,
          competitor_count: out.result.competitorCount,
          duration_ms: duration,
          result: JSON.stringify({ ...out.result, duration }),
          evidence: JSON.stringify({ ...out.evidence, completedAt: iso(ctx.now) }),
          scoring_model: JSON.stringify(out.model),
          summary_extras: JSON.stringify({
            recommendations: out.result.recommendations.slice(0, SUMMARY_RECOMMENDATIONS),
            confidence: out.result.confidence,
            warnings: out.result.warnings,
          }),
        },
        ctx.now,
      );
      await engine.usage.chargeOrDefer(ctx.trx, OPTIMIZATION_KIND, ctx.resourceId);
    },
    async onFail(ctx, message) {
      await updateOptimization(
        ctx.trx,
        ctx.resourceId,
        { status: 'failed', stage: null, error: message, completed_at: ctx.now },
        ctx.now,
      );
      await engine.usage.release(ctx.trx, OPTIMIZATION_KIND, ctx.resourceId);
    },
  });
}
