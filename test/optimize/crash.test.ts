import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.ts';
import { startCanary } from '../helpers/canary.ts';
import { expireLeases, LONG_LEASE_MS } from '../helpers/leases.ts';
import { openTestStore } from '../helpers/store.ts';
import type { Optimization } from './helpers/harness.ts';
import { startLoopbackSerp, startLoopbackWeb, KEYWORD, type LoopbackSerp, type LoopbackWeb } from './helpers/web.ts';

/**
 * docs/reliability.md G.74 and G.78 with real `agent-api serve` processes on one store (SQLite file or PostgreSQL database): kill -9 during a run, restart,
 * and the run finishes once (search checkpointed, reservation finalized once), or, when the page keeps failing, it
 * fails after the maximum attempts, counted across the crash, and releases its reservation once. Waiting is for
 * another process to reach a state: long-polls of the API and a polled read of the database.
 */

const cleanups: Array<() => unknown> = [];

interface Setup {
  dbPath: string;
  key: string;
  orgId: string;
  db: Db;
  web: LoopbackWeb;
  serp: LoopbackSerp;
  env: Record<string, string>;
}

async function setup(env: Record<string, string>): Promise<Setup> {
  const store = await openTestStore();
  cleanups.push(() => store.close());
  const opened = store.opened;
  await migrateToLatest(opened.db);
  const now = Date.now();
  const org = await createOrganisation(opened.db, { name: 'Crash org', plan: 'agency', subscription: 'active' }, now);
  const key = await issueApiKey(opened.db, { orgId: org.id, scopes: ['optimize:run'] }, now);
  const canary = await startCanary();
  cleanups.push(() => canary.close());
  const web = await startLoopbackWeb({ privatePort: canary.port });
  cleanups.push(() => web.close());
  cleanups.push(() => web.release());
  const serp = await startLoopbackSerp(web);
  cleanups.push(() => serp.close());
  return {
    dbPath: store.dbPath,
    key: key.apiKey,
    orgId: org.id,
    db: opened.db,
    web,
    serp,
    env: {
      ...store.env,
      ...serp.env,
      AGENT_API_TEST_FETCH_ALLOW: web.allow,
      // No stall of a busy machine outlives it: a live server never loses its own lease (a second fetch would be
      // counted). A killed server's leases are ended by the test (helpers/leases.ts).
      AGENT_API_LEASE_MS: LONG_LEASE_MS,
      AGENT_API_POLL_MS: '50',
      AGENT_API_RETRY_BASE_MS: '50',
      ...env,
    },
  };
}

async function start(s: Setup): Promise<SpawnedServer> {
  const server = await spawnServer(s.env);
  cleanups.push(() => server.crash());
  return server;
}

async function api<T = Record<string, unknown>>(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}/api/agent/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      connection: 'close',
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Long-polls the optimization until it is terminal (each poll returns when its status changes). */
async function finished(base: string, key: string, id: string, timeoutMs = 30_000): Promise<Optimization> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api<Optimization>(base, key, 'GET', `/optimizations/${id}?view=full&wait_seconds=5`);
    expect(r.status).toBe(200);
    if (r.body.status === 'complete' || r.body.status === 'failed') return r.body;
    if (Date.now() > deadline) throw new Error(`optimization ${id} still ${r.body.status}`);
  }
}

const ledgerOf = (db: Db, id: string) =>
  db.selectFrom('usage_ledger').select(['state', 'units']).where('resource_id', '=', id).execute();
const runOf = (db: Db, id: string) =>
  db.selectFrom('runs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();

describe('Optimize across kill -9 of a real server process', () => {
  const keyword = `${KEYWORD} 74`;
  let s: Setup;
  let b: SpawnedServer;
  let completedId: string;
  let failingId: string;
  let completed: Optimization;
  let failed: Optimization;

  // One crash serves both cases: server A is killed while one run waits for slow competitor pages (G.74) and
  // another waits for a page that never answers (G.78); server B, on the same database, finishes both.
  beforeAll(async () => {
    s = await setup({ AGENT_API_MAX_ATTEMPTS: '3' });
    // Each run compares with its own competitors, so the fetches of each can be counted.
    s.serp.set(keyword, ['/c/4', '/c/5', '/c/6']);
    s.web.hold('/c/');
    s.web.hold('/target/reset');
    const a = await start(s);
    const one = await api<Optimization>(
      a.url,
      s.key,
      'POST',
      '/optimize',
      { url: s.web.url('/target/thorough'), keyword },
      { 'idempotency-key': 'g74' },
    );
    const two = await api<Optimization>(
      a.url,
      s.key,
      'POST',
      '/optimize',
      { url: s.web.url('/target/reset'), keyword: KEYWORD },
      { 'idempotency-key': 'g78' },
    );
    expect([one.status, two.status]).toEqual([202, 202]);
    completedId = one.body.optimization_id;
    failingId = two.body.optimization_id;
    // Both runs are in their fetch step: the search is done and checkpointed, the fetches are held.
    await s.web.waitFor('/c/', 6);
    await s.web.waitFor('/target/reset', 1);
    for (const id of [completedId, failingId]) {
      const run = await runOf(s.db, id);
      expect(run).toMatchObject({ state: 'pending', step: 1, attempts: 1 });
      expect(run.lease_owner).not.toBeNull();
    }
    expect(s.serp.calls(keyword)).toBe(1);

    await a.crash();
    // A's two leases run out, as they would LEASE_MS after the kill: B claims both at once.
    expect(await expireLeases(s.db)).toBe(2);
    // From now on the competitors answer at once and the failing page resets every connection.
    s.web.release();
    b = await start(s);
    [completed, failed] = await Promise.all([finished(b.url, s.key, completedId), finished(b.url, s.key, failingId)]);
  });
  afterAll(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });

  it('G.74 kill -9 while competitors are being fetched: the restarted server completes the run once; one search, one charge', async () => {
    expect(completed).toMatchObject({ status: 'complete', error: null, billing_status: 'finalized' });
    expect(completed.result!.competitorCount).toBe(3);
    expect(completed.summary).toMatchObject({ billingFinalized: true });
    // The search finished before the crash and was checkpointed: the provider ran it once.
    expect(s.serp.calls(keyword)).toBe(1);
    // The interrupted fetch step ran again on server B: the page twice, each competitor twice (once lost).
    expect(s.web.count('/target/thorough')).toBe(2);
    for (const c of ['/c/4', '/c/5', '/c/6']) expect(s.web.count(c), c).toBe(2);
    expect(await ledgerOf(s.db, completedId)).toEqual([{ state: 'charged', units: 4 }]);
    expect(await runOf(s.db, completedId)).toMatchObject({ state: 'done', lease_owner: null });
    expect(b.stderr()).not.toContain('usage charge skipped');
    // The same request after the restart replays the same run.
    const again = await api<Optimization>(
      b.url,
      s.key,
      'POST',
      '/optimize',
      { url: s.web.url('/target/thorough'), keyword },
      { 'idempotency-key': 'g74' },
    );
    expect(again).toMatchObject({ status: 202, body: { optimization_id: completedId, status: 'complete' } });
  });

  it('G.78 maximum attempts, counted across the kill -9: failed with a stable error, reservation released once, no endless retry', async () => {
    expect(failed).toMatchObject({ status: 'failed', billing_status: 'released', result: null });
    expect(failed.error).toMatch(/^The page could not be analysed/);
    expect(await runOf(s.db, failingId)).toMatchObject({ state: 'failed', attempts: 3 });
    // One attempt lost in the crash, two more on server B: three in all.
    expect(s.web.count('/target/reset')).toBe(3);
    for (const c of ['/c/1', '/c/2', '/c/3']) expect(s.web.count(c), c).toBe(3);
    expect(await ledgerOf(s.db, failingId)).toEqual([{ state: 'released', units: 4 }]);
    // Read again, the error is the same (stable) and the run is terminal: the runner never claims it again.
    const later = await api<Optimization>(b.url, s.key, 'GET', `/optimizations/${failingId}?view=status`);
    expect(later.body).toMatchObject({ status: 'failed', error: failed.error, billing_status: 'released' });
    expect(b.stderr()).not.toContain('usage release skipped');
  });

  it('G.74/G.78 the pool holds exactly the one finalized run: 4 units used, nothing left reserved', async () => {
    const usage = await api<{ windows: { '24h': { used: number; reserved: number } } }>(b.url, s.key, 'GET', '/usage');
    expect(usage.body.windows['24h']).toMatchObject({ used: 4, reserved: 0 });
    const ledger = await s.db
      .selectFrom('usage_ledger')
      .select(['resource_id', 'state'])
      .where('org_id', '=', s.orgId)
      .orderBy('resource_id')
      .execute();
    expect(ledger).toHaveLength(2);
  });
});
