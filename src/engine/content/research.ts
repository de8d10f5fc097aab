import { FetchError, type FetchedPage, type SearchResponse } from '../../providers/types.ts';
import { contentHash, type Analysis } from '../analysis/analysis.ts';
import type { Engine } from '../engine.ts';
import { documentKey } from '../rendering/document-key.ts';
import { PermanentError, RetryableError } from '../runner/types.ts';
import { headTerms, relevanceOf } from '../analysis/score/relevance.ts';
import type { ClientContext, ContentRequest, ImportedPage, Research, ResearchSource } from './types.ts';
import { importedMarkdown } from './import-page.ts';
import { countWords } from './extractive/text.ts';

/** Researched pages kept per job, and candidates tried to find them. */
export const MAX_SOURCES = 8;
/**
 * Relevant pages research needs: with fewer, a job or Autopilot run fails with `insufficient_research` (nothing is
 * charged) instead of writing about something else.
 */
export const MIN_RELEVANT_SOURCES = 2;
export const INSUFFICIENT_RESEARCH = 'insufficient_research';
/** How to give research more to work with, said in every insufficient_research message. */
export const RESEARCH_FIX =
  'Configure a search provider (SERP_PROVIDER) so research reads the live web, or add pages on the topic to the web archive with `agent-api archive add` or `agent-api archive import`. Nothing was charged.';
const MAX_CANDIDATES = 14;
const VIDEO_HOSTS = /(^|\.)(youtube\.com|youtu\.be|vimeo\.com|tiktok\.com)$/i;

const isHtml = (p: FetchedPage) =>
  p.status === 200 && (p.contentType === 'text/html' || p.contentType === 'application/xhtml+xml');

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return '';
  }
}

/**
 * The research step: search the topic on every requested platform, then fetch the result pages (web pages only;
 * videos are recorded but not read), skipping the client's own site and the page being optimised, and keep up to
 * MAX_SOURCES usable HTML pages with their extraction. `project_mode: optimize` also imports the source page.
 */
export async function research(
  engine: Engine,
  analysis: Analysis,
  request: ContentRequest,
  client: ClientContext,
  ctx: { signal: AbortSignal; idempotencyKey(part?: string): string },
): Promise<Research> {
  const { providers, limits } = engine;
  const responses: SearchResponse[] = await Promise.all(
    request.researchPlatforms.map((platform) =>
      limits.search.add(() =>
        providers.researchProvider(platform).search(request.topic, {
          platform,
          location: request.location,
          language: request.language,
          limit: 10,
          signal: ctx.signal,
          idempotencyKey: ctx.idempotencyKey(platform),
        }),
      ),
    ),
  );
  const skipped: Research['skipped'] = [];
  const own = client.domain ? hostOf(`https://${client.domain.replace(/^https?:\/\//, '')}`) : null;
  const seen = new Set(request.sourceUrl ? [documentKey(request.sourceUrl)] : []);
  const candidates: { url: string; title: string; platform: ResearchSource['platform']; position: number }[] = [];
  for (const r of responses) {
    for (const item of r.results) {
      const key = documentKey(item.url);
      if (seen.has(key)) continue;
      seen.add(key);
      const host = hostOf(item.url);
      if (VIDEO_HOSTS.test(host)) skipped.push({ url: item.url, reason: 'video result (not read)' });
      else if (own && (host === own || host.endsWith(`.${own}`)))
        skipped.push({ url: item.url, reason: "the client's own site" });
      else candidates.push({ url: item.url, title: item.title, platform: r.platform, position: item.position });
    }
  }

  const fetchPage = (url: string) => limits.fetch.add(() => providers.fetcher.fetch(url, { signal: ctx.signal }));
  const fetched = await Promise.all(
    candidates.slice(0, MAX_CANDIDATES).map(async (c) => {
      try {
        const page = await fetchPage(c.url);
        if (!isHtml(page))
          return {
            c,
            reason: page.status === 200 ? `not HTML (${page.contentType ?? 'no type'})` : `HTTP ${page.status}`,
          };
        return { c, page };
      } catch (err) {
        if (err instanceof FetchError) return { c, reason: `${err.code}: ${err.message}` };
        throw err;
      }
    }),
  );
  const sources: ResearchSource[] = [];
  // Only pages about the topic are research: Optimize's relevance test (docs/scoring.md) on title, H1 and opening.
  const head = headTerms(request.topic, request.language);
  let offTopic = 0;
  for (const f of fetched) {
    if (!('page' in f) || !f.page) {
      skipped.push({ url: f.c.url, reason: f.reason ?? 'unusable' });
      continue;
    }
    if (sources.length >= MAX_SOURCES) break;
    const extraction = analysis.extract(f.page.body, f.page.url);
    if (extraction.wordCount < 50) {
      skipped.push({ url: f.c.url, reason: 'too little main text' });
      continue;
    }
    const relevance = relevanceOf(extraction, head, request.language);
    if (!relevance.onTopic) {
      offTopic += 1;
      const missing = relevance.missing.length
        ? `: its title, H1 and opening lack ${relevance.missing.join(', ')}`
        : '';
      skipped.push({ url: f.c.url, reason: `off topic${missing}` });
      continue;
    }
    sources.push({
      id: sources.length + 1,
      url: f.c.url,
      title: extraction.title || f.c.title,
      platform: f.c.platform,
      position: f.c.position,
      contentHash: contentHash(f.page.body),
      wordCount: extraction.wordCount,
      extraction,
    });
  }

  let imported: ImportedPage | null = null;
  if (request.projectMode === 'optimize' && request.sourceUrl) {
    let page: FetchedPage;
    try {
      page = await fetchPage(request.sourceUrl);
    } catch (err) {
      if (err instanceof FetchError && (err.code === 'timeout' || err.code === 'network'))
        throw new RetryableError(`The source page could not be fetched: ${err.message}`);
      throw new PermanentError(
        `The source page could not be imported: ${err instanceof Error ? err.message : 'fetch failed'}.`,
      );
    }
    if (!isHtml(page))
      throw new PermanentError(
        `The source page could not be imported: it answered ${page.status === 200 ? `${page.contentType ?? 'no content type'}, not HTML` : `HTTP ${page.status}`}.`,
      );
    const e = analysis.extract(page.body, page.url);
    // The main content only: a forum thread keeps every post (the question first), no block twice.
    const markdown = importedMarkdown(e, { html: page.body, url: page.url });
    imported = {
      url: request.sourceUrl,
      title: e.title,
      markdown,
      wordCount: countWords(markdown),
      contentHash: contentHash(page.body),
    };
  }

  if (sources.length < MIN_RELEVANT_SOURCES) throw insufficientResearch(request, sources.length, offTopic);
  return {
    query: request.topic,
    searches: responses.map((r) => ({
      platform: r.platform,
      provider: r.provider,
      fetchedAt: r.fetchedAt,
      results: r.results.map((x) => ({ position: x.position, url: x.url, title: x.title })),
    })),
    sources,
    skipped,
    imported,
  };
}

/** The failure of research that found too few pages about the topic: what happened and how to fix it. */
function insufficientResearch(request: ContentRequest, relevant: number, offTopic: number): PermanentError {
  const found = relevant === 0 ? 'no page' : `only ${relevant} ${relevant === 1 ? 'page' : 'pages'}`;
  const others =
    offTopic > 0 ? ` (${offTopic} other ${offTopic === 1 ? 'page was' : 'pages were'} about something else)` : '';
  return new PermanentError(
    `Research found ${found} about "${request.topic}" on ${request.researchPlatforms.join(', ')}${others}; at least ${MIN_RELEVANT_SOURCES} are needed. ` +
      RESEARCH_FIX,
    { code: INSUFFICIENT_RESEARCH },
  );
}

/** Research without the page extractions: what the artifacts keep. */
export function researchSummary(r: Research) {
  return {
    query: r.query,
    searches: r.searches,
    sources: r.sources.map((s) => ({
      id: s.id,
      url: s.url,
      title: s.title,
      platform: s.platform,
      position: s.position,
      contentHash: s.contentHash,
      wordCount: s.wordCount,
    })),
    skipped: r.skipped,
    imported: r.imported
      ? {
          url: r.imported.url,
          title: r.imported.title,
          wordCount: r.imported.wordCount,
          contentHash: r.imported.contentHash,
        }
      : null,
  };
}
