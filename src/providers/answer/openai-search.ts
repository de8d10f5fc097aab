// ChatGPT-style answers with web search through Chat Completions. Docs followed:
//   https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat  (search models such as
//     gpt-4o-search-preview; `web_search_options` {search_context_size, user_location {type:'approximate',
//     approximate {country, region, city}}}; citations in choices[0].message.annotations[] of type
//     `url_citation` {url, title, start_index, end_index})
//   https://platform.openai.com/docs/api-reference/chat/create
import { z } from 'zod';
import { systemClock, type TimeSource } from '../../clock.ts';
import { callOptions, createJsonClient, type JsonClientOptions } from '../http/json-client.ts';
import { chatCompletionSchema } from '../http/openai-chat.ts';
import { approximateLocation } from '../search/platforms.ts';
import type { Answer, AnswerCitation, AnswerEngine, AnswerOptions, AnswerPlatform } from '../types.ts';
import { ProviderError } from '../types.ts';

export interface OpenAiSearchOptions extends Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers'> {
  apiKey: string;
  /** Including the version path; default https://api.openai.com/v1 */
  baseUrl?: string;
  /** A model that searches on every request; default gpt-4o-search-preview. */
  model?: string;
  searchContextSize?: 'low' | 'medium' | 'high';
  clock?: TimeSource;
}

const UrlCitationAnnotationSchema = z.looseObject({
  type: z.string().optional(),
  url_citation: z.looseObject({ url: z.string().optional(), title: z.string().nullable().optional() }).optional(),
});

const SearchCompletionSchema = chatCompletionSchema({
  annotations: z.array(UrlCitationAnnotationSchema).nullable().optional(),
});

/** Distinct cited URLs in first-cited order; the first title seen for a URL wins. */
export function dedupeCitations(list: AnswerCitation[]): AnswerCitation[] {
  const seen = new Map<string, AnswerCitation>();
  for (const c of list) {
    const url = c.url.trim();
    if (!url) continue;
    const had = seen.get(url);
    if (!had) seen.set(url, { url, title: c.title?.trim() || null });
    else if (!had.title && c.title?.trim()) had.title = c.title.trim();
  }
  return [...seen.values()];
}

/** The `chatgpt` answer engine over OpenAI search models. */
export function createOpenAiSearchEngine(options: OpenAiSearchOptions): AnswerEngine {
  const name = 'openai-search';
  const {
    apiKey,
    baseUrl = 'https://api.openai.com/v1',
    model = 'gpt-4o-search-preview',
    searchContextSize,
    clock = systemClock,
    ...tuning
  } = options;
  const client = createJsonClient({
    ...tuning,
    provider: name,
    baseUrl,
    headers: { authorization: `Bearer ${apiKey}` },
  });

  return {
    name,
    platforms: ['chatgpt'],
    async ask(prompt: string, platform: AnswerPlatform, opts: AnswerOptions = {}): Promise<Answer> {
      if (platform !== 'chatgpt')
        throw new ProviderError(name, `${name} does not answer platform '${platform}'`, { retryable: false });
      const approximate = approximateLocation(opts.location, opts.language);
      // Search models take no temperature or other sampling parameters; the defaults are what users get.
      const body = {
        model,
        messages: [{ role: 'user', content: prompt }],
        web_search_options: {
          ...(searchContextSize ? { search_context_size: searchContextSize } : {}),
          ...(approximate ? { user_location: { type: 'approximate', approximate } } : {}),
        },
      };
      const res = await client.call(
        {
          method: 'POST',
          path: '/chat/completions',
          body,
          ...callOptions(opts),
        },
        SearchCompletionSchema,
      );
      const message = res.choices?.[0]?.message;
      if (message?.refusal)
        throw new ProviderError(name, `${name} refused the prompt: ${message.refusal.slice(0, 300)}`, {
          retryable: false,
        });
      const text = typeof message?.content === 'string' ? message.content : '';
      if (!text.trim()) throw new ProviderError(name, `${name} returned no answer`, { retryable: false });
      const citations = dedupeCitations(
        (message?.annotations ?? [])
          .filter((a) => a.type === 'url_citation' && typeof a.url_citation?.url === 'string')
          .map((a) => ({ url: a.url_citation?.url as string, title: a.url_citation?.title ?? null })),
      );
      return {
        provider: name,
        platform,
        model: res.model ?? model,
        text,
        citations,
        fetchedAt: new Date(clock.now()).toISOString(),
      };
    },
  };
}
