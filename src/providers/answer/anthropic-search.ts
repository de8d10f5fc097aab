// Claude answers with Anthropic's server-side web search tool. Docs followed:
//   https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool  (tools [{type:
//     'web_search_20250305', name:'web_search', max_uses, user_location {type:'approximate', city, region,
//     country}}]; `web_search_tool_result` blocks with `web_search_result` {url, title}; text blocks'
//     `citations` of type `web_search_result_location` {url, title, cited_text}; stop_reason `pause_turn`
//     means: send the content back as the assistant turn to let Claude continue)
//   https://docs.anthropic.com/en/api/messages
import { systemClock, type TimeSource } from '../../clock.ts';
import { approximateLocation } from '../search/platforms.ts';
import type { Answer, AnswerCitation, AnswerEngine, AnswerOptions, AnswerPlatform } from '../types.ts';
import { ProviderError } from '../types.ts';
import {
  createAnthropicClient,
  textOf,
  AnthropicMessageSchema,
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicOptions,
} from '../writer/anthropic.ts';
import { dedupeCitations } from './openai-search.ts';

export interface AnthropicSearchOptions extends Omit<AnthropicOptions, 'defaultMaxTokens'> {
  maxTokens?: number;
  /** Searches Claude may run per answer; default 5. */
  maxUses?: number;
  clock?: TimeSource;
}

/** Pause/continue rounds before giving up on a long-running turn. */
const MAX_CONTINUATIONS = 3;

/** Sources the answer cites: text-block citations; the searched results only when nothing is cited inline. */
export function claudeCitations(content: AnthropicBlock[]): AnswerCitation[] {
  const inline = content
    .filter((b) => b.type === 'text')
    .flatMap((b) => b.citations ?? [])
    .filter((c) => c.type === 'web_search_result_location' && typeof c.url === 'string')
    .map((c) => ({ url: c.url as string, title: c.title ?? null }));
  if (inline.length > 0) return dedupeCitations(inline);
  const searched = content
    .filter((b) => b.type === 'web_search_tool_result' && Array.isArray(b.content))
    .flatMap((b) => b.content as Array<{ type?: string; url?: string; title?: string | null }>)
    .filter((r) => r.type === 'web_search_result' && typeof r.url === 'string')
    .map((r) => ({ url: r.url as string, title: r.title ?? null }));
  return dedupeCitations(searched);
}

/** The `claude` answer engine. */
export function createAnthropicSearchEngine(options: AnthropicSearchOptions): AnswerEngine {
  const name = 'anthropic-search';
  const { model, maxTokens = 2048, maxUses = 5, clock = systemClock, ...rest } = options;
  const client = createAnthropicClient(name, rest);

  return {
    name,
    platforms: ['claude'],
    async ask(prompt: string, platform: AnswerPlatform, opts: AnswerOptions = {}): Promise<Answer> {
      if (platform !== 'claude')
        throw new ProviderError(name, `${name} does not answer platform '${platform}'`, { retryable: false });
      const where = approximateLocation(opts.location, opts.language);
      const tools = [
        {
          type: 'web_search_20250305',
          name: 'web_search',
          max_uses: maxUses,
          ...(where ? { user_location: { type: 'approximate', ...where } } : {}),
        },
      ];
      const messages: Array<{ role: 'user' | 'assistant'; content: unknown }> = [{ role: 'user', content: prompt }];
      const content: AnthropicBlock[] = [];
      let res: AnthropicMessage = {};
      for (let round = 0; round <= MAX_CONTINUATIONS; round++) {
        const key = opts.idempotencyKey
          ? round === 0
            ? opts.idempotencyKey
            : `${opts.idempotencyKey}:continue-${round}`
          : undefined;
        res = await client.call(
          {
            method: 'POST',
            path: '/v1/messages',
            body: { model, max_tokens: maxTokens, messages, tools },
            ...(key ? { headers: { 'idempotency-key': key } } : {}),
            ...(opts.signal ? { signal: opts.signal } : {}),
          },
          AnthropicMessageSchema,
        );
        content.push(...(res.content ?? []));
        if (res.stop_reason !== 'pause_turn') break;
        // The paused turn goes back verbatim as the assistant message; Claude picks up where it stopped.
        messages.splice(1, 1, { role: 'assistant', content: [...content] });
      }
      if (res.stop_reason === 'refusal')
        throw new ProviderError(name, `${name} refused the prompt`, { retryable: false });
      const text = textOf(content);
      if (!text.trim()) {
        const failed = content.find((b) => b.type === 'web_search_tool_result' && !Array.isArray(b.content));
        const code = (failed?.content as { error_code?: string } | undefined)?.error_code;
        throw new ProviderError(name, `${name} returned no answer${code ? ` (web search error ${code})` : ''}`, {
          retryable: code === 'too_many_requests' || code === 'unavailable',
        });
      }
      return {
        provider: name,
        platform,
        model: res.model ?? model,
        text,
        citations: claudeCitations(content),
        fetchedAt: new Date(clock.now()).toISOString(),
      };
    },
  };
}
