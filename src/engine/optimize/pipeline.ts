import { iso } from '../../clock.ts';
import { FetchError, type FetchErrorCode, type FetchedPage, type SearchResult } from '../../providers/types.ts';
import type { OptimizationStage } from '../../store/schema.ts';
import { OPTIMIZATION_KIND, optimizationStartedAt, updateOptimization } from '../../store/repos/optimizations.ts';
import { contentHash } from '../analysis/analysis.ts';
import type { Extraction } from '../analysis/extract/types.ts';
import type { DocumentTerms } from '../analysis/terms/types.ts';
import { SCORING_VERSION, scoreCompetitors, scorePage } from '../analysis/score/index.ts';
import type { Engine } from '../engine.ts';
import { documentKey } from '../document-key.ts';
import { definePipeline, PermanentError, RetryableError, type Pipeline, type StepContext } from '../runner/types.ts';

export interface OptimizationInput {
  url: string;
  keyword: string;
  language: string;
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
}

/** What the score step hands to onComplete: the result and the evidence, written to the optimization row. */
interface ScoreOutput {
  result: ReturnType<typeof scorePage> & {
    competitorCount: number;
    competitors: { url: string; title: string; position: number | null; wordCount: number; score: number }[];
    scoringVersion: string;
  };
  evidence: Record<string, unknown>;
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
          const self = documentKey(input.url);
          const seen = new Set([self]);
          const targets = search.results.filter((r) => {
            const k = documentKey(r.url);
            if (seen.has(k)) return false;
            seen.add(k);
            return true;
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
          return { page, competitors };
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
          const used = fetched.competitors.filter((c) => c.ok);
          if (used.length === 0) {
            throw new PermanentError(
              search.results.length === 0
                ? `The search for "${input.keyword}" returned no ranking pages to compare with.`
                : 'None of the ranking pages could be fetched, so there is nothing to compare with.',
            );
          }
          const source = analysis.analyze(
            input.url,
            fetched.page.extraction!,
            input.language,
            fetched.page.terms ?? undefined,
          );
          const comps = used.map((c) => analysis.analyze(c.url, c.extraction!, input.language, c.terms ?? undefined));
          const scored = scorePage(analysis.analyzer, source, comps, input.keyword, input.language);
          const compScores = scoreCompetitors(analysis.analyzer, comps, input.keyword, input.language);
          const p = fetched.page;
          const ex = p.extraction!;
          return {
            result: {
              ...scored,
              competitorCount: used.length,
              competitors: used.map((c, i) => ({
                url: c.url,
                title: c.extraction!.title,
                position: c.position,
                wordCount: c.extraction!.wordCount,
                score: compScores[i]!,
              })),
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
              competitors: fetched.competitors.map((c) => ({
                url: c.url,
                position: c.position,
                included: c.ok,
                status: c.status,
                finalUrl: c.finalUrl,
                contentHash: c.contentHash,
                fetchedAt: c.fetchedAt,
                source: c.source,
                reason: c.reason,
              })),
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
