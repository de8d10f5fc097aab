import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claudeCitations, createAnthropicSearchEngine } from '../../../src/providers/answer/anthropic-search.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { startFakeAnthropic, webSearchTurn, type FakeAnthropic } from '../../helpers/fake-providers/anthropic.ts';
import { fixedClock } from '../../helpers/fake-providers/server.ts';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.setReply(null);
});

const engine = () =>
  createAnthropicSearchEngine({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    model: 'claude-sonnet-4-5',
    clock: fixedClock,
  });

describe('Anthropic web-search answer engine', () => {
  it('declares the web_search server tool with the user location and reads inline citations', async () => {
    const answer = await engine().ask('best ramen in seattle', 'claude', {
      location: 'Seattle, Washington, United States',
      idempotencyKey: 'trk4:claude',
    });
    const req = fake.requests[0]!;
    expect(req.headers['x-api-key']).toBe(fake.apiKey);
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers['idempotency-key']).toBe('trk4:claude');
    expect(req.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      messages: [{ role: 'user', content: 'best ramen in seattle' }],
      tools: [
        {
          type: 'web_search_20250305',
          name: 'web_search',
          max_uses: 5,
          user_location: { type: 'approximate', country: 'US', region: 'Washington', city: 'Seattle' },
        },
      ],
    });
    expect(answer).toEqual({
      provider: 'anthropic-search',
      platform: 'claude',
      model: 'claude-sonnet-4-5',
      text: "I'll search for that. Alpha says one thing. Beta adds another.",
      // Cited inline only; the searched-but-uncited result is not a citation.
      citations: [
        { url: 'https://alpha.example/claude', title: 'Alpha on Claude' },
        { url: 'https://beta.example/notes', title: 'Beta notes' },
      ],
      fetchedAt: '2025-05-26T10:00:00.000Z',
    });
  });

  it('continues a paused turn by sending the content back as the assistant message', async () => {
    fake.setReply((body) => {
      if (body.messages?.length === 1)
        return {
          stop_reason: 'pause_turn',
          content: [{ type: 'server_tool_use', id: 's1', name: 'web_search', input: { query: 'q' } }],
        };
      return webSearchTurn('q');
    });
    const answer = await engine().ask('q', 'claude', { idempotencyKey: 'k' });
    const bodies = fake.bodies();
    expect(bodies).toHaveLength(2);
    expect(bodies[1]!.messages).toEqual([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [{ type: 'server_tool_use', id: 's1', name: 'web_search', input: { query: 'q' } }],
      },
    ]);
    expect(fake.requests.map((r) => r.headers['idempotency-key'])).toEqual(['k', 'k:continue-1']);
    expect(answer.citations).toHaveLength(2);
  });

  it('reports a web search error when no text came back, retryable when the search was rate limited', async () => {
    fake.setReply(() => ({
      content: [
        {
          type: 'web_search_tool_result',
          tool_use_id: 's',
          content: { type: 'web_search_tool_result_error', error_code: 'too_many_requests' },
        },
      ],
    }));
    const err = await engine()
      .ask('q', 'claude')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ retryable: true });
    expect((err as Error).message).toContain('too_many_requests');
  });

  it('fails each 529 overloaded after one request, retryable, until a later call succeeds; refuses other platforms', async () => {
    fake.failNext(529, 2);
    for (let n = 1; n <= 2; n++) {
      const err = await engine()
        .ask('q', 'claude')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({ retryable: true, status: 529 });
      expect(fake.requests).toHaveLength(n);
    }
    expect((await engine().ask('q', 'claude')).citations).toHaveLength(2);
    expect(fake.requests).toHaveLength(3);
    await expect(engine().ask('q', 'perplexity')).rejects.toBeInstanceOf(ProviderError);
  });
});

describe('claudeCitations', () => {
  it('uses the searched results when the text cites nothing inline', () => {
    expect(
      claudeCitations([
        { type: 'web_search_tool_result', content: [{ type: 'web_search_result', url: 'https://s/', title: 'S' }] },
        { type: 'text', text: 'answer', citations: null },
      ]),
    ).toEqual([{ url: 'https://s/', title: 'S' }]);
  });
});
