import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPerplexityEngine } from '../../../src/providers/answer/perplexity.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { startFakePerplexity, type FakePerplexity } from '../../helpers/fake-providers/perplexity.ts';
import { fixedClock } from '../../helpers/fake-providers/server.ts';

let fake: FakePerplexity;
let legacy: FakePerplexity;
beforeAll(async () => {
  fake = await startFakePerplexity();
  legacy = await startFakePerplexity({ legacyCitations: true });
});
afterAll(async () => {
  await fake.close();
  await legacy.close();
});
beforeEach(() => {
  fake.reset();
  legacy.reset();
});

const engine = (baseUrl: string, over: { apiKey?: string; timeoutMs?: number } = {}) => ({
  e: createPerplexityEngine({
    apiKey: fake.apiKey,
    baseUrl,
    clock: fixedClock,
    ...over,
  }),
});

describe('Perplexity Sonar answer engine', () => {
  it('posts a Sonar chat completion and reads search_results', async () => {
    const { e } = engine(fake.baseUrl);
    const answer = await e.ask('best espresso grinder', 'perplexity', {
      language: 'en-GB',
      idempotencyKey: 'trk2:pplx',
    });
    const req = fake.requests[0]!;
    expect(req.path).toBe('/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(req.headers['idempotency-key']).toBe('trk2:pplx');
    expect(req.body).toEqual({
      model: 'sonar',
      messages: [{ role: 'user', content: 'best espresso grinder' }],
      web_search_options: { user_location: { country: 'GB' } },
    });
    expect(answer).toEqual({
      provider: 'perplexity',
      platform: 'perplexity',
      model: 'sonar',
      text: 'About "best espresso grinder": first point [1], second point [2].',
      citations: [
        { url: 'https://one.example/article', title: 'Sonar source one' },
        { url: 'https://two.example/post', title: 'Sonar source two' },
      ],
      fetchedAt: '2025-05-26T10:00:00.000Z',
    });
  });

  it('falls back to the legacy citations array', async () => {
    const { e } = engine(legacy.baseUrl);
    const answer = await e.ask('q', 'perplexity');
    expect(legacy.bodies()[0]).not.toHaveProperty('web_search_options');
    expect(answer.citations).toEqual([
      { url: 'https://one.example/article', title: null },
      { url: 'https://two.example/post', title: null },
    ]);
  });

  it('fails a 429 once, retryable with its Retry-After in ms, then answers; fails at once on 401; refuses other platforms', async () => {
    const { e } = engine(fake.baseUrl);
    fake.failNext(429, 1, { retryAfter: '5' });
    const limited = await e.ask('q', 'perplexity').catch((x: unknown) => x);
    expect(limited).toBeInstanceOf(ProviderError);
    expect(limited).toMatchObject({ retryable: true, status: 429, retryAfterMs: 5000 });
    expect(fake.requests).toHaveLength(1);
    await e.ask('q', 'perplexity');
    expect(fake.requests).toHaveLength(2);
    await expect(engine(fake.baseUrl, { apiKey: 'pplx-bad' }).e.ask('q', 'perplexity')).rejects.toMatchObject({
      retryable: false,
      status: 401,
    });
    await expect(e.ask('q', 'chatgpt')).rejects.toBeInstanceOf(ProviderError);
  });

  it('times out a request that never answers', async () => {
    fake.hangNext(1);
    await expect(engine(fake.baseUrl, { timeoutMs: 80 }).e.ask('q', 'perplexity')).rejects.toThrow(/timed out/);
  });
});
