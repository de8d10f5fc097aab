// Perplexity Sonar. Docs followed:
//   https://docs.perplexity.ai/api-reference/chat-completions-post  (POST /chat/completions, Bearer key, model
//     `sonar`; response `search_results[]` {title, url, date} and the older `citations[]` URL strings;
//     `web_search_options.user_location` {country, region, city})
//   https://docs.perplexity.ai/guides/chat-completions-guide  (OpenAI-compatible request and choices)
import { z } from 'zod';
import { systemClock, type TimeSource } from '../../clock.ts';
import { callOptions, createJsonClient, type JsonClientOptions } from '../http/json-client.ts';
import { approximateLocation } from '../search/platforms.ts';
import type { Answer, AnswerEngine, AnswerOptions, AnswerPlatform } from '../types.ts';
import { ProviderError } from '../types.ts';
import { dedupeCitations } from './openai-search.ts';

export interface PerplexityOptions extends Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers'> {
  apiKey: string;
  /** Default https://api.perplexity.ai */
  baseUrl?: string;
  /** Default sonar. */
  model?: string;
  clock?: TimeSource;
}

const SonarResponseSchema = z.looseObject({
  model: z.string().optional(),
  choices: z
    .array(z.looseObject({ message: z.looseObject({ content: z.string().nullable().optional() }).optional() }))
    .optional(),
  search_results: z
    .array(z.looseObject({ title: z.string().nullable().optional(), url: z.string().optional() }))
    .nullable()
    .optional(),
  citations: z.array(z.string()).nullable().optional(),
});

/** The `perplexity` answer engine over the Sonar API. */
export function createPerplexityEngine(options: PerplexityOptions): AnswerEngine {
  const name = 'perplexity';
  const { apiKey, baseUrl = 'https://api.perplexity.ai', model = 'sonar', clock = systemClock, ...tuning } = options;
  const client = createJsonClient({
    ...tuning,
    provider: name,
    baseUrl,
    headers: { authorization: `Bearer ${apiKey}` },
  });

  return {
    name,
    platforms: ['perplexity'],
    async ask(prompt: string, platform: AnswerPlatform, opts: AnswerOptions = {}): Promise<Answer> {
      if (platform !== 'perplexity')
        throw new ProviderError(name, `${name} does not answer platform '${platform}'`, { retryable: false });
      const where = approximateLocation(opts.location, opts.language);
      const body = {
        model,
        messages: [{ role: 'user', content: prompt }],
        ...(where ? { web_search_options: { user_location: where } } : {}),
      };
      const res = await client.call(
        {
          method: 'POST',
          path: '/chat/completions',
          body,
          ...callOptions(opts),
        },
        SonarResponseSchema,
      );
      const text = res.choices?.[0]?.message?.content ?? '';
      if (!text.trim()) throw new ProviderError(name, `${name} returned no answer`, { retryable: false });
      // `search_results` carries titles; `citations` (bare URLs) is the older field some deployments still send.
      const cited = res.search_results?.length
        ? res.search_results
            .filter((r) => typeof r.url === 'string')
            .map((r) => ({ url: r.url as string, title: r.title ?? null }))
        : (res.citations ?? []).filter((u): u is string => typeof u === 'string').map((url) => ({ url, title: null }));
      return {
        provider: name,
        platform,
        model: res.model ?? model,
        text,
        citations: dedupeCitations(cited),
        fetchedAt: new Date(clock.now()).toISOString(),
      };
    },
  };
}
