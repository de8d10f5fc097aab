// Anthropic Messages API. Docs followed:
//   https://docs.anthropic.com/en/api/messages  (POST /v1/messages; x-api-key, anthropic-version: 2023-06-01;
//     top-level `system`, `messages`, required `max_tokens`; content blocks; stop_reason; usage)
//   https://docs.anthropic.com/en/docs/build-with-claude/tool-use  (tools [{name, description, input_schema}],
//     tool_choice {type:'tool', name} forces one tool; read the `tool_use` block's `input`)
//   https://docs.anthropic.com/en/api/errors  (529 overloaded_error: retry later)
import { z } from 'zod';
import { callOptions, createJsonClient, type JsonClient, type JsonClientOptions } from '../http/json-client.ts';
import type { Writer, WriterRequest, WriterResponse } from '../types.ts';
import { ProviderError } from '../types.ts';
import { objectRootSchema, schemaToolName } from './openai.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicOptions extends Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers'> {
  apiKey: string;
  /** Without the version path; default https://api.anthropic.com */
  baseUrl?: string;
  model: string;
  /** `max_tokens` is required by the API; used when the request gives none. */
  defaultMaxTokens?: number;
}

/** A content block of a Messages response; only the fields the adapters read are typed, the rest kept verbatim. */
export const AnthropicBlockSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  citations: z
    .array(
      z.looseObject({
        type: z.string().optional(),
        url: z.string().optional(),
        title: z.string().nullable().optional(),
      }),
    )
    .nullable()
    .optional(),
  content: z.unknown().optional(),
});

export type AnthropicBlock = z.output<typeof AnthropicBlockSchema>;

export const AnthropicMessageSchema = z.looseObject({
  model: z.string().optional(),
  content: z.array(AnthropicBlockSchema).optional(),
  stop_reason: z.string().nullable().optional(),
  usage: z.looseObject({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).optional(),
});

export type AnthropicMessage = z.output<typeof AnthropicMessageSchema>;

/** The Messages endpoint with Anthropic's auth and version headers over the JSON client. */
export function createAnthropicClient(
  provider: string,
  options: Omit<AnthropicOptions, 'model' | 'defaultMaxTokens'>,
): JsonClient {
  const { apiKey, baseUrl = 'https://api.anthropic.com', ...tuning } = options;
  return createJsonClient({
    ...tuning,
    provider,
    baseUrl,
    headers: { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION },
  });
}

/** Concatenated text of the `text` blocks. */
export function textOf(content: AnthropicBlock[] | undefined): string {
  return (content ?? [])
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('');
}

/** A Writer over Anthropic's Messages API; structured output through one forced tool. */
export function createAnthropicWriter(options: AnthropicOptions): Writer {
  const name = 'anthropic';
  const { model, defaultMaxTokens = 4096, ...rest } = options;
  const client = createAnthropicClient(name, rest);

  return {
    name,
    async complete(request: WriterRequest): Promise<WriterResponse> {
      const rooted = request.jsonSchema ? objectRootSchema(request.jsonSchema) : undefined;
      const toolName = schemaToolName(request.schemaName);
      const body: Record<string, unknown> = {
        model,
        max_tokens: request.maxTokens ?? defaultMaxTokens,
        system: request.system,
        messages: [{ role: 'user', content: request.prompt }],
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(rooted
          ? {
              tools: [
                {
                  name: toolName,
                  description: 'Record the answer as JSON that matches the input schema.',
                  input_schema: rooted.schema,
                },
              ],
              tool_choice: { type: 'tool', name: toolName },
            }
          : {}),
      };
      const res = await client.call(
        {
          method: 'POST',
          path: '/v1/messages',
          body,
          // Anthropic does not document Idempotency-Key for Messages; it is harmless and lets a proxy dedupe.
          ...callOptions(request),
        },
        AnthropicMessageSchema,
      );
      if (res.stop_reason === 'refusal') {
        throw new ProviderError(name, `${name} refused the request`, { retryable: false });
      }
      const usage = res.usage
        ? { inputTokens: res.usage.input_tokens ?? 0, outputTokens: res.usage.output_tokens ?? 0 }
        : undefined;
      const base = { provider: name, model: res.model ?? model, ...(usage ? { usage } : {}) };
      if (rooted) {
        const call = res.content?.find((b) => b.type === 'tool_use' && b.name === toolName);
        // A forced tool call cut off by max_tokens arrives without usable input.
        if (!call || call.input === undefined || call.input === null || res.stop_reason === 'max_tokens') {
          const why = res.stop_reason === 'max_tokens' ? ' (output truncated at max_tokens)' : '';
          throw new ProviderError(name, `${name} returned no ${toolName} tool input${why}`, { retryable: false });
        }
        const json = rooted.unwrap(call.input);
        return { text: JSON.stringify(json), json, ...base };
      }
      const text = textOf(res.content);
      if (!text.trim()) {
        throw new ProviderError(name, `${name} returned no text (stop_reason ${res.stop_reason ?? 'unknown'})`, {
          retryable: false,
        });
      }
      return { text, ...base };
    },
  };
}
