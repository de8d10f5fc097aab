// Google AI Overviews through DataForSEO's Live Google Organic SERP. Docs followed:
//   https://docs.dataforseo.com/v3/serp/google/organic/live/advanced/  (`load_async_ai_overview: true` loads
//     overviews Google renders asynchronously; `ai_overview` items carry `markdown`, `items` of type
//     `ai_overview_element` {title, text, references}, and `references` [{source, domain, url, title, text}])
import { systemClock, type TimeSource } from '../../clock.ts';
import {
  createDataForSeoCaller,
  dataForSeoLocale,
  GOOGLE_ORGANIC_LIVE_ADVANCED,
  type DataForSeoItem,
  type DataForSeoOptions,
} from '../search/dataforseo.ts';
import type { Answer, AnswerCitation, AnswerEngine, AnswerOptions, AnswerPlatform } from '../types.ts';
import { ProviderError } from '../types.ts';
import { dedupeCitations } from './openai-search.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

function referencesOf(item: DataForSeoItem): AnswerCitation[] {
  const refs = Array.isArray(item.references) ? (item.references as Array<Record<string, unknown>>) : [];
  return refs.filter((r) => str(r.url)).map((r) => ({ url: str(r.url), title: str(r.title) || str(r.source) || null }));
}

/** Text and citations of the SERP's AI Overview, or null when the page shows none. */
export function readAiOverview(items: DataForSeoItem[]): { text: string; citations: AnswerCitation[] } | null {
  const overviews = items.filter((i) => i.type === 'ai_overview');
  if (overviews.length === 0) return null;
  const parts: string[] = [];
  const cited: AnswerCitation[] = [];
  for (const o of overviews) {
    const elements = o.items ?? [];
    // `markdown` is the whole overview as rendered; the elements are the fallback when it is absent.
    const md = str(o.markdown);
    if (md) parts.push(md);
    else parts.push(...elements.map((e) => [str(e.title), str(e.text)].filter(Boolean).join('\n')).filter(Boolean));
    // Top-level references and per-element references are not subsets of each other: read both.
    cited.push(...referencesOf(o), ...elements.flatMap(referencesOf));
  }
  return { text: parts.join('\n\n'), citations: dedupeCitations(cited) };
}

export interface DataForSeoAiOverviewOptions extends DataForSeoOptions {
  clock?: TimeSource;
}

/** The `google_ai_overview` answer engine: the prompt is searched on Google and its AI Overview read. */
export function createDataForSeoAiOverviewEngine(options: DataForSeoAiOverviewOptions): AnswerEngine {
  const name = 'dataforseo-ai-overview';
  const clock = options.clock ?? systemClock;
  const caller = createDataForSeoCaller(name, options);

  return {
    name,
    platforms: ['google_ai_overview'],
    async ask(prompt: string, platform: AnswerPlatform, opts: AnswerOptions = {}): Promise<Answer> {
      if (platform !== 'google_ai_overview')
        throw new ProviderError(name, `${name} does not answer platform '${platform}'`, { retryable: false });
      const items = await caller.liveItems(
        GOOGLE_ORGANIC_LIVE_ADVANCED,
        {
          keyword: prompt,
          ...dataForSeoLocale(opts.location, opts.language),
          device: 'desktop',
          depth: 10,
          load_async_ai_overview: true,
          ...(opts.idempotencyKey ? { tag: opts.idempotencyKey.slice(0, 255) } : {}),
        },
        opts.signal,
      );
      // No overview on the page is a measurement (Google showed none), so it answers empty rather than failing.
      const overview = readAiOverview(items) ?? { text: '', citations: [] };
      return {
        provider: name,
        platform,
        model: null,
        text: overview.text,
        citations: overview.citations,
        fetchedAt: new Date(clock.now()).toISOString(),
      };
    },
  };
}
