import { defineFakeApi, sampleFromSchema, startFakeServer, type FakeServer, type RecordedRequest } from './server.ts';

/**
 * A loopback OpenAI-compatible `POST /v1/chat/completions`: Bearer auth (or none, like Ollama), request checks the
 * real API makes (json_schema format with an object root, web_search_options only on search models, no sampling
 * parameters for search models), and recorded-style completions: an echo, a schema-shaped JSON, or a search answer
 * with `url_citation` annotations. Dedupes on the Idempotency-Key header.
 */

export interface ChatBody {
  model?: string;
  messages?: Array<{ role?: string; content?: unknown }>;
  response_format?: {
    type?: string;
    json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean };
  };
  web_search_options?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ChatReply {
  content?: string | null;
  refusal?: string | null;
  annotations?: unknown[];
  finish_reason?: string;
  model?: string;
}

export type ChatReplyFn = (body: ChatBody, req: RecordedRequest) => ChatReply | string;

export interface FakeOpenAiOptions {
  /** Required Bearer key; null accepts requests without Authorization (Ollama, local vLLM). */
  apiKey?: string | null;
  reply?: ChatReplyFn;
}

export interface FakeOpenAi extends FakeServer {
  /** Pass as OPENAI_BASE_URL (ends in /v1). */
  readonly baseUrl: string;
  readonly apiKey: string | null;
  setReply(fn: ChatReplyFn | null): void;
  /** Parsed bodies of the chat requests, in order. */
  bodies(): ChatBody[];
}

export const lastUserText = (body: ChatBody): string =>
  String([...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '');

/** A search model's answer: Markdown links plus `url_citation` annotations whose indices point into the text. */
export function searchAnswer(prompt: string): ChatReply {
  const sources = [
    { url: 'https://alpha.example/answer?utm_source=openai', title: 'Alpha answer' },
    { url: 'https://beta.example/guide', title: 'Beta guide' },
  ];
  let content = `On "${prompt}": `;
  const annotations: unknown[] = [];
  for (const [i, s] of [...sources, sources[0]].entries()) {
    if (!s) continue;
    const link = `([${new URL(s.url).hostname}](${s.url}))`;
    const sentence = `Point ${i + 1} ${link}. `;
    const start = content.length + sentence.indexOf('(');
    content += sentence;
    annotations.push({
      type: 'url_citation',
      url_citation: { start_index: start, end_index: start + link.length, url: s.url, title: s.title },
    });
  }
  return { content: content.trim(), annotations };
}

function defaultReply(body: ChatBody): ChatReply {
  if (body.web_search_options) return searchAnswer(lastUserText(body));
  const schema = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
  if (schema) return { content: JSON.stringify(sampleFromSchema(schema)) };
  return { content: `Echo: ${lastUserText(body).slice(0, 200)}` };
}

const error = (
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
) => ({
  status,
  body: { error: { message, type, param, code } },
});

/** Starts a fake OpenAI-compatible server on 127.0.0.1. */
export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const apiKey = options.apiKey === undefined ? 'sk-fake-openai' : options.apiKey;
  let reply: ChatReplyFn | null = options.reply ?? null;

  const server = await startFakeServer({
    keyOf: (req) => req.headers['idempotency-key'] ?? null,
    check(req) {
      if (req.method !== 'POST' || req.path !== '/v1/chat/completions')
        return error(404, 'Invalid URL', 'invalid_request_error');
      if (apiKey !== null && req.headers.authorization !== `Bearer ${apiKey}`) {
        return error(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
      }
      const body = req.body as ChatBody | undefined;
      if (!body || typeof body.model !== 'string')
        return error(400, 'you must provide a model parameter', 'invalid_request_error', null, 'model');
      if (!Array.isArray(body.messages) || body.messages.length === 0)
        return error(400, "'messages' must contain at least one message", 'invalid_request_error', null, 'messages');
      for (const m of body.messages) {
        if (
          !['system', 'user', 'assistant', 'developer', 'tool'].includes(String(m.role)) ||
          typeof m.content !== 'string'
        ) {
          return error(400, 'Invalid message in messages', 'invalid_request_error', null, 'messages');
        }
      }
      if ('max_tokens' in body && 'max_completion_tokens' in body)
        return error(400, 'Use max_completion_tokens, not both', 'invalid_request_error', null, 'max_tokens');
      const rf = body.response_format;
      if (rf && rf.type === 'json_schema') {
        const js = rf.json_schema;
        if (!js || typeof js.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(js.name))
          return error(
            400,
            'Invalid response_format.json_schema.name',
            'invalid_request_error',
            null,
            'response_format',
          );
        if (!js.schema || js.schema.type !== 'object')
          return error(
            400,
            'Invalid schema for response_format: schema must be a JSON Schema of \'type: "object"\'',
            'invalid_request_error',
            null,
            'response_format',
          );
      }
      const searchModel = body.model.includes('search');
      if (body.web_search_options && !searchModel)
        return error(
          400,
          'web_search_options is only supported by search models',
          'invalid_request_error',
          null,
          'web_search_options',
        );
      if (searchModel && ('temperature' in body || 'top_p' in body))
        return error(400, 'Model incompatible request argument supplied: temperature', 'invalid_request_error');
      return null;
    },
    answer(req) {
      const body = req.body as ChatBody;
      const got = reply ? reply(body, req) : defaultReply(body);
      const r: ChatReply = typeof got === 'string' ? { content: got } : got;
      const content = r.content === undefined ? null : r.content;
      return {
        status: 200,
        body: {
          id: `chatcmpl-fake-${server.runs + 1}`,
          object: 'chat.completion',
          created: 1748252400,
          model: r.model ?? `${body.model}-2025-03-11`,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content, refusal: r.refusal ?? null, annotations: r.annotations ?? [] },
              logprobs: null,
              finish_reason: r.finish_reason ?? 'stop',
            },
          ],
          usage: {
            prompt_tokens: Math.ceil(req.rawBody.length / 4),
            completion_tokens: Math.ceil((content ?? '').length / 4),
            total_tokens: 0,
          },
        },
      };
    },
    faultBody: (status) =>
      status === 429
        ? {
            error: {
              message: 'Rate limit reached for requests',
              type: 'requests',
              param: null,
              code: 'rate_limit_exceeded',
            },
          }
        : {
            error: {
              message: 'The server had an error while processing your request.',
              type: 'server_error',
              param: null,
              code: null,
            },
          },
  });

  return Object.assign(server, {
    baseUrl: `${server.origin}/v1`,
    apiKey,
    setReply(fn: ChatReplyFn | null) {
      reply = fn;
    },
    bodies: () => server.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as ChatBody),
  });
}

/** This fake with its default options, as the settings of the OpenAI writer and the `chatgpt` engine (see `FakeApi`). */
export const fakeApi = defineFakeApi(startFakeOpenAi, (f) => ({
  ...(f.apiKey === null ? {} : { OPENAI_API_KEY: f.apiKey }),
  OPENAI_BASE_URL: f.baseUrl,
}));
