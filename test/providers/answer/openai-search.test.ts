import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiSearchEngine, dedupeCitations } from '../../../src/providers/answer/openai-search.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../helpers/fake-providers/openai.ts';
import { fixedClock } from '../../helpers/fake-providers/server.ts';

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.setReply(null);
});

const engine = (over: { apiKey?: string; model?: string } = {}) =>
  createOpenAiSearchEngine({
    apiKey: fake.apiKey!,
    baseUrl: fake.baseUrl,
    clock: fixedClock,
    ...over,
  });

describe('OpenAI web-search answer engine', () => {
  it('asks a search model with web_search_options and the approximate user location', async () => {
    const answer = await engine().ask('best plumber in austin', 'chatgpt', {
      location: 'Austin, Texas, United States',
      language: 'en-US',
      idempotencyKey: 'trk1:chatgpt:p1',
    });
    const req = fake.requests[0]!;
    expect(req.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(req.headers['idempotency-key']).toBe('trk1:chatgpt:p1');
    expect(req.body).toEqual({
      model: 'gpt-4o-search-preview',
      messages: [{ role: 'user', content: 'best plumber in austin' }],
      web_search_options: {
        user_location: { type: 'approximate', approximate: { country: 'US', region: 'Texas', city: 'Austin' } },
      },
    });
    expect(answer).toMatchObject({
      provider: 'openai-search',
      platform: 'chatgpt',
      model: 'gpt-4o-search-preview-2025-03-11',
      fetchedAt: '2025-05-26T10:00:00.000Z',
    });
    expect(answer.text).toContain('best plumber in austin');
    // Three annotations, two distinct URLs: first-cited order, one entry per URL.
    expect(answer.citations).toEqual([
      { url: 'https://alpha.example/answer?utm_source=openai', title: 'Alpha answer' },
      { url: 'https://beta.example/guide', title: 'Beta guide' },
    ]);
  });

  it('omits user_location when nothing is known, and answers with no citations when none are annotated', async () => {
    fake.setReply(() => ({ content: 'Plain answer.', annotations: [{ type: 'file_citation' }] }));
    const answer = await engine({ model: 'gpt-4o-mini-search-preview' }).ask('q', 'chatgpt');
    expect(fake.bodies()[0]).toMatchObject({ model: 'gpt-4o-mini-search-preview', web_search_options: {} });
    expect(answer).toMatchObject({ text: 'Plain answer.', citations: [] });
  });

  it('refuses other platforms, raises refusals, and fails a 429 once, retryable, before a later call succeeds', async () => {
    await expect(engine().ask('q', 'perplexity')).rejects.toBeInstanceOf(ProviderError);
    expect(fake.requests).toHaveLength(0);
    fake.setReply(() => ({ content: null, refusal: 'no' }));
    await expect(engine().ask('q', 'chatgpt')).rejects.toMatchObject({ retryable: false });
    fake.setReply(null);
    fake.reset();
    fake.failNext(429, 1, { retryAfter: '1' });
    const limited = await engine()
      .ask('q', 'chatgpt')
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ProviderError);
    expect(limited).toMatchObject({ retryable: true, status: 429, retryAfterMs: 1000 });
    expect(fake.requests).toHaveLength(1);
    expect((await engine().ask('q', 'chatgpt')).citations).toHaveLength(2);
    expect(fake.requests).toHaveLength(2);
  });

  it('fails at once on a bad key', async () => {
    await expect(engine({ apiKey: 'sk-bad' }).ask('q', 'chatgpt')).rejects.toMatchObject({
      retryable: false,
      status: 401,
    });
  });
});

describe('dedupeCitations', () => {
  it('keeps first-cited order and fills a missing title from a later mention', () => {
    expect(
      dedupeCitations([
        { url: 'https://a/', title: null },
        { url: ' https://b/ ', title: 'B' },
        { url: 'https://a/', title: 'A' },
        { url: '', title: 'empty' },
      ]),
    ).toEqual([
      { url: 'https://a/', title: 'A' },
      { url: 'https://b/', title: 'B' },
    ]);
  });
});
