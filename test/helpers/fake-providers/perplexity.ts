import { defineFakeApi, startFakeServer, type FakeServer } from './server.ts';

/**
 * A loopback Perplexity Sonar `POST /chat/completions`: Bearer auth, OpenAI-shaped request checks, answers with
 * numbered references plus `search_results` {title, url, date} and, in legacy mode, only `citations` URL strings.
 * Dedupes on the Idempotency-Key header.
 */

export interface SonarBody {
  model?: string;
  messages?: Array<{ role?: string; content?: unknown }>;
  web_search_options?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface FakePerplexityOptions {
  apiKey?: string;
  /** Answer only the older `citations` array, without `search_results`. */
  legacyCitations?: boolean;
}

export interface FakePerplexity extends FakeServer {
  /** Pass as PERPLEXITY_BASE_URL. */
  readonly baseUrl: string;
  readonly apiKey: string;
  bodies(): SonarBody[];
}

const SOURCES = [
  { title: 'Sonar source one', url: 'https://one.example/article', date: '2025-04-01' },
  { title: 'Sonar source two', url: 'https://two.example/post', date: null },
];

/** Starts a fake Perplexity API on 127.0.0.1. */
export async function startFakePerplexity(options: FakePerplexityOptions = {}): Promise<FakePerplexity> {
  const apiKey = options.apiKey ?? 'pplx-fake';
  const invalid = (message: string) => ({
    status: 400,
    body: { error: { message, type: 'invalid_request_error', code: 400 } },
  });

  const server = await startFakeServer({
    keyOf: (req) => req.headers['idempotency-key'] ?? null,
    check(req) {
      if (req.method !== 'POST' || req.path !== '/chat/completions')
        return { status: 404, body: { error: { message: 'Not Found', code: 404 } } };
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        return { status: 401, body: { error: { message: 'Invalid API key', type: 'unauthorized', code: 401 } } };
      }
      const body = req.body as SonarBody | undefined;
      if (!body || typeof body.model !== 'string' || !body.model.startsWith('sonar'))
        return invalid(`Invalid model '${String(body?.model)}'`);
      if (!Array.isArray(body.messages) || body.messages.length === 0)
        return invalid('messages: at least one message is required');
      if (body.messages.at(-1)?.role !== 'user') return invalid('Last message must have role `user`.');
      return null;
    },
    answer(req) {
      const body = req.body as SonarBody;
      const prompt = String(body.messages?.at(-1)?.content ?? '');
      return {
        status: 200,
        body: {
          id: `pplx-fake-${server.runs + 1}`,
          model: body.model,
          created: 1748252400,
          object: 'chat.completion',
          usage: { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50, search_context_size: 'low' },
          citations: SOURCES.map((s) => s.url),
          ...(options.legacyCitations ? {} : { search_results: SOURCES }),
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: `About "${prompt}": first point [1], second point [2].` },
            },
          ],
        },
      };
    },
    faultBody: (status) => ({
      error: { message: status === 429 ? 'Rate limit exceeded' : 'Internal server error', code: status },
    }),
  });

  return Object.assign(server, {
    baseUrl: server.origin,
    apiKey,
    bodies: () => server.requests.filter((r) => r.path === '/chat/completions').map((r) => r.body as SonarBody),
  });
}

/** This fake with its default options, as the settings of the `perplexity` engine (see `FakeApi`). */
export const fakeApi = defineFakeApi(startFakePerplexity, (f) => ({
  PERPLEXITY_API_KEY: f.apiKey,
  PERPLEXITY_BASE_URL: f.baseUrl,
}));
