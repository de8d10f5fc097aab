import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDataForSeoSearch, type DataForSeoOptions } from '../../../src/providers/search/dataforseo.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import {
  DFS_GOOGLE,
  DFS_YOUTUBE,
  startFakeDataForSeo,
  type FakeDataForSeo,
} from '../../helpers/fake-providers/dataforseo.ts';
import { fixedClock } from '../../helpers/fake-providers/server.ts';

let fake: FakeDataForSeo;
beforeAll(async () => {
  fake = await startFakeDataForSeo();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.setTaskStatus(null);
});

function provider(over: Partial<DataForSeoOptions> = {}) {
  const search = createDataForSeoSearch({
    login: fake.login,
    password: fake.password,
    baseUrl: fake.baseUrl,
    clock: fixedClock,
    ...over,
  });
  return { search };
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('DataForSEO search adapter', () => {
  it('posts one Live Advanced task with Basic auth and maps organic items', async () => {
    const { search } = provider();
    const res = await search.search('best trail shoes', {
      platform: 'organic',
      location: 'Austin, Texas, United States',
      language: 'en-US',
      idempotencyKey: 'run1:research:organic',
    });

    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(DFS_GOOGLE);
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${fake.login}:${fake.password}`).toString('base64')}`);
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    expect(req.body).toEqual([
      {
        keyword: 'best trail shoes',
        location_name: 'Austin,Texas,United States',
        language_code: 'en',
        device: 'desktop',
        tag: 'run1:research:organic',
        depth: 10,
      },
    ]);

    expect(res).toMatchObject({
      provider: 'dataforseo',
      platform: 'organic',
      query: 'best trail shoes',
      location: 'Austin, Texas, United States',
      language: 'en-US',
      fetchedAt: '2025-05-26T10:00:00.000Z',
    });
    expect(res.results).toEqual([
      {
        position: 1,
        url: 'https://www.alpha.example/best-trail-shoes-1',
        title: 'best trail shoes – guide 1 | www.alpha.example',
        snippet: 'Everything about best trail shoes, part 1.',
      },
      {
        position: 2,
        url: 'https://beta.example/best-trail-shoes-2',
        title: 'best trail shoes – guide 2 | beta.example',
        snippet: 'Everything about best trail shoes, part 2.',
      },
      {
        position: 3,
        url: 'https://gamma.example/best-trail-shoes-3',
        title: 'best trail shoes – guide 3 | gamma.example',
        snippet: 'Everything about best trail shoes, part 3.',
      },
    ]);
  });

  it('defaults to the US location code, maps language tags and bare country codes, honours limit', async () => {
    const { search } = provider();
    const a = await search.search('kaffee', { platform: 'organic', language: 'de-DE', limit: 2 });
    await search.search('tea', { platform: 'organic', location: 'GB', language: 'zh-Hant-TW', limit: 25 });
    const [t1, t2] = fake.tasks();
    expect(t1).toMatchObject({ location_code: 2840, language_code: 'de', depth: 10 });
    expect(t1).not.toHaveProperty('tag');
    expect(t2).toMatchObject({ location_name: 'United Kingdom', language_code: 'zh-TW', depth: 30 });
    expect(a.results.map((r) => r.position)).toEqual([1, 2]);
    expect(a.location).toBeNull();
  });

  it('reads the Google video pack from `video` elements', async () => {
    const { search } = provider();
    const res = await search.search('sourdough starter', { platform: 'google_video_pack' });
    expect(fake.requests[0]!.path).toBe(DFS_GOOGLE);
    expect(res.results).toEqual([
      {
        position: 1,
        url: 'https://www.youtube.com/watch?v=sourdo01',
        title: 'sourdough starter explained',
        snippet: 'YouTube',
      },
      { position: 2, url: 'https://vimeo.com/1702', title: 'sourdough starter in 5 minutes', snippet: 'Vimeo' },
    ]);
  });

  it('searches YouTube through the YouTube organic endpoint', async () => {
    const { search } = provider();
    const res = await search.search('knot tying', { platform: 'youtube_search', language: 'en', limit: 2 });
    expect(fake.requests[0]!.path).toBe(DFS_YOUTUBE);
    expect(fake.tasks()[0]).toEqual({
      keyword: 'knot tying',
      location_code: 2840,
      language_code: 'en',
      device: 'desktop',
      block_depth: 20,
    });
    expect(res.results).toEqual([
      {
        position: 1,
        url: 'https://www.youtube.com/watch?v=knot-tyi1',
        title: 'knot tying video 1',
        snippet: 'A video about knot tying (1).',
      },
      {
        position: 2,
        url: 'https://www.youtube.com/watch?v=knot-tyi2',
        title: 'knot tying video 2',
        snippet: 'A video about knot tying (2).',
      },
    ]);
  });

  it('refuses platforms it does not serve without calling out', async () => {
    const { search } = provider();
    const err = await failure(search.search('x', { platform: 'chatgpt' }));
    expect(err.retryable).toBe(false);
    expect(fake.requests).toHaveLength(0);
  });

  it('fails a 429 after one request, retryable with its Retry-After in ms; the next call succeeds', async () => {
    const { search } = provider();
    fake.failNext(429, 1, { retryAfter: '2' });
    const err = await failure(search.search('retry me', { platform: 'organic' }));
    expect(err).toMatchObject({ provider: 'dataforseo', retryable: true, status: 429, retryAfterMs: 2000 });
    expect(fake.requests).toHaveLength(1);
    const res = await search.search('retry me', { platform: 'organic' });
    expect(res.results).toHaveLength(3);
    expect(fake.requests).toHaveLength(2);
  });

  it('converts an HTTP-date Retry-After into the ms left until that date', async () => {
    const { search } = provider();
    fake.failNext(429, 1, { retryAfter: new Date(Date.now() + 30_000).toUTCString() });
    const err = await failure(search.search('retry me', { platform: 'organic' }));
    expect(err).toMatchObject({ retryable: true, status: 429 });
    // An HTTP date has whole seconds, so up to 1 s of the 30 s is lost to truncation (plus the round trip).
    expect(err.retryAfterMs).toBeGreaterThan(27_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('fails repeated 500s after one request with a retryable ProviderError, leaving retries to the caller', async () => {
    const { search } = provider();
    fake.failNext(500, 5);
    const err = await failure(search.search('down', { platform: 'organic' }));
    expect(err).toMatchObject({ provider: 'dataforseo', retryable: true, status: 500, retryAfterMs: undefined });
    expect(fake.requests).toHaveLength(1);
  });

  it('fails at once, not retryable, on bad credentials', async () => {
    const { search } = provider({ password: 'wrong' });
    const err = await failure(search.search('x', { platform: 'organic' }));
    expect(err).toMatchObject({ retryable: false, status: 401 });
    expect(fake.requests).toHaveLength(1);
  });

  it('turns task-level status codes into errors, retryable only where a retry can help', async () => {
    const { search } = provider();
    fake.setTaskStatus(() => ({ status_code: 40501, status_message: "Invalid Field: 'depth'." }));
    const invalid = await failure(search.search('x', { platform: 'organic' }));
    expect(invalid.retryable).toBe(false);
    expect(invalid.message).toContain('40501');

    fake.setTaskStatus(() => ({ status_code: 40202, status_message: 'Rate-limit per minute exceeded.' }));
    expect((await failure(search.search('x', { platform: 'organic' }))).retryable).toBe(true);

    fake.setTaskStatus(() => ({ status_code: 50000, status_message: 'Internal Error.' }));
    expect((await failure(search.search('x', { platform: 'organic' }))).retryable).toBe(true);

    fake.setTaskStatus(() => ({ status_code: 40102, status_message: 'No Search Results.' }));
    expect((await search.search('x', { platform: 'organic' })).results).toEqual([]);
  });

  it('times out a request that never answers', async () => {
    const { search } = provider({ timeoutMs: 80 });
    fake.hangNext(1);
    const err = await failure(search.search('slow', { platform: 'organic' }));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out after 80 ms/);
  });

  it('carries the idempotency key as the task tag, so a deduping provider runs the step once', async () => {
    const { search } = provider();
    const first = await search.search('same step', { platform: 'organic', idempotencyKey: 'run7:serp' });
    const again = await search.search('same step', { platform: 'organic', idempotencyKey: 'run7:serp' });
    expect(again.results).toEqual(first.results);
    expect(fake.callsFor('run7:serp')).toBe(2);
    expect(fake.runsFor('run7:serp')).toBe(1);
  });
});
