import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createClient } from '../../src/store/repos/clients.ts';
import { getRunFor, type RunRow } from '../../src/store/repos/runs.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp } from '../helpers/app.ts';
import { startBillableProvider } from '../helpers/billable-provider.ts';
import { expireLeases, LONG_LEASE_MS } from '../helpers/leases.ts';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.ts';
import { openStoreOf, openTestStore } from '../helpers/store.ts';
import { widgetOperations, widgetPipeline } from '../helpers/widget.ts';

/**
 * Crash and restart of real server processes (docs/reliability.md G.74-G.76, G.79): `kill -9` and SIGTERM of
 * test/helpers/widget-server.ts processes sharing one store (SQLite file or PostgreSQL database), against a loopback provider that bills by
 * Idempotency-Key. Waiting here is for another process to reach a state, polled; nothing sleeps for timing.
 */

const SCRIPT = 'test/helpers/widget-server.ts';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Seeded {
  /** The settings that open the store (AGENT_API_DB, and AGENT_API_DATABASE_URL on PostgreSQL). */
  storeEnv: Record<string, string>;
  key: string;
  clientId: string;
  orgId: string;
  /** A connection of the test's own, for assertions on the rows the servers wrote. */
  db: Db;
}

async function seed(track = cleanups): Promise<Seeded> {
  const store = await openTestStore();
  track.push(() => store.close());
  const opened = store.opened;
  await migrateToLatest(opened.db);
  const now = Date.now();
  const org = await createOrganisation(opened.db, { name: 'Crash org', plan: 'agency', subscription: 'active' }, now);
  const client = await createClient(opened.db, { name: 'Crash client', orgId: org.id }, now);
  const key = await issueApiKey(opened.db, { orgId: org.id, scopes: SCOPES }, now);
  return { storeEnv: store.env, key: key.apiKey, clientId: client.id, orgId: org.id, db: opened.db };
}

async function start(
  s: Seeded,
  providerUrl: string,
  owner: string,
  env: Record<string, string> = {},
  track = cleanups,
): Promise<SpawnedServer> {
  const server = await spawnServer(
    {
      ...s.storeEnv,
      WIDGET_PROVIDER_URL: providerUrl,
      RUNNER_OWNER: owner,
      AGENT_API_POLL_MS: '50',
      // No live server loses a lease on a busy machine; a killed one's are ended by the test (helpers/leases.ts).
      AGENT_API_LEASE_MS: LONG_LEASE_MS,
      ...env,
    },
    { script: SCRIPT },
  );
  track.push(() => server.crash());
  return server;
}

async function call<T = Record<string, unknown>>(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${base}/api/agent/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Polls `check` until it holds (another process is doing the work); fails with `what` after `timeoutMs`. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function runOf(db: Db, widgetId: string): Promise<RunRow> {
  const run = await getRunFor(db, 'widget', widgetId);
  if (!run) throw new Error(`no run for widget ${widgetId}`);
  return run;
}

async function ledgerOf(db: Db, widgetId: string) {
  return db.selectFrom('usage_ledger').select(['state', 'units']).where('resource_id', '=', widgetId).execute();
}

type Behaviour = 'hold' | 'half' | 'gate' | 'answer';

/**
 * A loopback provider that bills by Idempotency-Key, like real paid APIs: the first call for a key does the work
 * (one billable run), later calls get the stored result. What the first call does depends on the label prefix of
 * the widget: `hold:` never answers (the work is never done), `half:` does the work and sends only half of its
 * answer (billed, but the caller cannot have stored the result), `gate:` waits for `open(label)`, anything else
 * answers at once.
 */
async function startScenarioProvider() {
  const results = new Map<string, string>();
  const calls = new Map<string, number>();
  const runs = new Map<string, number>();
  const gates = new Map<string, () => void>();
  const reached = new Map<string, { promise: Promise<void>; done: () => void }>();
  const open: ServerResponse[] = [];
  let executions = 0;
  const arrival = (label: string) => {
    let entry = reached.get(label);
    if (!entry) {
      let done!: () => void;
      entry = { promise: new Promise<void>((r) => (done = r)), done };
      reached.set(label, entry);
    }
    return entry;
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += String(d)));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? '');
      const label = String((JSON.parse(raw || '{}') as { label?: string }).label ?? '');
      const first = !calls.has(key);
      calls.set(key, (calls.get(key) ?? 0) + 1);
      const work = () => {
        runs.set(key, (runs.get(key) ?? 0) + 1);
        const body = JSON.stringify({ label, execution: ++executions, billed: true });
        results.set(key, body);
        return body;
      };
      const known = results.get(key);
      if (known) return void res.writeHead(200, { 'content-type': 'application/json' }).end(known);
      const behaviour: Behaviour = first
        ? ((/^(hold|half|gate):/.exec(label)?.[1] as Behaviour | undefined) ?? 'answer')
        : 'answer';
      if (first) arrival(label).done();
      if (behaviour === 'hold') return void open.push(res);
      if (behaviour === 'half') {
        const body = work();
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
        res.write(body.slice(0, 5));
        return void open.push(res);
      }
      if (behaviour === 'gate')
        return void gates.set(label, () => res.writeHead(200, { 'content-type': 'application/json' }).end(work()));
      res.writeHead(200, { 'content-type': 'application/json' }).end(work());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Billable executions for a key. */
    runsFor: (key: string) => runs.get(key) ?? 0,
    callsFor: (key: string) => calls.get(key) ?? 0,
    totalRuns: () => [...runs.values()].reduce((a, b) => a + b, 0),
    /** Resolves when the first call of the widget labelled `label` arrives. */
    reached: (label: string) => arrival(label).promise,
    open: (label: string) => gates.get(label)?.(),
    close: () => {
      open.forEach((r) => r.destroy());
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * One database through a chain of processes: A is killed with -9 holding two runs (G.74: the provider has not done
 * the work; G.75: the provider did and billed it, A never stored it), B recovers both, then B is stopped with SIGTERM
 * mid-step and C starts on the same file (G.79). Spawning costs seconds, so the chain is shared by the tests below.
 */
describe('crash and restart of real server processes', () => {
  let s: Seeded;
  let provider: Awaited<ReturnType<typeof startScenarioProvider>>;
  let b: SpawnedServer;
  let w74: string;
  let w75: string;
  const before: Record<string, RunRow> = {};
  const chain: Array<() => unknown> = [];

  beforeAll(async () => {
    s = await seed(chain);
    provider = await startScenarioProvider();
    chain.push(provider.close);
    const a = await start(s, provider.url, 'server-a', {}, chain);
    const created = await Promise.all([
      call<{ widget_id: string }>(a.url, s.key, 'POST', '/widgets', {
        client_id: s.clientId,
        label: 'hold:g74',
        units: 3,
      }),
      call<{ widget_id: string }>(a.url, s.key, 'POST', '/widgets', { client_id: s.clientId, label: 'half:g75' }),
    ]);
    expect(created.map((c) => c.status)).toEqual([201, 201]);
    [w74, w75] = created.map((c) => c.body.widget_id) as [string, string];
    await Promise.all([provider.reached('hold:g74'), provider.reached('half:g75')]);
    before.g74 = await runOf(s.db, w74);
    before.g75 = await runOf(s.db, w75);
    await a.crash();
    // A's two leases run out (as they would, LEASE_MS after the kill): B claims both at once.
    expect(await expireLeases(s.db)).toBe(2);
    b = await start(s, provider.url, 'server-b', {}, chain);
    await until(
      'both runs to complete on server B',
      async () => (await runOf(s.db, w74)).state === 'done' && (await runOf(s.db, w75)).state === 'done',
    );
  }, 240_000);
  afterAll(async () => {
    for (const fn of chain.splice(0).reverse()) await fn();
  });

  it('G.74 kill -9 while a step is running: a restarted process resumes after the lease expires, the provider bills once, usage is charged once', async () => {
    expect(before.g74).toMatchObject({ state: 'pending', lease_owner: 'server-a', lease_token: 1, attempts: 1 });
    const done = await runOf(s.db, w74);
    expect(done).toMatchObject({ state: 'done', lease_owner: null, lease_token: 2 });
    const key = `${done.id}:call`;
    // The dead process's call was never answered; the retry carries the same key and is the one billable run.
    expect(provider.callsFor(key)).toBe(2);
    expect(provider.runsFor(key)).toBe(1);
    expect(await ledgerOf(s.db, w74)).toEqual([{ state: 'charged', units: 3 }]);
    const seen = await call(b.url, s.key, 'GET', `/widgets/${w74}`);
    expect(seen.body).toMatchObject({
      status: 'complete',
      billing: 'charged',
      result: { label: 'hold:g74', billed: true },
    });
    expect(b.stderr()).not.toContain('usage charge skipped');
  });

  it('G.75 kill -9 between the provider response and the DB write: the restart reconciles through the provider idempotency key', async () => {
    // When A died the provider had done and billed the work, and A had not stored it.
    expect(JSON.parse(before.g75!.checkpoint)).not.toHaveProperty('call');
    const done = await runOf(s.db, w75);
    const key = `${done.id}:call`;
    expect(provider.callsFor(key)).toBe(2);
    expect(provider.runsFor(key)).toBe(1);
    const first = JSON.parse(done.checkpoint) as { call: { execution: number } };
    expect(first.call).toMatchObject({ label: 'half:g75', billed: true });
    expect(await ledgerOf(s.db, w75)).toEqual([{ state: 'charged', units: 1 }]);
    const seen = await call(b.url, s.key, 'GET', `/widgets/${w75}`);
    expect(seen.body).toMatchObject({ status: 'complete', billing: 'charged', result: first.call });
  });

  it('G.79 SIGTERM while a step is running: the step finishes within the grace period, the process exits, a restart runs nothing twice', async () => {
    const created = await call<{ widget_id: string }>(b.url, s.key, 'POST', '/widgets', {
      client_id: s.clientId,
      label: 'gate:g79',
    });
    const id = created.body.widget_id;
    await provider.reached('gate:g79');
    const exited = b.terminate();
    await until('server B to begin its graceful shutdown', () => b.stderr().includes('shutting down'));
    expect((await runOf(s.db, id)).state).toBe('pending');
    provider.open('gate:g79');
    expect(await exited).toBe(0);
    const finished = await runOf(s.db, id);
    expect(finished).toMatchObject({ state: 'done', lease_owner: null, lease_token: 1 });
    expect(await ledgerOf(s.db, id)).toEqual([{ state: 'charged', units: 1 }]);

    const c = await start(s, provider.url, 'server-c');
    // A new widget on C proves C's runner has polled the queue (a due older run would be claimed first).
    const after = await call<{ widget_id: string }>(c.url, s.key, 'POST', '/widgets', {
      client_id: s.clientId,
      label: 'g79-after',
    });
    await until(
      'the widget created on C to complete',
      async () => (await runOf(s.db, after.body.widget_id)).state === 'done',
    );
    const key = `${finished.id}:call`;
    expect(provider.callsFor(key)).toBe(1);
    expect(provider.runsFor(key)).toBe(1);
    expect(await runOf(s.db, id)).toMatchObject({ state: 'done', lease_token: 1 });
    // Nothing else ran twice along the whole chain: one billable run per widget.
    expect(provider.totalRuns()).toBe(4);
    // Server C starts from the TypeScript sources (tsx): tens of seconds on a busy machine.
  }, 240_000);
});

describe('two processes and in-process shutdown', () => {
  it('G.76 two server processes on one database: each run is claimed and executed by exactly one of them', async () => {
    const s = await seed();
    const provider = await startBillableProvider();
    cleanups.push(provider.close);
    provider.setDelay(20);
    const [a, b] = await Promise.all([
      start(s, provider.url, 'server-a', { AGENT_API_POLL_MS: '10', AGENT_API_RUNNER_CONCURRENCY: '4' }),
      start(s, provider.url, 'server-b', { AGENT_API_POLL_MS: '10', AGENT_API_RUNNER_CONCURRENCY: '4' }),
    ]);
    const n = 24;
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call<{ widget_id: string }>(i % 2 ? a.url : b.url, s.key, 'POST', '/widgets', {
          client_id: s.clientId,
          label: `g76-${i}`,
        }),
      ),
    );
    expect(created.map((c) => c.status)).toEqual(Array(n).fill(201));
    const ids = created.map((c) => c.body.widget_id);
    const doneCount = async () =>
      Number(
        (
          await s.db
            .selectFrom('runs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('state', '=', 'done')
            .executeTakeFirstOrThrow()
        ).n,
      );
    await until('every widget to complete', async () => (await doneCount()) === n);

    const runs = await Promise.all(ids.map((id) => runOf(s.db, id)));
    expect(runs.map((r) => [r.state, r.lease_token])).toEqual(Array(n).fill(['done', 1]));
    expect(provider.runs()).toBe(n);
    expect(provider.calls.size).toBe(n);
    expect([...provider.calls.values()].every((c) => c === 1)).toBe(true);
    const ledger = await s.db.selectFrom('usage_ledger').select('state').where('org_id', '=', s.orgId).execute();
    expect(ledger.map((l) => l.state)).toEqual(Array(n).fill('charged'));
    expect(a.stderr() + b.stderr()).not.toMatch(/SQLITE_BUSY|lease lost|"level":50/);
    // Two server processes start from the TypeScript sources (tsx): seconds each, tens of them on a busy machine.
  }, 240_000);

  it('G.79 shutdown with a step outlasting the grace period: the run is handed back (lease released, attempt not counted) and a restart runs it once', async () => {
    const provider = await startScenarioProvider();
    cleanups.push(provider.close);
    const ops = [...OPERATIONS, ...widgetOperations()];
    const t1 = await startTestApp({
      operations: ops,
      pipelines: (e) => [widgetPipeline(e, () => provider.url)],
      runnerOwner: 'app-1',
    });
    cleanups.push(t1.cleanup);
    const { clientId, key } = await t1.tenant('agency');
    const created = await t1.request<{ widget_id: string }>('POST', '/widgets', {
      key,
      body: { client_id: clientId, label: 'hold:handed-back' },
    });
    const id = created.body.widget_id;
    const running = t1.engine.runner.runUntilIdle();
    await provider.reached('hold:handed-back');
    expect(await runOf(t1.db, id)).toMatchObject({ lease_owner: 'app-1', attempts: 1 });

    const dbPath = t1.dbPath;
    await t1.app.close(50);
    await running;
    const reopened = openStoreOf(t1.storeEnv);
    cleanups.push(() => reopened.close());
    expect(await runOf(reopened.db, id)).toMatchObject({
      state: 'pending',
      attempts: 0,
      lease_owner: null,
      lease_expires_at: null,
      last_error: null,
      lease_token: 1,
    });

    const t2 = await startTestApp({
      operations: ops,
      pipelines: (e) => [widgetPipeline(e, () => provider.url)],
      runnerOwner: 'app-2',
      dbPath,
    });
    cleanups.push(t2.stop);
    await t2.engine.runner.runUntilIdle();
    const done = await runOf(t2.db, id);
    expect(done).toMatchObject({ state: 'done', lease_token: 2 });
    expect(provider.runsFor(`${done.id}:call`)).toBe(1);
    expect(provider.callsFor(`${done.id}:call`)).toBe(2);
    expect(await ledgerOf(t2.db, id)).toEqual([{ state: 'charged', units: 1 }]);
  });
});
