/**
 * The world of the console bench (bench/ui.ts), built in-process on a temp SQLite file with a fake clock, the sample
 * web archive as the only web (AGENT_API_OFFLINE=1) and loopback fakes of OpenAI and Perplexity for the tracker's AI
 * platforms (as test/mcp/result-size.test.ts does): one agency organisation with a client and keys, and
 *  - a tracker project of 200 keywords on organic, chatgpt and perplexity: `realScans` real daily scans (the fake
 *    clock moved a day between them) ending now, and the earlier days up to 90 as copies of those scans' rows
 *    (tracker_scans, tracker_results, tracker_platform_summaries) shifted back a day at a time;
 *  - a complete optimization of a sample-archive page (the real pipeline) and copies of its row for the list;
 *  - a completed auto content job (the real pipeline, extractive writer) and copies of its row for the list;
 *  - an outreach list of 100 prospects with notes, in every status.
 * The app is closed when this answers: the bench serves the file from a child process with the real clock.
 */
import { randomUUID } from 'node:crypto';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import type { Principal } from '../../src/engine/accounts/auth.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { expandScopes, SCOPES } from '../../src/engine/accounts/scopes.ts';
import { createProject } from '../../src/engine/tracker/service.ts';
import { createClient } from '../../src/store/repos/clients.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { invokeOperation } from '../../src/tools/invoke.ts';
import { createFakeClock, type FakeClock } from '../../test/helpers/clock.ts';
import {
  lastUserText,
  searchAnswer,
  startFakeOpenAi,
  type FakeOpenAi,
} from '../../test/helpers/fake-providers/openai.ts';
import { startFakePerplexity, type FakePerplexity } from '../../test/helpers/fake-providers/perplexity.ts';
import { tempDir } from '../../test/helpers/temp.ts';

export const DAY = 86_400_000;
export const TREND_DAYS = 90;
export const PLATFORMS = ['organic', 'chatgpt', 'perplexity'] as const;

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
const PLACES = ['austin', 'austin tx', 'round rock', 'cedar park', 'pflugerville', 'georgetown tx', 'leander', 'buda'];
/** 25 services x 8 places: 200 keywords. */
export const KEYWORDS = SERVICES.flatMap((s) => PLACES.map((p) => `${s} ${p}`));

const STATUSES = ['identified', 'contacted', 'in_discussion', 'won', 'passed'] as const;

export interface UiWorld {
  dbPath: string;
  /** Environment for the app serving the file (the same providers configured). */
  env: Record<string, string>;
  orgId: string;
  clientId: string;
  keys: string[];
  projectId: string;
  optimizationId: string;
  jobId: string;
  listId: string;
  /** How the tracker history was made, for the report. */
  history: { realScans: number; copiedDays: number; resultRows: number; scanMs: number; copyMs: number };
  seedMs: number;
  close(): Promise<void>;
}

const quiet = (n: number) => new Promise((resolve) => setTimeout(resolve, n));

/**
 * Lets the held runner work until `done` (the fake clock moved past retry delays between rounds), then holds it
 * again: as test/content/helpers/harness.ts `run` does.
 */
async function drain(app: App, clock: FakeClock, done: () => Promise<boolean>, stepMs = 11 * 60_000) {
  await app.engine.runner.start();
  try {
    for (let i = 0; i < 60; i++) {
      await app.engine.runner.runUntilIdle();
      await quiet(0);
      if (await done()) return;
      clock.advance(stepMs);
    }
  } finally {
    await app.engine.runner.stop(0);
  }
  throw new Error('the runner did not settle');
}

/** Notes as a team keeps them: a few lines of history per prospect. */
const notes = (i: number) =>
  `Found through the resource-page search for Austin home services (${i}). Emailed the editor on the contact form; ` +
  `they answered that guest posts need a 1,200-word draft and one link at most. Follow up after the next issue; ` +
  `the sister site runs a yearly roundup of local plumbers in March.`;

export async function seedUiWorld(opts: { keys: number; realScans: number }): Promise<UiWorld> {
  const began = performance.now();
  const tmp = tempDir('agent-api-bench-ui-');
  const [openai, pplx]: [FakeOpenAi, FakePerplexity] = await Promise.all([startFakeOpenAi(), startFakePerplexity()]);
  const env: Record<string, string> = {
    AGENT_API_DB: tmp.dbPath,
    AGENT_API_LOG_LEVEL: 'silent',
    AGENT_API_OFFLINE: '1',
    AGENT_API_POLL_MS: '60000',
    OPENAI_API_KEY: openai.apiKey!,
    OPENAI_BASE_URL: openai.baseUrl,
    PERPLEXITY_API_KEY: pplx.apiKey,
    PERPLEXITY_BASE_URL: pplx.baseUrl,
  };
  // ChatGPT names and cites the brand for a third of the keywords, a different third each real scan, so that the
  // days of the trend differ.
  let scanDay = 0;
  openai.setReply((body) => {
    const prompt = lastUserText(body);
    const hash = [...prompt].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7);
    if ((hash + scanDay) % 3) return searchAnswer(prompt);
    const url = 'https://www.rapidflowplumbing.com/emergency-plumbing/?utm_source=openai';
    return {
      content: `For ${prompt}, RapidFlow Plumbing answers 24/7 (rapidflowplumbing.com).`,
      annotations: [{ type: 'url_citation', url_citation: { url, title: 'RapidFlow', start_index: 0, end_index: 1 } }],
    };
  });
  const realNow = Date.now();
  // The last real scan lands ten minutes before the real now, the first `realScans - 1` days earlier.
  const clock = createFakeClock(realNow - (opts.realScans - 1) * DAY - 10 * 60_000);
  const app = await createApp({ config: loadConfig(env), clock, logger: createLogger('silent') });
  await app.engine.runner.stop(0);
  const db = app.database.db;
  const raw = app.database.raw;
  let closed = false;
  try {
    const org = await createOrganisation(db, { name: 'bench', plan: 'agency', subscription: 'active' }, clock.now());
    const client = await createClient(
      db,
      { orgId: org.id, name: 'RapidFlow Plumbing', domain: 'rapidflowplumbing.com' },
      clock.now(),
    );
    const keys: string[] = [];
    for (let i = 0; i < opts.keys; i++)
      keys.push((await issueApiKey(db, { orgId: org.id, scopes: SCOPES, name: `bench ${i}` }, clock.now())).apiKey);
    const principal: Principal = {
      orgId: org.id,
      keyId: 'bench',
      scopes: expandScopes(SCOPES),
      plan: 'agency',
      subscriptionActive: true,
      ratePerMinute: 120,
    };
    const byName = new Map(OPERATIONS.map((o) => [o.name, o]));
    const call = async (name: string, input: Record<string, unknown>) => {
      const op = byName.get(name)!;
      const r = await invokeOperation(app.engine, op, {
        principal,
        input,
        idempotencyKeys: op.idempotency === 'none' ? null : [randomUUID()],
        requestId: 'bench',
      });
      if (r.status >= 300) throw new Error(`${name} answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body as Record<string, string>;
    };

    // Tracker: real daily scans of 200 keywords x 3 platforms, the fake clock a day on between them.
    const { project_id: projectId } = await createProject(
      db,
      {
        clientId: client.id,
        name: 'RapidFlow Plumbing – Austin visibility',
        domain: 'rapidflowplumbing.com',
        brandNames: ['RapidFlow Plumbing', 'RapidFlow'],
        queries: KEYWORDS,
        platforms: [...PLATFORMS],
        location: 'Austin, Texas, United States',
      },
      clock.now(),
    );
    const t0 = performance.now();
    const real: string[] = [];
    for (let d = 0; d < opts.realScans; d++) {
      if (d) clock.advance(DAY);
      scanDay = d;
      const { run_id } = await call('start_tracker_scan', { project_id: projectId });
      await drain(app, clock, async () => {
        const row = await db.selectFrom('tracker_scans').select('status').where('id', '=', run_id!).executeTakeFirst();
        return !!row && !['queued', 'running'].includes(row.status);
      });
      real.push(run_id!);
    }
    const scanMs = performance.now() - t0;

    // The earlier days: copies of the real scans' rows, each shifted back to its own day.
    const t1 = performance.now();
    const first = raw.prepare('SELECT created_at FROM tracker_scans WHERE id = ?').get(real[0]) as {
      created_at: number;
    };
    const cols = (table: string) =>
      (raw.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
    const copy = (table: string, key: 'id' | 'run_id', timeCols: string[]) => {
      const names = cols(table);
      const values = names.map((c) =>
        c === key ? '@id' : timeCols.includes(c) ? `CASE WHEN ${c} IS NULL THEN NULL ELSE ${c} + @shift END` : c,
      );
      return raw.prepare(
        `INSERT INTO ${table} (${names.join(', ')}) SELECT ${values.join(', ')} FROM ${table} WHERE ${key} = @source`,
      );
    };
    const scans = copy('tracker_scans', 'id', ['created_at', 'started_at', 'completed_at', 'updated_at']);
    const results = copy('tracker_results', 'run_id', ['measured_at']);
    const summaries = copy('tracker_platform_summaries', 'run_id', ['measured_at']);
    const setScores = raw.prepare('UPDATE tracker_scans SET platform_scores = ? WHERE id = ?');
    const copiedDays = TREND_DAYS - opts.realScans;
    raw.transaction(() => {
      for (let d = 1; d <= copiedDays; d++) {
        const source = real[(d - 1) % real.length]!;
        const src = raw.prepare('SELECT created_at, platform_scores FROM tracker_scans WHERE id = ?').get(source) as {
          created_at: number;
          platform_scores: string | null;
        };
        const shift = first.created_at - d * DAY - src.created_at;
        const id = randomUUID();
        for (const stmt of [scans, results, summaries]) stmt.run({ id, shift, source });
        const scores = JSON.parse(src.platform_scores ?? '{}') as Record<string, { measured_at?: number }>;
        for (const s of Object.values(scores)) if (typeof s.measured_at === 'number') s.measured_at += shift;
        setScores.run(JSON.stringify(scores), id);
      }
    })();
    const copyMs = performance.now() - t1;
    const resultRows = (
      raw.prepare('SELECT count(*) AS n FROM tracker_results WHERE project_id = ?').get(projectId) as { n: number }
    ).n;

    // Optimize: one real report on the sample archive, and copies of its row so the list has a page.
    const { optimization_id: optimizationId } = await call('start_optimization', {
      url: 'https://www.rapidflowplumbing.com/emergency-plumbing/',
      keyword: 'emergency plumber austin',
      client_id: client.id,
    });
    await drain(app, clock, async () => {
      const row = await db
        .selectFrom('optimizations')
        .select('status')
        .where('id', '=', optimizationId!)
        .executeTakeFirstOrThrow();
      return row.status === 'complete' || row.status === 'failed';
    });

    // Content: one real auto job (extractive writer on the sample archive), and copies for the list.
    const { job_id: jobId } = await call('create_content_job', {
      client_id: client.id,
      topic: 'solar battery worth it',
      page_contract: 'article',
      word_count_target: 1_500,
    });
    await drain(app, clock, async () => {
      const row = await db
        .selectFrom('content_jobs')
        .select('status')
        .where('id', '=', jobId!)
        .executeTakeFirstOrThrow();
      return ['completed', 'failed', 'brief_ready'].includes(row.status);
    });
    const cloneRows = (
      table: 'content_jobs' | 'optimizations',
      source: string,
      n: number,
      newId: (i: number) => string,
    ) => {
      const names = cols(table);
      const values = names.map((c) => (c === 'id' ? '@id' : c === 'created_at' ? 'created_at - @i' : c));
      const insert = raw.prepare(
        `INSERT INTO ${table} (${names.join(', ')}) SELECT ${values.join(', ')} FROM ${table} WHERE id = @source`,
      );
      for (let i = 1; i <= n; i++) insert.run({ id: newId(i), i: i * 1_000, source });
    };
    cloneRows('optimizations', optimizationId!, 19, (i) => `opt_0COPY${String(i).padStart(21, '0')}`);
    cloneRows('content_jobs', jobId!, 19, () => randomUUID());

    // Prospects: a list of 100 items with notes, spread over the statuses.
    const { list_id: listId } = await call('create_prospect_list', {
      client_id: client.id,
      name: 'Austin home-services guest posts, Q3 outreach',
      opportunity_type: 'guest_post',
    });
    for (let i = 0; i < 100; i++)
      await call('save_prospect', {
        client_id: client.id,
        list_id: listId,
        url: `https://www.${PLACES[i % PLACES.length]!.replace(/\W+/g, '')}-home-${i}.example.com/blog/write-for-us/`,
        target_name: `${PLACES[i % PLACES.length]} Home & Garden Magazine (${i})`,
        status: STATUSES[i % STATUSES.length],
        notes: notes(i),
        contact_path: `https://www.home-${i}.example.com/contact/`,
      });

    return {
      dbPath: tmp.dbPath,
      env,
      orgId: org.id,
      clientId: client.id,
      keys,
      projectId,
      optimizationId: optimizationId!,
      jobId: jobId!,
      listId: listId!,
      history: { realScans: opts.realScans, copiedDays, resultRows, scanMs, copyMs },
      seedMs: performance.now() - began,
      close: async () => {
        await Promise.all([openai.close(), pplx.close()]);
        tmp.cleanup();
      },
    };
  } catch (err) {
    closed = true;
    await app.close(1_000).catch(() => undefined);
    await Promise.all([openai.close(), pplx.close()]);
    tmp.cleanup();
    throw err;
  } finally {
    // Closed on success too: the bench serves the file from a child process.
    if (!closed) await app.close(1_000);
  }
}
