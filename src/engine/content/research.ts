import { FetchError, type FetchedPage, type SearchResponse } from '../../providers/types.ts';
import { contentHash, type Analysis } from '../analysis/analysis.ts';
import type { Extraction } from '../analysis/extract/types.ts';
import type { Engine } from '../engine.ts';
import { documentKey } from '../document-key.ts';
import { PermanentError, RetryableError } from '../runner/types.ts';
import type { ClientContext, ContentRequest, ImportedPage, Research, ResearchSource } from './types.ts';

/** Researched pages kept per job, and candidates tried to find them. */
export const MAX_SOURCES = 8;
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

/** The imported page as markdown: its title as H1, then its main text with its headings marked. */
export function extractionToMarkdown(e: Extraction): string {
  const headings = new Map(e.headings.map((h) => [h.text.trim(), h.level]));
  const lines = [`# ${e.h1 || e.title}`];
  for (const raw of e.mainText.split('\n')) {
    const line = raw.trim();
    if (!line || line === (e.h1 || e.title)) continue;
    const level = headings.get(line);
    lines.push(level && level > 1 ? `${'#'.repeat(Math.min(3, level))} ${line}` : line);
  }
  return lines.join('\n\n');
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
    imported = {
      url: request.sourceUrl,
      title: e.title,
      markdown: extractionToMarkdown(e),
      wordCount: e.wordCount,
      contentHash: contentHash(page.body),
    };
  }

  if (sources.length === 0 && !imported && !request.draftBody) {
    throw new PermanentError(
      `Research found no usable pages for "${request.topic}" on ${request.researchPlatforms.join(', ')}.`,
    );
  }
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
