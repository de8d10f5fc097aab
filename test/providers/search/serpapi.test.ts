import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSerpApiSearch, type SerpApiOptions } from '../../../src/providers/search/serpapi.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { googlePage, startFakeSerpApi, youtubePage, type FakeSerpApi } from '../../helpers/fake-providers/serpapi.ts';
import { fixedClock } from '../../helpers/fake-providers/server.ts';

let fake: FakeSerpApi;
beforeAll(async () => {
  fake = await startFakeSerpApi();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.setRespond((q) => (q.engine === 'youtube' ? youtubePage(q) : googlePage(q)));
});

function provider(over: Partial<SerpApiOptions> = {}) {
  return {
    search: createSerpApiSearch({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      clock: fixedClock,
      ...over,
    }),
  };
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('SerpApi search adapter', () => {
  it('sends the documented Google query and maps organic_results', async () => {
    const { search } = provider();
    const res = await search.search('best trail shoes', {
      platform: 'organic',
      location: 'Austin, Texas, United States',
      language: 'en-US',
      limit: 2,
    });
    const req = fake.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/search.json');
    expect(req.query).toEqual({
      engine: 'google',
      q: 'best trail shoes',
      location: 'Austin, Texas, United States',
      hl: 'en',
      gl: 'us',
      num: '2',
      api_key: fake.apiKey,
    });
    expect(res).toMatchObject({ provider: 'serpapi', platform: 'organic', fetchedAt: '2025-05-26T10:00:00.000Z' });
    expect(res.results).toEqual([
      {
        position: 1,
        url: 'https://site1.example/best-trail-shoes',
        title: 'best trail shoes – guide 1',
        snippet: 'Everything about best trail shoes, part 1.',
      },
      {
        position: 2,
        url: 'https://site2.example/best-trail-shoes',
        title: 'best trail shoes – guide 2',
        snippet: 'Everything about best trail shoes, part 2.',
      },
    ]);
  });

  it('maps language and country without a location; a bare country becomes gl only', async () => {
    const { search } = provider();
    await search.search('kaffee', { platform: 'organic', language: 'de-AT' });
    await search.search('tea', { platform: 'organic', location: 'United Kingdom', language: 'en' });
    await search.search('chá', { platform: 'organic', language: 'pt_BR' });
    expect(fake.requests.map((r) => [r.query.hl, r.query.gl, r.query.location])).toEqual([
      ['de', 'at', undefined],
      ['en', 'gb', undefined],
      ['pt', 'br', undefined],
    ]);
  });

  it('reads the video pack from inline_videos, falling back to video_results', async () => {
    const { search } = provider();
    const res = await search.search('sourdough starter', { platform: 'google_video_pack' });
    expect(fake.requests[0]!.query.engine).toBe('google');
    expect(fake.requests[0]!.query).not.toHaveProperty('num');
    expect(res.results).toEqual([
      {
        position: 1,
        url: 'https://www.youtube.com/watch?v=sourdo01',
        title: 'sourdough starter explained',
        snippet: 'Explainers · YouTube · Jan 10, 2025 · 8:01',
      },
      { position: 2, url: 'https://vimeo.com/1702', title: 'sourdough starter in 5 minutes', snippet: 'Vimeo' },
    ]);

    fake.setRespond(() => ({
      search_metadata: { status: 'Success' },
      video_results: [{ position: 1, title: 'V', link: 'https://v.example/1', snippet: 'a video' }],
    }));
    const fallback = await search.search('tbm style', { platform: 'google_video_pack' });
    expect(fallback.results).toEqual([{ position: 1, url: 'https://v.example/1', title: 'V', snippet: 'a video' }]);
  });

  it('searches YouTube with engine=youtube and search_query, numbering results densely', async () => {
    const { search } = provider();
    const res = await search.search('knot tying', { platform: 'youtube_search', language: 'en-GB' });
    expect(fake.requests[0]!.query).toEqual({
      engine: 'youtube',
      search_query: 'knot tying',
      gl: 'gb',
      hl: 'en',
      api_key: fake.apiKey,
    });
    expect(res.results.map((r) => [r.position, r.url, r.snippet])).toEqual([
      [1, 'https://www.youtube.com/watch?v=knot-tyi1', 'A video about knot tying (1).'],
      [2, 'https://www.youtube.com/watch?v=knot-tyi2', 'A video about knot tying (2).'],
      [3, 'https://www.youtube.com/watch?v=knot-tyi3', 'A video about knot tying (3).'],
    ]);
  });

  it('treats "no results" as an empty page and other error bodies as failures', async () => {
    const { search } = provider();
    fake.setRespond(() => ({
      search_metadata: { status: 'Success' },
      error: "Google hasn't returned any results for this query.",
    }));
    expect((await search.search('zzzz', { platform: 'organic' })).results).toEqual([]);
    fake.setRespond(() => ({ error: 'Unsupported `Atlantis` location - location parameter.' }));
    const err = await failure(search.search('x', { platform: 'organic', location: 'Atlantis' }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('Unsupported');
  });

  it('fails at once on an invalid key, and never puts the key in the message', async () => {
    const { search } = provider({ apiKey: 'wrong-key-123' });
    const err = await failure(search.search('x', { platform: 'organic' }));
    expect(err).toMatchObject({ retryable: false, status: 401 });
    expect(err.message).not.toContain('wrong-key-123');
    expect(fake.requests).toHaveLength(1);
  });

  it('fails a 429 (with its Retry-After in ms) and repeated 503s after one request each, retryable', async () => {
    const { search } = provider();
    fake.failNext(429, 1, { retryAfter: '3' });
    const limited = await failure(search.search('a', { platform: 'organic' }));
    expect(limited).toMatchObject({ retryable: true, status: 429, retryAfterMs: 3000 });
    expect(fake.requests).toHaveLength(1);
    expect((await search.search('a', { platform: 'organic' })).results).toHaveLength(3);
    expect(fake.requests).toHaveLength(2);

    fake.reset();
    fake.failNext(503, 3);
    const err = await failure(search.search('b', { platform: 'organic' }));
    expect(err).toMatchObject({ retryable: true, status: 503 });
    expect(fake.requests).toHaveLength(1);
  });

  it('times out a request that never answers', async () => {
    const { search } = provider({ timeoutMs: 80 });
    fake.hangNext(1);
    const err = await failure(search.search('slow', { platform: 'youtube_search' }));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out/);
  });
});
