import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { startFakeOpenAi, lastUserText, type FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { BRAND, call, DAY, project, scan, type Any } from './fixture.ts';

/**
 * Snapshot semantics and trends: latest_per_platform combines each platform's newest successful result (a newer
 * partial run does not hide an older complete platform), latest_run shows only the newest finished run and marks it
 * partial, a never-measured platform is missing coverage; trend days without a successful run are null gaps.
 */

let t: TestApp;
let openai: FakeOpenAi;
// 2026-11-01T12:00:00Z; trend days are UTC days of this clock.
const clock = createFakeClock(Date.parse('2026-11-01T12:00:00.000Z'));

beforeAll(async () => {
  openai = await startFakeOpenAi();
  // ChatGPT names and cites RapidFlow first in every answer.
  openai.setReply((body) => ({
    content: `${BRAND} handles ${lastUserText(body)}.`,
    annotations: [
      {
        type: 'url_citation',
        url_citation: { url: 'https://www.rapidflowplumbing.com/', title: 'RapidFlow', start_index: 0, end_index: 1 },
      },
    ],
  }));
  t = await startTestApp({ clock, env: { OPENAI_API_KEY: openai.apiKey!, OPENAI_BASE_URL: openai.baseUrl } });
});
afterAll(async () => {
  await t?.close();
  await openai?.close();
});

const results = (key: string, id: string, snapshot?: string) =>
  call(t, 'GET', `/reporter/projects/${id}/results`, key, { query: snapshot ? { snapshot } : {} });
const byPlatform = (body: Any) => Object.fromEntries(body.platforms.map((p: Any) => [p.platform, p]));

describe('snapshots', () => {
  let key: string;
  let id: string;
  let run1: string;
  let run2: string;

  beforeAll(async () => {
    const tenant = await t.tenant('agency');
    key = tenant.key;
    id = await project(t, tenant.clientId, { platforms: ['organic', 'chatgpt', 'perplexity'] });
  });

  it('before any scan: no platform has data, every platform is missing coverage, nothing is zero', async () => {
    const r = (await results(key, id)).body;
    expect(r).toMatchObject({
      latest_run_id: null,
      run_status: null,
      platforms: [],
      spi: { spi: null, denominators: { pairs_measured: 0 } },
    });
    expect(r.coverage).toEqual({
      expected: ['organic', 'chatgpt', 'perplexity'],
      present: [],
      missing: ['organic', 'chatgpt', 'perplexity'],
      reasons: { organic: 'no_successful_result', chatgpt: 'no_successful_result', perplexity: 'not_configured' },
    });
    const latestRun = (await results(key, id, 'latest_run')).body;
    expect(latestRun.coverage.reasons).toEqual({
      organic: 'no_finished_run',
      chatgpt: 'no_finished_run',
      perplexity: 'not_configured',
    });
  });

  it('a complete run: both snapshots agree; the platform never measured (no provider) stays missing', async () => {
    run1 = (await scan(t, key, id)).run_id;
    const per = (await results(key, id)).body;
    const last = (await results(key, id, 'latest_run')).body;
    for (const r of [per, last]) {
      expect(r).toMatchObject({ latest_run_id: run1, run_status: 'complete' });
      expect(r.platforms.map((p: Any) => [p.platform, p.source_run_id, p.status, p.run_status])).toEqual([
        ['chatgpt', run1, 'complete', 'complete'],
        ['organic', run1, 'complete', 'complete'],
      ]);
      expect(r.coverage).toMatchObject({
        present: ['organic', 'chatgpt'],
        missing: ['perplexity'],
        reasons: { perplexity: 'not_configured' },
      });
    }
    expect(per.snapshot.method).toBe('latest_per_platform');
    expect(per.snapshot.description).toMatch(/newest successful/);
    expect(last.snapshot.method).toBe('latest_run');
    expect(byPlatform(per).chatgpt.spi).toBe(100);
  });

  it('a newer partial run (chatgpt failed) does not hide the older complete chatgpt result under latest_per_platform', async () => {
    clock.advance(DAY);
    openai.failNext(401, 2);
    run2 = (await scan(t, key, id)).run_id;
    const per = (await results(key, id)).body;
    expect(per).toMatchObject({ latest_run_id: run2, run_status: 'partial' });
    const p = byPlatform(per);
    expect(p.organic).toMatchObject({ source_run_id: run2, run_status: 'partial', status: 'complete' });
    expect(p.chatgpt).toMatchObject({ source_run_id: run1, run_status: 'complete', status: 'complete', spi: 100 });
    expect(p.chatgpt.results).toHaveLength(2);
    expect(per.coverage).toMatchObject({ present: ['organic', 'chatgpt'], missing: ['perplexity'] });
    // The overall SPI pools organic (run 2) and chatgpt (run 1).
    expect(per.spi).toEqual({
      spi: 95,
      denominators: { pairs_measured: 4, pairs_present: 4, platforms_included: ['chatgpt', 'organic'] },
    });
  });

  it('…and latest_run reports the run as partial, with chatgpt missing because it failed in that run', async () => {
    const last = (await results(key, id, 'latest_run')).body;
    expect(last).toMatchObject({ latest_run_id: run2, run_status: 'partial' });
    expect(last.platforms.map((p: Any) => [p.platform, p.source_run_id, p.run_status])).toEqual([
      ['organic', run2, 'partial'],
    ]);
    expect(last.coverage).toEqual({
      expected: ['organic', 'chatgpt', 'perplexity'],
      present: ['organic'],
      missing: ['chatgpt', 'perplexity'],
      reasons: { chatgpt: 'failed_in_run', perplexity: 'not_configured' },
    });
    expect(last.spi.denominators).toEqual({ pairs_measured: 2, pairs_present: 2, platforms_included: ['organic'] });
    // One platform only, on request.
    const only = (
      await call(t, 'GET', `/reporter/projects/${id}/results`, key, {
        query: { snapshot: 'latest_run', platform: 'chatgpt' },
      })
    ).body;
    expect(only).toMatchObject({
      platforms: [],
      coverage: { expected: ['chatgpt'], missing: ['chatgpt'], reasons: { chatgpt: 'failed_in_run' } },
    });
  });

  it('a platform partial in a newer run is its newest successful result, marked partial with its denominators', async () => {
    clock.advance(DAY);
    openai.failNext(401, 1);
    const run3 = (await scan(t, key, id)).run_id;
    const chatgpt = byPlatform((await results(key, id)).body).chatgpt;
    expect(chatgpt).toMatchObject({ source_run_id: run3, status: 'partial', run_status: 'partial', spi: 100 });
    expect(chatgpt.denominators).toMatchObject({ queries_tracked: 2, queries_measured: 1, queries_failed: 1 });
    expect(chatgpt.results.map((r: Any) => r.status).sort()).toEqual(['complete', 'failed']);
    const failed = chatgpt.results.find((r: Any) => r.status === 'failed');
    expect(failed).toMatchObject({ position: null, brand_mentioned: false, brand_cited: false, cited_urls: [] });
    expect(failed.error).toMatch(/openai-search/);
  });

  it('the project view reads the same latest_per_platform snapshot', async () => {
    const p = (await call(t, 'GET', `/reporter/projects/${id}`, key)).body;
    const per = (await results(key, id)).body;
    expect(p.spi.overall).toEqual(per.spi);
    expect(p.spi.platforms).toEqual(per.platforms.map(({ results: _r, ...rest }: Any) => rest));
    expect(p.spi.coverage).toEqual(per.coverage);
  });
});

describe('trends', () => {
  it('one point per UTC day; days without a successful run are null gaps; a failed day says failed; the best run of a day wins', async () => {
    const { clientId, key } = await t.tenant('agency');
    const id = await project(t, clientId, { platforms: ['chatgpt'] });
    const start = Date.parse('2026-11-10T12:00:00.000Z');
    clock.set(start);
    // Day 1 (Nov 10): complete. Day 2: nothing. Day 3: failed. Day 4: partial, then complete (the complete one wins).
    // Day 5: complete then partial (still the complete one). Day 6: partial only.
    const day1 = (await scan(t, key, id)).run_id;
    clock.set(start + 2 * DAY);
    openai.failNext(401, 2);
    await scan(t, key, id);
    clock.set(start + 3 * DAY);
    openai.failNext(401, 1);
    await scan(t, key, id);
    const day4 = (await scan(t, key, id)).run_id;
    clock.set(start + 4 * DAY);
    const day5 = (await scan(t, key, id)).run_id;
    openai.failNext(401, 1);
    await scan(t, key, id);
    clock.set(start + 5 * DAY);
    openai.failNext(401, 1);
    const day6 = (await scan(t, key, id)).run_id;

    const r = await call(t, 'GET', `/reporter/projects/${id}/trends`, key, { query: { days: 7 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      project_id: id,
      days: 7,
      from: '2026-11-09',
      to: '2026-11-15',
      timezone: 'UTC',
      platforms_expected: ['chatgpt'],
    });
    expect(r.body.points).toEqual([
      { date: '2026-11-09', run_status: null, run_id: null, spi: null, platforms: {}, runs: 0 },
      { date: '2026-11-10', run_status: 'complete', run_id: day1, spi: 100, platforms: { chatgpt: 100 }, runs: 1 },
      { date: '2026-11-11', run_status: null, run_id: null, spi: null, platforms: {}, runs: 0 },
      { date: '2026-11-12', run_status: 'failed', run_id: null, spi: null, platforms: {}, runs: 1 },
      { date: '2026-11-13', run_status: 'complete', run_id: day4, spi: 100, platforms: { chatgpt: 100 }, runs: 2 },
      { date: '2026-11-14', run_status: 'complete', run_id: day5, spi: 100, platforms: { chatgpt: 100 }, runs: 2 },
      { date: '2026-11-15', run_status: 'partial', run_id: day6, spi: 100, platforms: { chatgpt: 100 }, runs: 1 },
    ]);
    // The window ends today by the injected clock: a shorter window drops the older days.
    const short = (await call(t, 'GET', `/reporter/projects/${id}/trends`, key, { query: { days: 2 } })).body;
    expect(short.points.map((p: Any) => p.date)).toEqual(['2026-11-14', '2026-11-15']);
  });

  it('a run finishing just before midnight UTC counts on that day, not the next', async () => {
    const { clientId, key } = await t.tenant('agency');
    const id = await project(t, clientId, { platforms: ['chatgpt'] });
    clock.set(Date.parse('2026-12-01T23:59:57.000Z'));
    const late = (await scan(t, key, id)).run_id;
    clock.set(Date.parse('2026-12-02T00:00:05.000Z'));
    const points = (await call(t, 'GET', `/reporter/projects/${id}/trends`, key, { query: { days: 2 } })).body.points;
    expect(points).toEqual([
      { date: '2026-12-01', run_status: 'complete', run_id: late, spi: 100, platforms: { chatgpt: 100 }, runs: 1 },
      { date: '2026-12-02', run_status: null, run_id: null, spi: null, platforms: {}, runs: 0 },
    ]);
  });
});
