import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDataForSeoAiOverviewEngine,
  readAiOverview,
} from '../../../src/providers/answer/dataforseo-ai-overview.ts';
import type { DataForSeoItem } from '../../../src/providers/search/dataforseo.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import {
  DFS_GOOGLE,
  googleItems,
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
  fake.setItems((task) => googleItems(task));
  fake.setTaskStatus(null);
});

const engine = (over: { password?: string } = {}) =>
  createDataForSeoAiOverviewEngine({
    login: fake.login,
    password: fake.password,
    baseUrl: fake.baseUrl,
    clock: fixedClock,
    ...over,
  });

describe('DataForSEO AI Overview answer engine', () => {
  it('asks for asynchronously loaded overviews and reads markdown plus every reference', async () => {
    const answer = await engine().ask('how to descale a kettle', 'google_ai_overview', {
      location: 'London, England, United Kingdom',
      language: 'en-GB',
      idempotencyKey: 'trk3:aio',
    });
    expect(fake.requests[0]!.path).toBe(DFS_GOOGLE);
    expect(fake.tasks()[0]).toEqual({
      keyword: 'how to descale a kettle',
      location_name: 'London,England,United Kingdom',
      language_code: 'en',
      device: 'desktop',
      depth: 10,
      load_async_ai_overview: true,
      tag: 'trk3:aio',
    });
    expect(answer).toEqual({
      provider: 'dataforseo-ai-overview',
      platform: 'google_ai_overview',
      model: null,
      text: '**how to descale a kettle** is covered by several guides.\n\n- Start with the basics.',
      citations: [
        { url: 'https://delta.example/how-to-descale-a-kettle', title: 'Delta Docs' },
        { url: 'https://www.alpha.example/how-to-descale-a-kettle-1', title: 'how to descale a kettle – guide 1' },
      ],
      fetchedAt: '2025-05-26T10:00:00.000Z',
    });
  });

  it('answers empty, not failed, when the page shows no AI Overview', async () => {
    fake.setItems((task) => googleItems({ ...task, load_async_ai_overview: false }));
    const answer = await engine().ask('no overview here', 'google_ai_overview');
    expect(answer).toMatchObject({ text: '', citations: [] });
  });

  it('surfaces task errors and auth failures as ProviderErrors', async () => {
    fake.setTaskStatus(() => ({ status_code: 40501, status_message: "Invalid Field: 'keyword'." }));
    await expect(engine().ask('x', 'google_ai_overview')).rejects.toMatchObject({ retryable: false });
    fake.setTaskStatus(null);
    await expect(engine({ password: 'nope' }).ask('x', 'google_ai_overview')).rejects.toMatchObject({
      retryable: false,
      status: 401,
    });
    await expect(engine().ask('x', 'chatgpt')).rejects.toBeInstanceOf(ProviderError);
  });
});

describe('readAiOverview', () => {
  it('falls back to element titles and text when there is no markdown', () => {
    const items: DataForSeoItem[] = [
      { type: 'organic', url: 'https://x/' },
      {
        type: 'ai_overview',
        items: [
          {
            type: 'ai_overview_element',
            title: 'Step one',
            text: 'Boil vinegar.',
            references: [{ url: 'https://r1/', title: null, source: 'R1 Source' }],
          },
          { type: 'ai_overview_element', title: null, text: 'Rinse twice.', references: null },
        ],
        references: null,
      },
    ];
    expect(readAiOverview(items)).toEqual({
      text: 'Step one\nBoil vinegar.\n\nRinse twice.',
      citations: [{ url: 'https://r1/', title: 'R1 Source' }],
    });
    expect(readAiOverview([{ type: 'organic' }])).toBeNull();
  });
});
