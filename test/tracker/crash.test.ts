import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createClient } from '../../src/store/repos/clients.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { createProject } from '../../src/engine/tracker/service.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { startFakePerplexity, type FakePerplexity } from '../helpers/fake-providers/perplexity.ts';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.ts';
import { expireLeases, LONG_LEASE_MS } from '../helpers/leases.ts';
import { openTestStore } from '../helpers/store.ts';
import { BRAND, DOMAIN } from './fixture.ts';

/**
 * A scan killed mid-way (kill -9 of a real `agent-api serve` process while the perplexity platform's answers are
 * held) resumes after a restart on the same database: chatgpt, finished before the crash, is not asked again;
 * perplexity is redone with the same provider idempotency keys; the scan is charged exactly once. Waiting here is for another
 * process to reach a state, polled; nothing sleeps for timing.
 */

const KEYWORDS = ['emergency plumber', 'water heater repair', 'burst pipe repair'];
const cleanups: Array<() => unknown> = [];
let openai: FakeOpenAi;
let pplx: FakePerplexity;
let db: Db;
let storeEnv: Record<string, string>;
let apiKey: string;
let projectId: string;

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  [openai, pplx] = await Promise.all([startFakeOpenAi(), startFakePerplexity()]);
  cleanups.push(
    () => openai.close(),
    () => pplx.close(),
  );
  const store = await openTestStore();
  cleanups.push(() => store.close());
  storeEnv = store.env;
  db = store.db;
  await migrateToLatest(db);
  const now = Date.now();
  const org = await createOrganisation(db, { name: 'Crash org', plan: 'agency', subscription: 'active' }, now);
  const client = await createClient(db, { name: 'Crash client', orgId: org.id }, now);
  apiKey = (await issueApiKey(db, { orgId: org.id, scopes: SCOPES }, now)).apiKey;
  ({ project_id: projectId } = await createProject(
    db,
    {
      clientId: client.id,
      name: 'Crash project',
      domain: DOMAIN,
      brandNames: [BRAND],
      queries: KEYWORDS,
      platforms: ['chatgpt', 'perplexity'],
    },
    now,
  ));
});
afterAll(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function serve(): Promise<SpawnedServer> {
  const server = await spawnServer({
    ...storeEnv,
    // No live server loses its lease on a busy machine; a killed one's are ended by the test (helpers/leases.ts).
    AGENT_API_LEASE_MS: LONG_LEASE_MS,
    AGENT_API_POLL_MS: '50',
    OPENAI_API_KEY: openai.apiKey!,
    OPENAI_BASE_URL: openai.baseUrl,
    PERPLEXITY_API_KEY: pplx.apiKey,
    PERPLEXITY_BASE_URL: pplx.baseUrl,
  });
  cleanups.push(() => server.crash());
  return server;
}

async function rest(server: SpawnedServer, method: string, path: string) {
  const res = await fetch(`${server.url}/api/agent/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { [k: string]: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('kill -9 mid-scan and restart', () => {
  it('resumes at the next unfinished platform and charges once', async () => {
    // Every perplexity answer is held: the scan stops inside its second platform step (chatgpt comes first).
    pplx.hangNext(KEYWORDS.length);
    const first = await serve();
    const started = await rest(first, 'POST', `/reporter/projects/${projectId}/scans`);
    expect(started.status).toBe(202);
    const scanId = started.body.run_id as string;
    await until('perplexity requests to be held', () => pplx.requests.length === KEYWORDS.length);

    const run = await db.selectFrom('runs').selectAll().where('resource_id', '=', scanId).executeTakeFirstOrThrow();
    expect(run).toMatchObject({ state: 'pending', step: 2 });
    expect(
      await db.selectFrom('tracker_scans').select('status').where('id', '=', scanId).executeTakeFirstOrThrow(),
    ).toEqual({ status: 'running' });
    const chatgptBefore = await db
      .selectFrom('tracker_results')
      .select(['query_index', 'measured_at', 'status'])
      .where('run_id', '=', scanId)
      .where('platform', '=', 'chatgpt')
      .orderBy('query_index')
      .execute();
    expect(chatgptBefore.map((r) => r.status)).toEqual(['complete', 'complete', 'complete']);
    expect(
      await db.selectFrom('tracker_platform_summaries').select('platform').where('run_id', '=', scanId).execute(),
    ).toEqual([{ platform: 'chatgpt' }]);
    expect(
      await db.selectFrom('usage_ledger').select(['state', 'units']).where('resource_id', '=', scanId).execute(),
    ).toEqual([{ state: 'reserved', units: 6 }]);

    await first.crash();
    // The scan's lease runs out, as it would LEASE_MS after the kill: the restarted server claims it at once.
    expect(await expireLeases(db)).toBe(1);
    const second = await serve();
    await until('the scan to finish after the restart', async () => {
      const row = await db.selectFrom('tracker_scans').select('status').where('id', '=', scanId).executeTakeFirst();
      return row?.status === 'complete';
    });

    const project = await rest(second, 'GET', `/reporter/projects/${projectId}`);
    expect(project.body.latest_run).toMatchObject({ run_id: scanId, status: 'complete', billing_status: 'finalized' });
    expect(project.body.spi.platforms.map((p: { platform: string }) => p.platform)).toEqual(['chatgpt', 'perplexity']);
    // Chatgpt was finished before the crash: not asked again, its rows untouched.
    expect(openai.requests).toHaveLength(KEYWORDS.length);
    const chatgptAfter = await db
      .selectFrom('tracker_results')
      .select(['query_index', 'measured_at', 'status'])
      .where('run_id', '=', scanId)
      .where('platform', '=', 'chatgpt')
      .orderBy('query_index')
      .execute();
    expect(chatgptAfter).toEqual(chatgptBefore);
    // Perplexity was asked again with the same keys; the provider computed each answer once.
    for (let i = 0; i < KEYWORDS.length; i++) {
      const key = `${run.id}:perplexity:${i}`;
      expect(pplx.callsFor(key), key).toBe(2);
      expect(pplx.runsFor(key), key).toBe(1);
    }
    const perplexity = await db
      .selectFrom('tracker_results')
      .select('status')
      .where('run_id', '=', scanId)
      .where('platform', '=', 'perplexity')
      .execute();
    expect(perplexity.map((r) => r.status)).toEqual(['complete', 'complete', 'complete']);
    // Charged once: one ledger row, charged, and the usage window shows the units once.
    expect(
      await db.selectFrom('usage_ledger').select(['state', 'units']).where('resource_id', '=', scanId).execute(),
    ).toEqual([{ state: 'charged', units: 6 }]);
    const usage = await rest(second, 'GET', '/usage');
    expect(usage.body.windows['24h']).toMatchObject({ used: 6, reserved: 0 });
    expect(await second.terminate()).toBe(0);
    // Real server processes on a machine other suites share: limits for waiting, not for speed.
  }, 240_000);
});
