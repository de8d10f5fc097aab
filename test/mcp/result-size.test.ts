import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { PROJECT_LIMITS } from '../../src/engine/tracker/projects.ts';
import { CLIENT_LIMITS } from '../../src/engine/accounts/admin.ts';
import { METERED_OPERATIONS } from '../../src/engine/platform/usage.ts';
import { TRACKER_PLATFORMS } from '../../src/engine/tracker/types.ts';
import { MAX_TREND_DAYS } from '../../src/engine/tracker/trends.ts';
import { ARTIFACT_PARTS } from '../../src/engine/content/artifacts-view.ts';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { startFakePerplexity, type FakePerplexity } from '../helpers/fake-providers/perplexity.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-providers/anthropic.ts';
import { startFakeDataForSeo, type FakeDataForSeo } from '../helpers/fake-providers/dataforseo.ts';
import {
  createdJob,
  ESPRESSO,
  getArtifacts,
  idem,
  mcpClient,
  RAPIDFLOW_EMERGENCY,
  run,
  settle,
  startContentApp,
  tenant,
} from '../content/helpers/harness.ts';
import { caller } from '../prospects/fixture.ts';
import { call, DAY, project } from '../tracker/fixture.ts';
import { espressoArticle } from '../optimize/helpers/draft.ts';

/**
 * MCP clients (Claude Code among them) cap a tool result at about 25,000 tokens. This measures, at about 4
 * characters a token, the JSON of the whole `tools/call` result (content items and structuredContent, the default
 * summary text) of the largest realistic answer of every tool, through a real SDK client on the offline sample
 * archive and the real pipelines, with the biggest legitimate inputs, and fails when one is over 100,000 characters.
 * Every tool in OPERATIONS must be measured, so a new tool fails here until it has a case.
 *
 * Where the real setup is too slow or impossible offline, the closest cheaper equivalent:
 * - the offline web serves only the tracker's organic platform, so the AI answer platforms run through the real
 *   adapters against the loopback fakes of test/helpers/fake-providers (as test/tracker/providers.test.ts does);
 * - list pages of 100 content jobs and 100 optimizations hold copies of real completed rows (100 real runs would
 *   take minutes);
 * - trends (one point a day whatever the query count) come from a small project scanned daily for 90 days.
 */

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const LIMIT_CHARS = 100_000;
const CHARS_PER_TOKEN = 4;

let t: TestApp;
let openai: FakeOpenAi;
let pplx: FakePerplexity;
let anthropic: FakeAnthropic;
let dfs: FakeDataForSeo;

/** Every measured result, and the largest per tool with the case that produced it. */
const measured: { tool: string; chars: number; case: string }[] = [];
const largest = new Map<string, { chars: number; case: string }>();

type Session = Awaited<ReturnType<typeof mcpClient>>;

/** One tool call on `s`; records the size of the whole result and answers its structured body. */
async function measure(s: Session, name: string, args: Record<string, unknown>, label: string): Promise<Any> {
  const result = await s.client.callTool({ name, arguments: args });
  t.clock.advance(1_000);
  expect(result.isError, `${name} (${label}): ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
  const chars = JSON.stringify(result).length;
  measured.push({ tool: name, chars, case: label });
  const seen = largest.get(name);
  if (!seen || chars > seen.chars) largest.set(name, { chars, case: label });
  const cuts = (result._meta as { truncated?: { path: string; kept: number; of: number }[] } | undefined)?.truncated;
  if (!cuts) return structured<Any>(result);
  // A body too big for an assistant was cut to fit (src/transport/mcp/fit.ts): the text says so, and a read links
  // its whole answer, which reads back in full.
  const content = result.content as { type: string; text?: string; uri?: string }[];
  expect(content[0]!.text).toContain('Cut to fit');
  const link = content.find((c) => c.type === 'resource_link' && c.uri?.startsWith('agent-api://calls/'));
  if (!link) return structured<Any>(result);
  const full = await s.client.readResource({ uri: link.uri! });
  return JSON.parse((full.contents[0] as { text: string }).text) as Any;
}

const started = Date.now();
const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

beforeAll(async () => {
  [openai, pplx, anthropic, dfs] = await Promise.all([
    startFakeOpenAi(),
    startFakePerplexity(),
    startFakeAnthropic(),
    startFakeDataForSeo(),
  ]);
  t = await startContentApp({
    env: {
      OPENAI_API_KEY: openai.apiKey!,
      OPENAI_BASE_URL: openai.baseUrl,
      PERPLEXITY_API_KEY: pplx.apiKey,
      PERPLEXITY_BASE_URL: pplx.baseUrl,
      ANTHROPIC_API_KEY: anthropic.apiKey,
      ANTHROPIC_BASE_URL: anthropic.baseUrl,
      DATAFORSEO_LOGIN: dfs.login,
      DATAFORSEO_PASSWORD: dfs.password,
      DATAFORSEO_BASE_URL: dfs.baseUrl,
    },
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await Promise.all([openai?.close(), pplx?.close(), anthropic?.close(), dfs?.close()]);
});

/** Realistic keywords for a local plumbing business: 25 services × 20 places = 500 (the schema's maximum). */
const SERVICES = [
  'emergency plumber',
  'water heater repair',
  'tankless water heater',
  'burst pipe repair',
  'drain cleaning',
  'sewer line repair',
  'leak detection',
  'toilet repair',
  'garbage disposal repair',
  'water softener installation',
  'slab leak repair',
  'gas line repair',
  'sump pump installation',
  'frozen pipe repair',
  'whole house repiping',
  'hydro jetting',
  'faucet repair',
  'shower valve replacement',
  'water line replacement',
  'backflow testing',
  'clogged drain',
  'water heater installation',
  'commercial plumber',
  '24 hour plumber',
  'plumber near me',
];
const PLACES = [
  'austin',
  'austin tx',
  'round rock',
  'round rock tx',
  'cedar park',
  'pflugerville',
  'georgetown tx',
  'leander',
  'hutto',
  'buda',
  'kyle tx',
  'lakeway',
  'bee cave',
  'manor tx',
  'del valle',
  'south austin',
  'north austin',
  'east austin',
  'westlake hills',
  'dripping springs',
];
const KEYWORDS = SERVICES.flatMap((s) => PLACES.map((p) => `${s} ${p}`));
/** Questions people ask AI assistants, 500 of them (the schema's maximum). */
const PROMPTS = SERVICES.flatMap((service, i) =>
  PLACES.map((place, j) =>
    (i + j) % 2 === 0
      ? `Who is the best company for ${service.replace(/ near me$/, '')} in ${place}, and what should I expect to pay?`
      : `I need ${service.replace(/ near me$/, '')} in ${place} today: which local plumbers are licensed and well reviewed?`,
  ),
);
const BRANDS = ['RapidFlow Plumbing', 'RapidFlow', 'Rapid Flow Plumbing & Water Heaters'];

/** A sample-archive topic with pages on five sites (web-archive/README.md). */
const SOLAR_BATTERY = 'solar battery worth it';

/** Sample-archive pages and the keywords they rank for. */
const PAGES = [
  [RAPIDFLOW_EMERGENCY, 'emergency plumber austin'],
  ['https://brewgeek.net/guides/best-espresso-machines-under-500/', 'best espresso machine under 500'],
  ['https://www.sunwiseenergy.org/guides/how-much-do-solar-panels-cost/', 'how much do solar panels cost'],
  ['https://www.theloafjournal.com/recipes/beginner-sourdough-bread/', 'sourdough bread recipe'],
  ['https://www.realcoder.io/articles/python-asyncio-tutorial/', 'python asyncio tutorial'],
] as const;

/** Outreach notes as a team keeps them: a few lines of history per prospect (the schema takes up to 10,000). */
const NOTES_CHARS = 600;

/** Facts a plumbing business keeps for its writers (knowledge base, instructions, notes); numbered likewise. */
const FACTS: ((n: number) => string)[] = [
  (n) => `technicians answer emergency calls within ${30 + (n % 60)} minutes anywhere inside loop ${n % 3}.`,
  (n) => `the after-hours call-out fee is $${89 + (n % 50)}, waived when the repair goes ahead the same night.`,
  (n) => `every van carries ${40 + (n % 20)}-gallon water heaters from two makers, so most swaps finish the same day.`,
  (n) =>
    `licence number M-${40_000 + n} covers residential and light commercial work across Travis and Williamson County.`,
  (n) => `the crew of ${12 + (n % 9)} plumbers has installed more than ${1_000 + n * 7} tankless units since 2015.`,
  (n) => `slab leak detection uses acoustic and thermal imaging; reroutes cost $${1_800 + (n % 900)} on average.`,
  (n) => `financing runs ${6 + (n % 12)} to 60 months, and seniors and veterans get ${5 + (n % 10)}% off labour.`,
  (n) => `the warranty covers labour for ${1 + (n % 2)} years and parts for as long as the maker covers them.`,
];

/** Markdown text of exactly `chars` characters (a client's knowledge base, custom instructions, notes). */
function text(chars: number, about = 'RapidFlow Plumbing'): string {
  let out = '';
  for (let n = 0; out.length < chars; n++) {
    if (n % 20 === 0) out += `${n ? '\n\n' : ''}## ${about}: facts, set ${n / 20 + 1}\n`;
    out += `\n- Fact ${n + 1}: ${about} ${FACTS[n % FACTS.length]!(n)}`;
  }
  return out.slice(0, chars);
}

/** Clones a row `n` times with fresh ids and staggered creation times (list pages of 100 rows without 100 runs). */
function cloneRows(table: 'content_jobs' | 'optimizations', sourceId: string, n: number, newId: (i: number) => string) {
  const raw = t.app.database.raw;
  const cols = (raw.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  const values = cols.map((c) => (c === 'id' ? '@id' : c === 'created_at' ? 'created_at - @i' : c));
  const insert = raw.prepare(
    `INSERT INTO ${table} (${cols.join(', ')}) SELECT ${values.join(', ')} FROM ${table} WHERE id = @source`,
  );
  for (let i = 1; i <= n; i++) insert.run({ id: newId(i), i: i * 1_000, source: sourceId });
}

/** A well-formed optimization id (`opt_` + 26 Crockford base-32 characters) for the `i`th copy. */
const optimizationId = (i: number) => `opt_0COPY${String(i).padStart(21, '0')}`;

describe('content', () => {
  it('a 3,000-word auto job, a stepped job with a 3,000-word draft_body, an Autopilot run, 100 listed', async () => {
    const c = await tenant(t);
    const s = await mcpClient(t, c.key);
    try {
      const instructions = text(4_000, 'House style');
      const auto = await measure(
        s,
        'create_content_job',
        {
          client_id: c.clientId,
          topic: SOLAR_BATTERY,
          page_contract: 'article',
          word_count_target: 3_000,
          custom_instructions: instructions,
          idempotency_key: idem('job'),
        },
        `${SOLAR_BATTERY}, 3,000 words`,
      );
      expect(await settle(t, auto.job_id)).toBe('completed');
      const stepped = await createdJob(t, c.key, {
        client_id: c.clientId,
        topic: ESPRESSO,
        page_contract: 'article',
        mode: 'stepped',
        word_count_target: 3_000,
        custom_instructions: instructions,
      });
      expect(await settle(t, stepped.job_id)).toBe('brief_ready');
      const draft = espressoArticle(3_000);
      await measure(
        s,
        'approve_content_brief',
        { job_id: stepped.job_id, draft_body: draft, custom_instructions: instructions },
        'draft_body of 3,000 words',
      );
      expect(await settle(t, stepped.job_id)).toBe('completed');
      const pilot = await measure(
        s,
        'create_content_autopilot',
        {
          client_id: c.clientId,
          topic: ESPRESSO,
          page_contract: 'article',
          word_count_target: 3_000,
          custom_instructions: instructions,
          context: text(2_000, 'Page context'),
          idempotency_key: idem('pilot'),
        },
        `${ESPRESSO}, 3,000 words`,
      );
      expect(await settle(t, pilot.job_id)).toBe('completed');
      await measure(s, 'get_autopilot_status', { job_id: pilot.job_id }, 'completed run');

      for (const [id, kind] of [
        [auto.job_id, 'auto job'],
        [stepped.job_id, 'own draft'],
        [pilot.job_id, 'Autopilot'],
      ] as const) {
        const words = (await getArtifacts(t, c.key, id)).body.draft?.word_count;
        const what = `${kind}, ${words} words`;
        await measure(s, 'get_content_job', { job_id: id }, what);
        await measure(s, 'get_content_artifacts', { job_id: id }, `${what}, default`);
        await measure(s, 'get_content_artifacts', { job_id: id, include: [...ARTIFACT_PARTS] }, `${what}, include all`);
        await measure(s, 'get_content_artifacts', { job_id: id, format: 'markdown' }, `${what}, markdown`);
        await measure(s, 'get_content_artifacts', { job_id: id, format: 'html' }, `${what}, html`);
      }

      // A page of 100 completed jobs: copies of the real auto job's row (100 real jobs would take minutes).
      cloneRows('content_jobs', auto.job_id, 100 - 3, () => randomUUID());
      const list = await measure(s, 'list_content_jobs', { limit: 100 }, '100 completed jobs');
      expect(list.data).toHaveLength(100);
    } finally {
      await s.close();
    }
  }, 120_000);
});

describe('optimize', () => {
  it('five sample-archive pages fully scored, a 3,000-word draft scored, 100 listed', async () => {
    const o = await tenant(t);
    const s = await mcpClient(t, o.key);
    try {
      const ids: string[] = [];
      for (const [url, keyword] of PAGES) {
        const r = await measure(
          s,
          'start_optimization',
          { url, keyword, client_id: o.clientId, idempotency_key: idem('opt') },
          keyword,
        );
        ids.push(r.optimization_id);
      }
      await run(t);
      for (const [i, id] of ids.entries()) {
        const full = await measure(
          s,
          'get_optimization',
          { optimization_id: id, view: 'full' },
          `${PAGES[i]![1]}, full`,
        );
        expect(full.status).toBe('complete');
      }
      await measure(
        s,
        'score_content',
        {
          optimization_id: ids[1],
          content: espressoArticle(3_000),
          format: 'markdown',
          title: 'The 6 Best Espresso Machines Under $500 (2025), Tested',
          meta_description: 'We pulled 600 shots on twelve machines under $500 to find the ones worth buying.',
        },
        '3,000-word markdown draft',
      );
      // A page of 100 complete optimizations: copies of the real plumbing one (100 real runs would take minutes). The
      // copies have no ledger rows, so each says billing_status reconciliation_pending (13 characters more than
      // finalized): 1,300 characters of the page.
      cloneRows('optimizations', ids[0]!, 100 - ids.length, optimizationId);
      const list = await measure(s, 'list_optimizations', { limit: 100 }, '100 complete');
      expect(list.data).toHaveLength(100);
    } finally {
      await s.close();
    }
  }, 120_000);
});

describe('tracker', () => {
  it('a 500-keyword project scanned with the whole daily pool, a 500-prompt project', async () => {
    expect(KEYWORDS).toHaveLength(PROJECT_LIMITS.queries);
    const a = await tenant(t);
    const s = await mcpClient(t, a.key);
    try {
      // The largest scan an agency organisation can start: 500 keywords × 3 platforms = 1,500 units, its whole
      // 24-hour pool (all five platforms would be 2,500 units, refused).
      const created = await measure(
        s,
        'create_tracker_project',
        {
          client_id: a.clientId,
          name: 'RapidFlow Plumbing – Austin metro visibility',
          domain: 'rapidflowplumbing.com',
          queries: KEYWORDS,
          brand_names: BRANDS,
          platforms: ['organic', 'chatgpt', 'perplexity'],
          location: 'Austin, Texas, United States',
          idempotency_key: idem('trk'),
        },
        '500 keywords',
      );
      const id = created.project_id as string;
      const scan1 = await measure(
        s,
        'start_tracker_scan',
        { project_id: id, idempotency_key: idem('scan') },
        '500 keywords × 3 platforms',
      );
      await run(t);
      expect(await measure(s, 'get_tracker_project', { project_id: id }, '500 keywords, scanned')).toMatchObject({
        latest_run: { run_id: scan1.run_id, status: 'complete' },
      });
      const results = await measure(s, 'get_tracker_results', { project_id: id }, '500 keywords × 3 platforms');
      expect(results.platforms.map((p: Any) => p.results.length)).toEqual([500, 500, 500]);
      for (const platform of ['organic', 'chatgpt'])
        await measure(s, 'get_tracker_results', { project_id: id, platform }, `500 keywords, ${platform} only`);
      await measure(s, 'get_brand_summary', { client_id: a.clientId }, '500 keywords × 3 platforms');
      await measure(
        s,
        'update_tracker_project',
        { project_id: id, queries: [...KEYWORDS].reverse(), brand_names: BRANDS, idempotency_key: idem('upd') },
        '500 keywords replaced',
      );
      // The same client's AI-visibility project: 500 questions as people ask them (not scanned: one scan a day fits).
      const prompts = await measure(
        s,
        'create_tracker_project',
        {
          client_id: a.clientId,
          name: 'RapidFlow Plumbing – AI answers',
          domain: 'rapidflowplumbing.com',
          query_kind: 'prompts',
          queries: PROMPTS,
          brand_names: BRANDS,
          platforms: ['chatgpt', 'perplexity', 'claude', 'google_ai_overview'],
          location: 'Austin, Texas, United States',
          idempotency_key: idem('trk'),
        },
        `500 prompts of ~${Math.round(PROMPTS.join('').length / PROMPTS.length)} chars`,
      );
      await measure(s, 'get_tracker_project', { project_id: prompts.project_id }, '500 prompts');
      await measure(
        s,
        'update_tracker_project',
        { project_id: prompts.project_id, queries: [...PROMPTS].reverse(), idempotency_key: idem('upd') },
        '500 prompts replaced',
      );
    } finally {
      await s.close();
    }
  }, 120_000);

  it('100 projects on every platform, one scanned daily for 90 days', async () => {
    const b = await tenant(t);
    // The session opens once the 90 days have passed on the app's clock: a session idle that long would be swept.
    let s: Awaited<ReturnType<typeof mcpClient>> | undefined;
    try {
      const ids: string[] = [];
      for (let i = 0; i < 100; i++)
        ids.push(
          await project(t, b.clientId, {
            name: `${SERVICES[i % SERVICES.length]} – ${PLACES[i % PLACES.length]} (${i + 1})`,
            domain: 'rapidflowplumbing.com',
            brandNames: BRANDS,
            // The project scanned daily asks one keyword: a trend is one point a day whatever the query count.
            queries: i === 0 ? [KEYWORDS[i]!] : [KEYWORDS[i]!, KEYWORDS[i + 100]!],
            platforms: [...TRACKER_PLATFORMS],
            location: 'Austin, Texas, United States',
          }),
        );
      // Trends are one point a day whatever the query count: 90 daily scans of one project.
      for (let day = 0; day < MAX_TREND_DAYS; day++) {
        expect((await call(t, 'POST', `/reporter/projects/${ids[0]}/scans`, b.key)).status).toBe(202);
        await run(t);
        t.clock.advance(DAY);
      }
      for (const id of ids) expect((await call(t, 'POST', `/reporter/projects/${id}/scans`, b.key)).status).toBe(202);
      await run(t);
      s = await mcpClient(t, b.key);
      const trends = await measure(
        s,
        'get_tracker_trends',
        { project_id: ids[0], days: MAX_TREND_DAYS },
        '90 daily scans',
      );
      expect(trends.points.filter((p: Any) => p.spi !== null)).toHaveLength(MAX_TREND_DAYS);
      await measure(s, 'list_tracker_projects', { limit: 100 }, '100 projects');
      const summary = await measure(s, 'get_tracker_summary', { limit: 100 }, '100 projects × 5 platforms');
      expect(summary.data).toHaveLength(100);
      await measure(s, 'get_brand_summary', { client_id: b.clientId }, '100 projects × 5 platforms');
      const daily = await measure(s, 'get_tracker_project', { project_id: ids[0] }, 'scanned daily');
      await measure(
        s,
        'delete_tracker_project',
        { project_id: ids[0], name: daily.name, idempotency_key: idem('del') },
        `${MAX_TREND_DAYS + 1} scans`,
      );
    } finally {
      await s?.close();
    }
  }, 120_000);
});

describe('prospects', () => {
  it('100 lists; a list of 100 prospects with notes; the largest notes the schema takes', async () => {
    const p = await tenant(t);
    const rest = caller(t, p.key);
    const s = await mcpClient(t, p.key);
    try {
      const list = await measure(
        s,
        'create_prospect_list',
        {
          client_id: p.clientId,
          name: 'Austin home-services guest posts and resource pages, Q3 outreach',
          opportunity_type: 'guest_post',
          idempotency_key: idem('list'),
        },
        'one list',
      );
      for (let i = 1; i < 100; i++) {
        const r = await rest.createList(p.clientId, { name: `Outreach list ${i}: ${SERVICES[i % SERVICES.length]}` });
        expect(r.status, r.text).toBe(201);
      }
      for (let i = 0; i < 100; i++) {
        const r = await rest.save(p.clientId, list.list_id, {
          url: `https://www.${PLACES[i % PLACES.length]!.replace(/\W+/g, '')}-home-${i}.example.com/blog/write-for-us/?ref=outreach-${i}`,
          target_name: `${PLACES[i % PLACES.length]} Home & Garden Magazine (${i})`,
          status: 'contacted',
          notes: text(NOTES_CHARS, `Prospect ${i}`),
          contact_path: `https://www.home-${i}.example.com/contact/ – editor@home-${i}.example.com`,
        });
        expect(r.status, r.text).toBe(201);
      }
      await measure(s, 'list_prospect_lists', { client_id: p.clientId, limit: 100 }, '100 lists');
      const items = await measure(
        s,
        'list_prospects',
        { client_id: p.clientId, list_id: list.list_id, limit: 100 },
        `100 items, ${NOTES_CHARS}-char notes`,
      );
      expect(items.data).toHaveLength(100);
      const saved = await measure(
        s,
        'save_prospect',
        {
          client_id: p.clientId,
          list_id: list.list_id,
          url: 'https://www.austin-living.example.com/contribute/guest-post-guidelines/',
          target_name: 'Austin Living Magazine',
          notes: text(10_000, 'Austin Living'),
          contact_path: 'https://www.austin-living.example.com/contact/',
          idempotency_key: idem('save'),
        },
        'notes of 10,000 chars (the maximum)',
      );
      await measure(
        s,
        'update_prospect',
        {
          client_id: p.clientId,
          list_id: list.list_id,
          item_id: saved.item_id,
          status: 'in_discussion',
          notes: text(10_000, 'Austin Living, follow-up'),
          idempotency_key: idem('upd'),
        },
        'notes of 10,000 chars (the maximum)',
      );
      await measure(
        s,
        'delete_prospect',
        { client_id: p.clientId, list_id: list.list_id, url: saved.url, idempotency_key: idem('del') },
        'one item',
      );
      await measure(
        s,
        'delete_prospect_list',
        { client_id: p.clientId, list_id: list.list_id, name: list.name, idempotency_key: idem('del') },
        'a list of 100 items',
      );
    } finally {
      await s.close();
    }
  }, 120_000);
});

describe('clients and usage', () => {
  it('100 clients; a client with the largest knowledge base; usage', async () => {
    const w = await tenant(t);
    const s = await mcpClient(t, w.key);
    try {
      for (let i = 1; i < 100; i++)
        await t.client(w.orgId, {
          name: `${PLACES[i % PLACES.length]} ${SERVICES[i % SERVICES.length]} co. (${i})`,
          domain: `www.client-${i}.example.com`,
          serviceArea: 'Austin, Texas, United States',
          serviceLat: 30.2672,
          serviceLng: -97.7431,
          defaultTone: 'expert_detailed',
        });
      const settings = {
        name: 'RapidFlow Plumbing & Water Heaters',
        domain: 'rapidflowplumbing.com',
        service_area: 'Austin, Texas, United States',
        service_location: { lat: 30.2672, lng: -97.7431 },
        default_tone: 'clear_practical',
        brand_voice: text(CLIENT_LIMITS.brandVoice, 'Brand voice'),
        knowledge_base: text(CLIENT_LIMITS.knowledgeBase),
        excluded_topics: Array.from({ length: CLIENT_LIMITS.excludedTopics }, (_, i) => `competitor pricing ${i + 1}`),
      };
      const created = await measure(
        s,
        'create_client',
        { ...settings, idempotency_key: idem('client') },
        `knowledge_base of ${CLIENT_LIMITS.knowledgeBase.toLocaleString('en-US')} chars (the maximum)`,
      );
      await measure(
        s,
        'update_client',
        {
          client_id: created.client_id,
          knowledge_base: text(CLIENT_LIMITS.knowledgeBase, 'RapidFlow (2025 edition)'),
          idempotency_key: idem('client'),
        },
        `knowledge_base of ${CLIENT_LIMITS.knowledgeBase.toLocaleString('en-US')} chars (the maximum)`,
      );
      const list = await measure(s, 'list_clients', { limit: 100 }, '100 clients');
      expect(list.data).toHaveLength(100);
      await measure(s, 'get_usage', {}, 'agency plan');
      for (const operation of METERED_OPERATIONS) await measure(s, 'estimate_usage', { operation }, operation);
    } finally {
      await s.close();
    }
  });
});

describe('every tool', () => {
  it(`is measured, and its largest result is within ${LIMIT_CHARS.toLocaleString('en-US')} characters`, () => {
    const row = (tool: string, chars: number, label: string) =>
      `${tool.padEnd(24)} ${String(chars).padStart(9)} ${String(tokens(chars)).padStart(8)}  ${label}`;
    const rows = OPERATIONS.map((op) => ({
      tool: op.name,
      ...(largest.get(op.name) ?? { chars: 0, case: 'NOT MEASURED' }),
    }));
    console.info(
      [
        `Largest tools/call result per tool (JSON of content + structuredContent; ~tokens = chars / ${CHARS_PER_TOKEN}):`,
        `${'tool'.padEnd(24)} ${'chars'.padStart(9)} ${'~tokens'.padStart(8)}  case`,
        ...rows.map((r) => row(r.tool, r.chars, r.case)),
        '',
        'Every case measured:',
        ...measured.map((m) => row(m.tool, m.chars, m.case)),
        '',
        `Covered ${largest.size} of ${OPERATIONS.length} tools in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
      ].join('\n'),
    );
    expect(
      OPERATIONS.map((op) => op.name).filter((name) => !largest.has(name)),
      'tools without a measurement',
    ).toEqual([]);
    expect(
      rows
        .filter((r) => r.chars > LIMIT_CHARS)
        .map(
          (r) =>
            `${r.tool}: ${r.chars} chars (~${tokens(r.chars)} tokens), ${(r.chars / LIMIT_CHARS).toFixed(2)}× the bound: ${r.case}`,
        ),
      `results over ${LIMIT_CHARS} characters (~${tokens(LIMIT_CHARS)} tokens)`,
    ).toEqual([]);
  });
});
