import { defineFakeApi, sampleFromSchema, startFakeServer, type FakeServer, type RecordedRequest } from './server.ts';

/**
 * A loopback Anthropic Messages API (`POST /v1/messages`): x-api-key and anthropic-version checks, the body rules
 * the real API enforces (model, integer max_tokens, user/assistant turns starting with user, top-level system,
 * tool_choice naming a declared tool with an object input_schema), and recorded-style messages: text, a forced
 * tool_use, or a web-search turn with `web_search_tool_result` and cited text. Dedupes on Idempotency-Key.
 */

export interface MessagesBody {
  model?: string;
  max_tokens?: unknown;
  system?: unknown;
  messages?: Array<{ role?: string; content?: unknown }>;
  tools?: Array<{ name?: string; type?: string; input_schema?: Record<string, unknown>; [k: string]: unknown }>;
  tool_choice?: { type?: string; name?: string };
  [key: string]: unknown;
}

export interface MessagesReply {
  content: unknown[];
  stop_reason?: string;
  model?: string;
}

export type MessagesReplyFn = (body: MessagesBody, req: RecordedRequest) => MessagesReply;

export interface FakeAnthropicOptions {
  apiKey?: string;
  reply?: MessagesReplyFn;
}

export interface FakeAnthropic extends FakeServer {
  /** Pass as ANTHROPIC_BASE_URL. */
  readonly baseUrl: string;
  readonly apiKey: string;
  setReply(fn: MessagesReplyFn | null): void;
  bodies(): MessagesBody[];
}

const firstUserText = (body: MessagesBody): string => {
  const c = body.messages?.[0]?.content;
  return typeof c === 'string' ? c : '';
};

/** A finished web-search turn: the search call, its results, and text citing two of them. */
export function webSearchTurn(prompt: string): MessagesReply {
  const results = [
    { url: 'https://alpha.example/claude', title: 'Alpha on Claude' },
    { url: 'https://beta.example/notes', title: 'Beta notes' },
    { url: 'https://gamma.example/uncited', title: 'Gamma (searched, not cited)' },
  ];
  const cite = (i: number) => ({
    type: 'web_search_result_location',
    url: results[i]?.url,
    title: results[i]?.title,
    encrypted_index: `enc${i}`,
    cited_text: `cited text ${i}`,
  });
  return {
    stop_reason: 'end_turn',
    content: [
      { type: 'text', text: "I'll search for that." },
      { type: 'server_tool_use', id: 'srvtoolu_fake1', name: 'web_search', input: { query: prompt } },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_fake1',
        content: results.map((r) => ({
          type: 'web_search_result',
          url: r.url,
          title: r.title,
          encrypted_content: 'enc',
          page_age: 'May 1, 2025',
        })),
      },
      { type: 'text', text: ' Alpha says one thing.', citations: [cite(0)] },
      { type: 'text', text: ' Beta adds another.', citations: [cite(1), cite(0)] },
    ],
  };
}

function defaultReply(body: MessagesBody): MessagesReply {
  const forced =
    body.tool_choice?.type === 'tool' ? body.tools?.find((t) => t.name === body.tool_choice?.name) : undefined;
  if (forced)
    return {
      stop_reason: 'tool_use',
      content: [
        { type: 'tool_use', id: 'toolu_fake1', name: forced.name, input: sampleFromSchema(forced.input_schema) },
      ],
    };
  if (body.tools?.some((t) => typeof t.type === 'string' && t.type.startsWith('web_search_')))
    return webSearchTurn(firstUserText(body));
  return { stop_reason: 'end_turn', content: [{ type: 'text', text: `Echo: ${firstUserText(body).slice(0, 200)}` }] };
}

const invalid = (message: string) => ({
  status: 400,
  body: { type: 'error', error: { type: 'invalid_request_error', message } },
});

/** Starts a fake Anthropic Messages API on 127.0.0.1. */
export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const apiKey = options.apiKey ?? 'sk-ant-fake';
  let reply: MessagesReplyFn | null = options.reply ?? null;

  const server = await startFakeServer({
    keyOf: (req) => req.headers['idempotency-key'] ?? null,
    check(req) {
      if (req.method !== 'POST' || req.path !== '/v1/messages')
        return { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'Not found' } } };
      if (req.headers['x-api-key'] !== apiKey)
        return {
          status: 401,
          body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
        };
      if (!req.headers['anthropic-version']) return invalid('anthropic-version: header is required');
      const body = req.body as MessagesBody | undefined;
      if (!body || typeof body.model !== 'string') return invalid('model: Field required');
      if (!Number.isInteger(body.max_tokens)) return invalid('max_tokens: Field required');
      if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system))
        return invalid('system: Input should be a valid string');
      const msgs = body.messages;
      if (!Array.isArray(msgs) || msgs.length === 0) return invalid('messages: at least one message is required');
      if (msgs.some((m) => m.role !== 'user' && m.role !== 'assistant'))
        return invalid("messages: Unexpected role. Use the top-level 'system' parameter for a system prompt");
      if (msgs[0]?.role !== 'user') return invalid('messages: first message must use the "user" role');
      for (const t of body.tools ?? []) {
        if (t.type === undefined && (!t.input_schema || t.input_schema.type !== 'object'))
          return invalid(`tools.${t.name}.input_schema.type: Input should be 'object'`);
      }
      if (body.tool_choice?.type === 'tool' && !body.tools?.some((t) => t.name === body.tool_choice?.name)) {
        return invalid(`tool_choice: tool '${body.tool_choice.name}' not found in tools`);
      }
      return null;
    },
    answer(req) {
      const body = req.body as MessagesBody;
      const r = reply ? reply(body, req) : defaultReply(body);
      const textOut = JSON.stringify(r.content);
      return {
        status: 200,
        body: {
          id: `msg_fake${server.runs + 1}`,
          type: 'message',
          role: 'assistant',
          model: r.model ?? body.model,
          content: r.content,
          stop_reason: r.stop_reason ?? 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: Math.ceil(req.rawBody.length / 4), output_tokens: Math.ceil(textOut.length / 4) },
        },
      };
    },
    faultBody: (status) => ({
      type: 'error',
      error:
        status === 529
          ? { type: 'overloaded_error', message: 'Overloaded' }
          : status === 429
            ? { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' }
            : { type: 'api_error', message: 'Internal server error' },
    }),
  });

  return Object.assign(server, {
    baseUrl: server.origin,
    apiKey,
    setReply(fn: MessagesReplyFn | null) {
      reply = fn;
    },
    bodies: () => server.requests.filter((r) => r.path === '/v1/messages').map((r) => r.body as MessagesBody),
  });
}

/** This fake with its default options, as the settings of Anthropic's writer and the `claude` engine (see `FakeApi`). */
export const fakeApi = defineFakeApi(startFakeAnthropic, (f) => ({
  ANTHROPIC_API_KEY: f.apiKey,
  ANTHROPIC_BASE_URL: f.baseUrl,
}));
