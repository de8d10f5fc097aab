import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicSearchEngine } from '../../src/providers/answer/anthropic-search.ts';
import { createOpenAiSearchEngine } from '../../src/providers/answer/openai-search.ts';
import { createPerplexityEngine } from '../../src/providers/answer/perplexity.ts';
import { createDataForSeoSearch } from '../../src/providers/search/dataforseo.ts';
import { createSerpApiSearch } from '../../src/providers/search/serpapi.ts';
import { ProviderError } from '../../src/providers/types.ts';
import { createAnthropicWriter } from '../../src/providers/writer/anthropic.ts';
import { createOpenAiWriter } from '../../src/providers/writer/openai.ts';
import { fixedClock } from '../helpers/fake-providers/server.ts';

/**
 * Every JSON client checks the answer against its schema: a 200 body of the wrong shape is a non-retryable
 * ProviderError naming the provider and the path, never echoing the body, and the request is sent once.
 */

const SECRET = 'sk-live-DO-NOT-LOG-4242';

let server: Server;
let baseUrl = '';
let requests = 0;
let answer: unknown = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      const text = JSON.stringify(answer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
beforeEach(() => {
  requests = 0;
});

interface Case {
  provider: string;
  /** A 200 answer of the wrong shape; `leak` rides along to prove the body is not quoted. */
  body: Record<string, unknown>;
  path: string;
  run(): Promise<unknown>;
}

const cases: Case[] = [
  {
    provider: 'dataforseo',
    body: { status_code: 20000, tasks: [{ status_code: 20000, result: [{ items: 'x' }] }] },
    path: 'tasks.0.result.0.items',
    run: () =>
      createDataForSeoSearch({ login: 'l', password: 'p', baseUrl, clock: fixedClock }).search('q', {
        platform: 'organic',
      }),
  },
  {
    provider: 'serpapi',
    body: { organic_results: 'x' },
    path: 'organic_results',
    run: () => createSerpApiSearch({ apiKey: 'k', baseUrl, clock: fixedClock }).search('q', { platform: 'organic' }),
  },
  {
    provider: 'openai-search',
    body: { choices: [{ message: { content: 42 } }] },
    path: 'choices.0.message.content',
    run: () => createOpenAiSearchEngine({ apiKey: 'k', baseUrl, clock: fixedClock }).ask('q', 'chatgpt'),
  },
  {
    provider: 'perplexity',
    body: { choices: [{ message: { content: 'hi' } }], citations: 'x' },
    path: 'citations',
    run: () => createPerplexityEngine({ apiKey: 'k', baseUrl, clock: fixedClock }).ask('q', 'perplexity'),
  },
  {
    provider: 'anthropic-search',
    body: { content: [{ text: 'hi' }], stop_reason: 'end_turn' },
    path: 'content.0.type',
    run: () => createAnthropicSearchEngine({ apiKey: 'k', baseUrl, model: 'm', clock: fixedClock }).ask('q', 'claude'),
  },
  {
    provider: 'openai',
    body: { choices: [{ message: { content: ['x'] } }] },
    path: 'choices.0.message.content',
    run: () => createOpenAiWriter({ baseUrl, model: 'm' }).complete({ system: 's', prompt: 'p' }),
  },
  {
    provider: 'anthropic',
    body: { content: 'x' },
    path: 'content',
    run: () => createAnthropicWriter({ apiKey: 'k', baseUrl, model: 'm' }).complete({ system: 's', prompt: 'p' }),
  },
];

describe('JSON answers of the wrong shape', () => {
  it.each(cases)('$provider: a non-retryable ProviderError naming the provider, sent once', async (c) => {
    answer = { ...c.body, leak: SECRET };
    const err = await c.run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProviderError);
    const pe = err as ProviderError;
    expect(pe.provider).toBe(c.provider);
    expect(pe.retryable).toBe(false);
    expect(pe.message).toContain(`${c.provider} answered JSON of an unexpected shape at ${c.path}`);
    expect(pe.message).not.toContain(SECRET);
    expect(pe.cause).toBeUndefined();
    expect(requests).toBe(1);
  });
});

describe('JSON answers that fit', () => {
  it('DataForSEO: nested item lists of plain strings (related_searches) and unknown fields are accepted', async () => {
    answer = {
      status_code: 20000,
      version: '0.1.x',
      tasks: [
        {
          status_code: 20000,
          cost: 0.002,
          result: [
            {
              keyword: 'q',
              items: [
                { type: 'related_searches', rank_group: 1, rank_absolute: 2, items: ['a', 'b'] },
                {
                  type: 'organic',
                  rank_group: 1,
                  url: 'https://a.example/',
                  title: 'A',
                  description: 'D',
                  xpath: '/x',
                },
              ],
            },
          ],
        },
      ],
    };
    const res = await createDataForSeoSearch({ login: 'l', password: 'p', baseUrl, clock: fixedClock }).search('q', {
      platform: 'organic',
    });
    expect(res.results).toEqual([{ position: 1, url: 'https://a.example/', title: 'A', snippet: 'D' }]);
  });

  it('missing optional fields still answer as before', async () => {
    answer = { content: [{ type: 'text', text: 'hello' }] };
    const res = await createAnthropicWriter({ apiKey: 'k', baseUrl, model: 'm' }).complete({
      system: 's',
      prompt: 'p',
    });
    expect(res).toMatchObject({ text: 'hello', provider: 'anthropic', model: 'm' });
    expect(res.usage).toBeUndefined();
  });
});
