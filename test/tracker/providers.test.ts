import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeOpenAi, lastUserText, type FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { startFakePerplexity, type FakePerplexity } from '../helpers/fake-providers/perplexity.ts';
import {
  startFakeDataForSeo,
  googleItems,
  DFS_GOOGLE,
  type FakeDataForSeo,
} from '../helpers/fake-providers/dataforseo.ts';
import { BRAND, call, project, scan, type Any } from './fixture.ts';

/**
 * AI answer platforms through the real adapters, against loopback servers that speak each provider's wire format:
 * OpenAI-compatible chat with web-search annotations (chatgpt), Perplexity Sonar (perplexity) and DataForSEO's
 * Google AI Overview (google_ai_overview). Organic runs on the sample archive; claude has no key (missing coverage).
 */

let t: TestApp;
let openai: FakeOpenAi;
let pplx: FakePerplexity;
let dfs: FakeDataForSeo;

const RAPID = 'https://www.rapidflowplumbing.com/emergency-plumbing/';

beforeAll(async () => {
  [openai, pplx, dfs] = await Promise.all([startFakeOpenAi(), startFakePerplexity(), startFakeDataForSeo()]);
  // ChatGPT cites a directory first and RapidFlow second, and names the brand, for "emergency plumber" only.
  openai.setReply((body) => {
    const prompt = lastUserText(body);
    if (!prompt.includes('emergency'))
      return {
        content: `Call a licensed plumber about ${prompt}.`,
        annotations: [
          {
            type: 'url_citation',
            url_citation: { url: 'https://www.homefixguide.com/x', title: 'x', start_index: 0, end_index: 1 },
          },
        ],
      };
    return {
      content: `For ${prompt} in Austin, ${BRAND} answers 24/7 (homefixguide.com) (rapidflowplumbing.com).`,
      annotations: [
        {
          type: 'url_citation',
          url_citation: {
            url: 'https://www.homefixguide.com/best-emergency-plumbers-austin/',
            title: 'Best',
            start_index: 0,
            end_index: 1,
          },
        },
        {
          type: 'url_citation',
          url_citation: { url: `${RAPID}?utm_source=openai`, title: 'RapidFlow', start_index: 2, end_index: 3 },
        },
      ],
    };
  });
  // The AI Overview cites RapidFlow first for "water heater repair" and shows no overview for the other keyword.
  dfs.setItems((task, path) => {
    const items = googleItems({ ...task, load_async_ai_overview: false });
    if (path !== DFS_GOOGLE || !String(task.keyword).includes('water heater')) return items;
    return [
      {
        type: 'ai_overview',
        rank_group: 1,
        rank_absolute: 1,
        markdown: 'Water heater repair in Austin costs $150 to $600.',
        items: [],
        references: [
          {
            type: 'ai_overview_reference',
            source: 'RapidFlow',
            domain: 'www.rapidflowplumbing.com',
            url: 'https://www.rapidflowplumbing.com/water-heater-repair/',
            title: 'Water heater repair',
          },
        ],
      },
      ...items,
    ];
  });
  t = await startTestApp({
    env: {
      OPENAI_API_KEY: openai.apiKey!,
      OPENAI_BASE_URL: openai.baseUrl,
      PERPLEXITY_API_KEY: pplx.apiKey,
      PERPLEXITY_BASE_URL: pplx.baseUrl,
      DATAFORSEO_LOGIN: dfs.login,
      DATAFORSEO_PASSWORD: dfs.password,
      DATAFORSEO_BASE_URL: dfs.baseUrl,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await Promise.all([openai?.close(), pplx?.close(), dfs?.close()]);
});

describe('a scan on every platform', () => {
  let body: Any;
  let runId: string;
  let projectId: string;
  let key: string;

  beforeAll(async () => {
    const tenant = await t.tenant('agency');
    key = tenant.key;
    projectId = await project(t, tenant.clientId, {
      platforms: ['organic', 'chatgpt', 'perplexity', 'claude', 'google_ai_overview'],
      location: 'Austin, Texas, United States',
    });
    const started = await scan(t, key, projectId);
    runId = started.run_id;
    expect(started).toMatchObject({
      status: 'queued',
      platforms: ['organic', 'chatgpt', 'perplexity', 'google_ai_overview'],
      missing_platforms: ['claude'],
      units: 8,
    });
    body = (await call(t, 'GET', `/reporter/projects/${projectId}/results`, key)).body;
  });

  it('asks each provider once per query with a stable idempotency key derived from the run, platform and query', async () => {
    // The durable run (runner queue row) behind the scan: keys stay the same across attempts and restarts.
    const { id: run } = await t.db
      .selectFrom('runs')
      .select('id')
      .where('resource_id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(openai.bodies()).toHaveLength(2);
    for (const b of openai.bodies())
      expect(b).toMatchObject({
        model: 'gpt-4o-search-preview',
        web_search_options: { user_location: { type: 'approximate' } },
      });
    expect(openai.requests.map((r) => r.key).sort()).toEqual([`${run}:chatgpt:0`, `${run}:chatgpt:1`]);
    expect(pplx.requests.map((r) => r.key).sort()).toEqual([`${run}:perplexity:0`, `${run}:perplexity:1`]);
    expect(
      dfs
        .tasks()
        .map((task) => task.tag)
        .sort(),
    ).toEqual([`${run}:google_ai_overview:0`, `${run}:google_ai_overview:1`]);
    for (const task of dfs.tasks())
      expect(task).toMatchObject({ load_async_ai_overview: true, location_name: 'Austin,Texas,United States' });
  });

  it('chatgpt: mentioned from the answer text, cited and positioned from the url_citation annotations', () => {
    const chatgpt = body.platforms.find((p: Any) => p.platform === 'chatgpt');
    expect(chatgpt).toMatchObject({ status: 'complete', provider: 'openai-search', source_run_id: runId });
    const [emergency, heater] = chatgpt.results;
    expect(emergency).toMatchObject({
      query: 'emergency plumber',
      status: 'complete',
      position: 2,
      brand_mentioned: true,
      brand_cited: true,
    });
    expect(emergency.cited_urls).toEqual([
      'https://www.homefixguide.com/best-emergency-plumbers-austin/',
      `${RAPID}?utm_source=openai`,
    ]);
    expect(heater).toMatchObject({
      position: null,
      brand_mentioned: false,
      brand_cited: false,
      cited_urls: ['https://www.homefixguide.com/x'],
    });
    // SPI: position 2 weighs 0.9, the absent query 0 → 100 * 0.9 / 2.
    expect(chatgpt.spi).toBe(45);
    expect(chatgpt.denominators).toMatchObject({
      queries_tracked: 2,
      queries_measured: 2,
      present: 1,
      mentioned: 1,
      cited: 1,
      ranked: 1,
      average_position: 2,
    });
  });

  it('perplexity: the Sonar search_results are the citations; a brand absent from both is measured as absent', () => {
    const p = body.platforms.find((x: Any) => x.platform === 'perplexity');
    expect(p).toMatchObject({ status: 'complete', provider: 'perplexity', spi: 0 });
    expect(p.results[0]).toMatchObject({
      position: null,
      brand_mentioned: false,
      brand_cited: false,
      cited_urls: ['https://one.example/article', 'https://two.example/post'],
    });
    expect(p.denominators).toMatchObject({ queries_measured: 2, present: 0 });
  });

  it('google_ai_overview: references are citations; a SERP without an overview is a measurement with nothing cited', () => {
    const g = body.platforms.find((x: Any) => x.platform === 'google_ai_overview');
    expect(g).toMatchObject({ status: 'complete', provider: 'dataforseo-ai-overview', spi: 50 });
    const [emergency, heater] = g.results;
    expect(emergency).toMatchObject({ status: 'complete', position: null, brand_cited: false, cited_urls: [] });
    expect(heater).toMatchObject({
      status: 'complete',
      position: 1,
      brand_cited: true,
      brand_mentioned: false,
      cited_urls: ['https://www.rapidflowplumbing.com/water-heater-repair/'],
    });
  });

  it('claude has no provider: not scanned, not charged, absent from the results and listed as missing coverage', () => {
    expect(body.platforms.map((p: Any) => p.platform)).toEqual([
      'chatgpt',
      'google_ai_overview',
      'organic',
      'perplexity',
    ]);
    expect(body.coverage).toEqual({
      expected: ['organic', 'chatgpt', 'perplexity', 'claude', 'google_ai_overview'],
      present: ['organic', 'chatgpt', 'perplexity', 'google_ai_overview'],
      missing: ['claude'],
      reasons: { claude: 'not_configured' },
    });
    // Overall: organic 0.8 + 1.0, chatgpt 0.9, perplexity 0, AI overview 1.0 over 8 measured pairs.
    expect(body.spi).toEqual({
      spi: 46.3,
      denominators: {
        pairs_measured: 8,
        pairs_present: 4,
        platforms_included: ['chatgpt', 'google_ai_overview', 'organic', 'perplexity'],
      },
    });
  });

  it('the brand summary counts AI mentions and citations per platform with denominators, and the most cited URLs', async () => {
    const clientId = (await call(t, 'GET', `/reporter/projects/${projectId}`, key)).body.client_id;
    const r = await call(t, 'GET', '/reporter/brand-summary', key, { query: { client_id: clientId } });
    expect(r.status).toBe(200);
    expect(r.body.totals).toEqual({
      answers_measured: 6,
      mentioned: 1,
      cited: 2,
      mention_rate: 0.167,
      citation_rate: 0.333,
    });
    expect(r.body.platforms.map((p: Any) => [p.platform, p.answers_measured, p.mentioned, p.cited])).toEqual([
      ['chatgpt', 2, 1, 1],
      ['perplexity', 2, 0, 0],
      ['google_ai_overview', 2, 0, 1],
    ]);
    expect(r.body.coverage).toMatchObject({
      expected: ['chatgpt', 'perplexity', 'claude', 'google_ai_overview'],
      missing: ['claude'],
      reasons: { claude: 'not_configured' },
    });
    expect(r.body.top_cited_urls[0]).toEqual({
      url: 'https://one.example/article',
      citations: 2,
      platforms: ['perplexity'],
      brand_domain: false,
    });
    expect(r.body.top_cited_urls).toContainEqual({
      url: 'https://www.rapidflowplumbing.com/water-heater-repair/',
      citations: 1,
      platforms: ['google_ai_overview'],
      brand_domain: true,
    });
    // Organic results are not AI citations.
    expect(r.body.top_cited_urls.map((u: Any) => u.url)).not.toContain(
      'https://austinpipepros.com/emergency-plumber-austin',
    );
  });
});

describe('provider failures', () => {
  it('a platform whose calls fail for some queries is partial; all of them, failed; the run is partial and charged', async () => {
    const { clientId, key } = await t.tenant('agency');
    const id = await project(t, clientId, { platforms: ['organic', 'chatgpt', 'perplexity'] });
    openai.reset();
    pplx.reset();
    // 401 is not retried by the adapters: one failed chatgpt query, both perplexity queries.
    openai.failNext(401, 1);
    pplx.failNext(401, 2);
    const started = await scan(t, key, id);
    const r = await call(t, 'GET', `/reporter/projects/${id}/results`, key, { query: { snapshot: 'latest_run' } });
    expect(r.body.run_status).toBe('partial');
    const chatgpt = r.body.platforms.find((p: Any) => p.platform === 'chatgpt');
    expect(chatgpt.status).toBe('partial');
    expect(chatgpt.denominators).toMatchObject({ queries_tracked: 2, queries_measured: 1, queries_failed: 1 });
    expect(chatgpt.results.filter((q: Any) => q.status === 'failed')).toHaveLength(1);
    expect(chatgpt.results.find((q: Any) => q.status === 'failed').error).toMatch(/openai-search/);
    expect(r.body.coverage).toMatchObject({ missing: ['perplexity'], reasons: { perplexity: 'failed_in_run' } });
    const p = (await call(t, 'GET', `/reporter/projects/${id}`, key)).body;
    expect(p.latest_run).toMatchObject({
      run_id: started.run_id,
      status: 'partial',
      billing_status: 'finalized',
      error: null,
    });
    const usage = (await call(t, 'GET', '/usage', key)).body;
    expect(usage.windows['24h']).toMatchObject({ used: 6, reserved: 0 });
  });

  it('every platform failing fails the run and releases its units', async () => {
    const { clientId, key } = await t.tenant('agency');
    const id = await project(t, clientId, { platforms: ['chatgpt'] });
    openai.reset();
    openai.failNext(401, 2);
    await scan(t, key, id);
    const p = (await call(t, 'GET', `/reporter/projects/${id}`, key)).body;
    expect(p.latest_run).toMatchObject({ status: 'failed', billing_status: 'released', spi: null });
    expect(p.latest_run.error).toMatch(/^Every platform failed: chatgpt: /);
    expect(p.spi.platforms).toEqual([]);
    expect(p.spi.coverage).toMatchObject({ missing: ['chatgpt'], reasons: { chatgpt: 'no_successful_result' } });
    expect((await call(t, 'GET', '/usage', key)).body.windows['24h']).toMatchObject({ used: 0, reserved: 0 });
    const trends = (await call(t, 'GET', `/reporter/projects/${id}/trends`, key, { query: { days: 1 } })).body;
    expect(trends.points).toEqual([
      { date: trends.to, run_status: 'failed', run_id: null, spi: null, platforms: {}, runs: 1 },
    ]);
  });
});
