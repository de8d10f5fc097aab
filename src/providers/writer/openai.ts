// OpenAI-compatible Chat Completions (OpenAI, Ollama /v1, vLLM, OpenRouter). Docs followed:
//   https://platform.openai.com/docs/api-reference/chat/create  (messages, max_completion_tokens, temperature,
//     choices[0].message.content / refusal, finish_reason, usage)
//   https://platform.openai.com/docs/guides/structured-outputs  (response_format {type:'json_schema',
//     json_schema:{name, schema, strict:true}}; the root must be an object)
import { createJsonClient, type JsonClientOptions } from '../http/json-client.ts';
import { chatCompletionSchema } from '../http/openai-chat.ts';
import type { Writer, WriterRequest, WriterResponse } from '../types.ts';
import { ProviderError } from '../types.ts';

export interface OpenAiWriterOptions extends Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers'> {
  /** Bearer key; omit for servers that need none (Ollama, a local vLLM). */
  apiKey?: string;
  /** Including the version path: https://api.openai.com/v1, http://127.0.0.1:11434/v1 */
  baseUrl: string;
  model: string;
  /** Provider name in responses and errors; default 'openai'. */
  name?: string;
  /**
   * OpenAI deprecated `max_tokens` for `max_completion_tokens` (reasoning models reject the old one); most
   * OpenAI-compatible servers still read only `max_tokens`. Default: the new name for api.openai.com only.
   */
  tokenParameter?: 'max_tokens' | 'max_completion_tokens';
  /** Used when the request gives no maxTokens. */
  defaultMaxTokens?: number;
  /** Extra headers, e.g. OpenRouter's HTTP-Referer / X-Title. */
  headers?: Record<string, string>;
}

/** What to send as the schema and how to read the answer back, given that providers want an object at the root. */
export interface RootedSchema {
  schema: Record<string, unknown>;
  unwrap(value: unknown): unknown;
}

/** Wraps a non-object root schema in `{result: ...}` so strict structured output and tool input accept it. */
export function objectRootSchema(schema: Record<string, unknown>): RootedSchema {
  if (schema.type === 'object') return { schema, unwrap: (v) => v };
  return {
    schema: { type: 'object', properties: { result: schema }, required: ['result'], additionalProperties: false },
    unwrap: (v) => (v && typeof v === 'object' && 'result' in v ? (v as { result: unknown }).result : v),
  };
}

/** Parses model text as JSON, tolerating a Markdown code fence around it; undefined when it is not JSON. */
export function parseJsonText(raw: string): unknown {
  const fenced = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?\s*```\s*$/i.exec(raw);
  const candidate = (fenced ? fenced[1] : raw)?.trim() ?? '';
  try {
    return JSON.parse(candidate);
  } catch {
    return undefined;
  }
}

/** Schema names allow letters, digits, '_' and '-', at most 64. */
export function schemaToolName(name: string | undefined): string {
  const clean = (name ?? 'output').replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 64);
  return clean || 'output';
}

export const JSON_REMINDER =
  'Your previous answer was not valid JSON. Return only valid JSON matching the schema, with no other text.';

interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const ChatCompletionSchema = chatCompletionSchema({});

/** A Writer over any OpenAI-compatible `/chat/completions`. */
export function createOpenAiWriter(options: OpenAiWriterOptions): Writer {
  const {
    apiKey,
    baseUrl,
    model,
    name = 'openai',
    tokenParameter,
    defaultMaxTokens = 4096,
    headers = {},
    ...tuning
  } = options;
  const tokenParam =
    tokenParameter ?? (new URL(baseUrl).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens');
  const client = createJsonClient({
    ...tuning,
    provider: name,
    baseUrl,
    headers: { ...headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
  });

  async function chat(
    request: WriterRequest,
    messages: ChatMessage[],
    responseFormat: unknown,
    key: string | undefined,
  ) {
    const body: Record<string, unknown> = {
      model,
      messages,
      [tokenParam]: request.maxTokens ?? defaultMaxTokens,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(responseFormat ? { response_format: responseFormat } : {}),
    };
    const res = await client.call(
      {
        method: 'POST',
        path: '/chat/completions',
        body,
        // Not every server honours Idempotency-Key; sending it is harmless and lets the ones that do dedupe.
        ...(key ? { headers: { 'idempotency-key': key } } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      },
      ChatCompletionSchema,
    );
    const choice = res.choices?.[0];
    const message = choice?.message;
    if (message?.refusal) {
      throw new ProviderError(name, `${name} refused the request: ${message.refusal.slice(0, 300)}`, {
        retryable: false,
      });
    }
    const content = typeof message?.content === 'string' ? message.content : '';
    if (!content.trim()) {
      const why = choice?.finish_reason ? ` (finish_reason ${choice.finish_reason})` : '';
      throw new ProviderError(name, `${name} returned no content${why}`, { retryable: false });
    }
    return { content, model: res.model ?? model, usage: res.usage, finishReason: choice?.finish_reason };
  }

  return {
    name,
    async complete(request: WriterRequest): Promise<WriterResponse> {
      const messages: ChatMessage[] = [
        { role: 'system', content: request.system },
        { role: 'user', content: request.prompt },
      ];
      const rooted = request.jsonSchema ? objectRootSchema(request.jsonSchema) : undefined;
      const format = rooted
        ? {
            type: 'json_schema',
            json_schema: { name: schemaToolName(request.schemaName), schema: rooted.schema, strict: true },
          }
        : undefined;

      let out = await chat(request, messages, format, request.idempotencyKey);
      let inputTokens = out.usage?.prompt_tokens ?? 0;
      let outputTokens = out.usage?.completion_tokens ?? 0;
      let json: unknown;
      if (rooted) {
        json = parseJsonText(out.content);
        if (json === undefined) {
          // Servers without structured output (or a truncated answer) can return prose; one reminder usually fixes
          // it. A distinct key, since the first answer is exactly what a deduping server would replay.
          const retryKey = request.idempotencyKey ? `${request.idempotencyKey}:json-retry` : undefined;
          out = await chat(
            request,
            [...messages, { role: 'assistant', content: out.content }, { role: 'user', content: JSON_REMINDER }],
            format,
            retryKey,
          );
          inputTokens += out.usage?.prompt_tokens ?? 0;
          outputTokens += out.usage?.completion_tokens ?? 0;
          json = parseJsonText(out.content);
          if (json === undefined) {
            throw new ProviderError(
              name,
              `${name} did not return valid JSON after a reminder${out.finishReason === 'length' ? ' (output truncated at max tokens)' : ''}`,
              {
                retryable: false,
              },
            );
          }
        }
        json = rooted.unwrap(json);
      }
      return {
        text: rooted ? JSON.stringify(json) : out.content,
        ...(rooted ? { json } : {}),
        provider: name,
        model: out.model,
        ...(out.usage ? { usage: { inputTokens, outputTokens } } : {}),
      };
    },
  };
}
