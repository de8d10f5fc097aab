import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createClient } from '../../src/store/repos/clients.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import type { FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.ts';
import { expireLeases, LONG_LEASE_MS } from '../helpers/leases.ts';
import { openTestStore } from '../helpers/store.ts';
import { PLUMBING, type JobDetail } from './helpers/harness.ts';
import { llmEnv, startHoldingProxy, startModel, type HoldingProxy } from './helpers/llm.ts';

/**
 * docs/reliability.md B.23, B.24 and G.74-G.76, G.79 through both create operations with real `agent-api serve` processes on
 * one store (SQLite file or PostgreSQL database), the LLM writer pointed (through a holding proxy) at the OpenAI fake, which dedupes by
 * Idempotency-Key. Server A is killed (-9) with two runs whose provider call was held before it reached the
 * provider (B.23) and two whose provider answer was held after the provider ran (B.24 / G.75); servers B and C,
 * started together on the same database (G.76), finish them once; C then stops and B is stopped with SIGTERM while a
 * provider call is in flight (G.79), and server D finishes that run. Waiting is for another process to reach a
 * state: proxy events, API long-polls and reads of the database.
 */

const cleanups: Array<() => unknown> = [];
let db: Db;
let key: string;
let orgId: string;
let clientId: string;
let fake: FakeOpenAi;
let proxy: HoldingProxy;
let env: Record<string, string>;

/**
 * A server on the shared database. Every lease is long, so a busy machine (a blocked event loop) cannot make a live
 * server lose one, to itself or to the other; the test ends A's leases itself after the kill (test/helpers/leases.ts).
 */
async function start(): Promise<SpawnedServer> {
  const server = await spawnServer({ ...env, AGENT_API_LEASE_MS: LONG_LEASE_MS });
  cleanups.push(() => server.crash());
  return server;
}

async function api<T = Record<string, unknown>>(
  base: string,
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
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as T };
}

/** Long-polls the job until it is terminal. */
async function finished(base: string, id: string, timeoutMs = 60_000): Promise<JobDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api<JobDetail>(base, 'GET', `/copywriter/jobs/${id}?wait_seconds=5`);
    expect(r.status).toBe(200);
    if (r.body.status === 'completed' || r.body.status === 'failed') return r.body;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${r.body.status}`);
  }
}

/** Polls the database until `check` holds (another process writes it). */
async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not reached: ${JSON.stringify(v)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const jobBody = { topic: PLUMBING, client_id: '', page_contract: 'commercial_service', word_count_target: 300 };
const pilotBody = { topic: PLUMBING, client_id: '', page_contract: 'commercial_service' };
const runOf = (id: string) => db.selectFrom('runs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
const ledgerOf = (id: string) =>
  db.selectFrom('usage_ledger').select(['state', 'units']).where('resource_id', '=', id).execute();
const keyOf = (runId: string, step: string, call: string) => `${runId}:${step}:${call}`;

beforeAll(async () => {
  const store = await openTestStore();
  cleanups.push(() => store.close());
  db = store.db;
  await migrateToLatest(db);
  const now = Date.now();
  const org = await createOrganisation(db, { name: 'Crash org', plan: 'agency', subscription: 'active' }, now);
  orgId = org.id;
  clientId = (await createClient(db, { orgId, name: 'Crash client', serviceArea: 'Austin, TX' }, now)).id;
  key = (await issueApiKey(db, { orgId, scopes: ['copywriter:run'] }, now)).apiKey;
  jobBody.client_id = clientId;
  pilotBody.client_id = clientId;
  fake = await startModel();
  cleanups.push(() => fake.close());
  proxy = await startHoldingProxy(fake.origin);
  cleanups.push(() => proxy.close());
  env = {
    ...store.env,
    AGENT_API_OFFLINE: '1',
    ...llmEnv(proxy.baseUrl),
    AGENT_API_POLL_MS: '50',
    AGENT_API_RETRY_BASE_MS: '50',
  };
});
afterAll(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

describe('kill -9, restart, two processes and SIGTERM, through content jobs and Autopilot', () => {
  const ids: Record<string, string> = {};
  const runs: Record<string, string> = {};
  let a: SpawnedServer;
  let b: SpawnedServer;
  let c: SpawnedServer;

  beforeAll(async () => {
    a = await start();
    // B.23: the brief calls of a job and an Autopilot run are held before they reach the provider.
    proxy.setPolicy((k) => (k?.endsWith(':brief:brief') ? 'before' : 'pass'));
    const j1 = await api<JobDetail>(a.url, 'POST', '/copywriter/jobs', jobBody, { 'idempotency-key': 'b23-job' });
    const p1 = await api<JobDetail>(a.url, 'POST', '/copywriter/autopilot', pilotBody, {
      'idempotency-key': 'b23-pilot',
    });
    expect([j1.status, p1.status]).toEqual([201, 202]);
    ids.b23job = j1.body.job_id;
    ids.b23pilot = p1.body.job_id;
    await proxy.waitForHeld(2, (h) => h.at === 'before');
    // B.24: the draft calls of another job and run reach the provider, which answers; the answers are held.
    proxy.setPolicy((k) => (k?.endsWith(':draft:draft') ? 'after' : 'pass'));
    const j2 = await api<JobDetail>(a.url, 'POST', '/copywriter/jobs', jobBody, { 'idempotency-key': 'b24-job' });
    const p2 = await api<JobDetail>(a.url, 'POST', '/copywriter/autopilot', pilotBody, {
      'idempotency-key': 'b24-pilot',
    });
    expect([j2.status, p2.status]).toEqual([201, 202]);
    ids.b24job = j2.body.job_id;
    ids.b24pilot = p2.body.job_id;
    await proxy.waitForHeld(2, (h) => h.at === 'after');
    for (const [name, id] of Object.entries(ids)) runs[name] = (await runOf(id)).id;
  });

  it('B.23 / B.24 before the crash: reservations and runs committed with the jobs; the held calls are where they should be', async () => {
    for (const name of ['b23job', 'b23pilot']) {
      const r = await runOf(ids[name]!);
      expect(r, name).toMatchObject({ state: 'pending', step: 1, attempts: 1 });
      expect(r.lease_owner).not.toBeNull();
      // The provider never saw the brief call.
      expect(fake.callsFor(keyOf(runs[name]!, 'brief', 'brief'))).toBe(0);
    }
    for (const name of ['b24job', 'b24pilot']) {
      const r = await runOf(ids[name]!);
      expect(r, name).toMatchObject({ state: 'pending', step: 2, attempts: 1 });
      // The provider ran the draft call once; its answer never reached the server.
      expect(fake.runsFor(keyOf(runs[name]!, 'draft', 'draft'))).toBe(1);
    }
    for (const id of Object.values(ids)) expect((await ledgerOf(id)).map((l) => l.state)).toEqual(['reserved']);
  });

  describe('after kill -9 of A, B and C start together on the same database', () => {
    beforeAll(async () => {
      // kill -9: the held connections die with the process; nothing held is forwarded later.
      await a.crash();
      // A's four leases run out (as they would, LEASE_MS after the kill): B and C claim them at once.
      expect(await expireLeases(db)).toBe(4);
      proxy.drop();
      proxy.setPolicy(() => 'pass');
      [b, c] = await Promise.all([start(), start()]);
    });

    it('B.23 / B.24 the same requests after the restart replay the same jobs (200 / 202, Idempotent-Replayed)', async () => {
      const again = [
        await api<JobDetail>(b.url, 'POST', '/copywriter/jobs', jobBody, { 'idempotency-key': 'b23-job' }),
        await api<JobDetail>(c.url, 'POST', '/copywriter/autopilot', pilotBody, { 'idempotency-key': 'b23-pilot' }),
        await api<JobDetail>(c.url, 'POST', '/copywriter/jobs', jobBody, { 'idempotency-key': 'b24-job' }),
        await api<JobDetail>(b.url, 'POST', '/copywriter/autopilot', pilotBody, { 'idempotency-key': 'b24-pilot' }),
      ];
      expect(again.map((r) => [r.status, r.replayed, r.body.job_id])).toEqual([
        [200, 'true', ids.b23job],
        [202, 'true', ids.b23pilot],
        [200, 'true', ids.b24job],
        [202, 'true', ids.b24pilot],
      ]);
    });

    it('B.23 / G.74 the runs whose provider call never left complete once: one provider call per key, one charge', async () => {
      for (const name of ['b23job', 'b23pilot']) {
        const done = await finished(b.url, ids[name]!);
        expect(done, name).toMatchObject({ status: 'completed', billing: { charged: true, released: false } });
        const briefKey = keyOf(runs[name]!, 'brief', 'brief');
        expect(fake.callsFor(briefKey), name).toBe(1);
        expect(fake.runsFor(briefKey), name).toBe(1);
        expect(await ledgerOf(ids[name]!)).toEqual([{ state: 'charged', units: name.endsWith('job') ? 10 : 25 }]);
      }
    });

    it('B.24 / G.75 the runs whose provider answer was lost resume with the same derived key: the provider replays, one billable run, one charge', async () => {
      for (const name of ['b24job', 'b24pilot']) {
        const done = await finished(b.url, ids[name]!);
        expect(done, name).toMatchObject({ status: 'completed', billing: { charged: true, released: false } });
        const draftKey = keyOf(runs[name]!, 'draft', 'draft');
        expect(fake.callsFor(draftKey), name).toBe(2);
        expect(fake.runsFor(draftKey), name).toBe(1);
        expect(await ledgerOf(ids[name]!)).toEqual([{ state: 'charged', units: name.endsWith('job') ? 10 : 25 }]);
        expect(await runOf(ids[name]!)).toMatchObject({ state: 'done', lease_owner: null });
      }
    });

    it('B.23 / B.24 one job, one reservation and one stored key per idempotency key; every provider key ran once', async () => {
      const jobs = await db.selectFrom('content_jobs').select('id').where('org_id', '=', orgId).execute();
      expect(jobs).toHaveLength(4);
      expect(await db.selectFrom('usage_ledger').select('id').where('org_id', '=', orgId).execute()).toHaveLength(4);
      expect(
        await db.selectFrom('idempotency_keys').select('key').where('org_id', '=', orgId).orderBy('key').execute(),
      ).toEqual(['b23-job', 'b23-pilot', 'b24-job', 'b24-pilot'].map((k) => ({ key: k })));
      for (const r of fake.requests) expect(fake.runsFor(r.key!), r.key!).toBe(1);
      for (const s of [b, c]) expect(s.stderr()).not.toMatch(/usage charge skipped|usage release skipped/);
    });

    it('G.76 two processes on one database: each new run is executed by one of them only (one provider call per step key), charged once', async () => {
      const before = fake.requests.length;
      const created = await Promise.all(
        [b, c, b, c].map((s, i) =>
          api<JobDetail>(
            s.url,
            'POST',
            i < 2 ? '/copywriter/jobs' : '/copywriter/autopilot',
            i < 2 ? jobBody : pilotBody,
          ),
        ),
      );
      expect(created.map((r) => r.status)).toEqual([201, 201, 202, 202]);
      const done = await Promise.all(created.map((r) => finished(c.url, r.body.job_id)));
      for (const d of done)
        expect(d).toMatchObject({ status: 'completed', billing: { charged: true, released: false } });
      const keys = fake.requests.slice(before).map((r) => r.key!);
      expect(keys.length).toBeGreaterThanOrEqual(8);
      for (const k of keys) expect(fake.callsFor(k), k).toBe(1);
      for (const r of created)
        expect(await ledgerOf(r.body.job_id)).toEqual([{ state: 'charged', units: r.status === 201 ? 10 : 25 }]);
      for (const r of created) expect(await runOf(r.body.job_id)).toMatchObject({ state: 'done', lease_owner: null });
    });

    it('G.79 SIGTERM while a provider call is in flight: the step finishes or is handed back, the lease is released; after a restart the job completes without a duplicate call', async () => {
      expect(await c.terminate()).toBe(0);
      proxy.setPolicy((k) => (k?.endsWith(':brief:brief') ? 'before' : 'pass'));
      const created = await api<JobDetail>(b.url, 'POST', '/copywriter/jobs', jobBody, { 'idempotency-key': 'g79' });
      expect(created.status).toBe(201);
      await proxy.waitForHeld(1);
      const runId = (await runOf(created.body.job_id)).id;
      proxy.setPolicy(() => 'pass');
      b.child.kill('SIGTERM');
      await until(
        async () => b.stderr(),
        (text) => text.includes('shutting down'),
      );
      // The provider answers while the server shuts down: the in-flight step completes and is checkpointed.
      proxy.release();
      expect(
        await new Promise((resolve) =>
          b.child.exitCode !== null ? resolve(b.child.exitCode) : b.child.once('exit', (code) => resolve(code)),
        ),
      ).toBe(0);
      const left = await runOf(created.body.job_id);
      expect(left.lease_owner).toBeNull();
      expect(['pending', 'done']).toContain(left.state);
      if (left.state === 'pending') expect(left.step).toBeGreaterThanOrEqual(2);
      const d = await start();
      const done = await finished(d.url, created.body.job_id);
      expect(done).toMatchObject({ status: 'completed', billing: { charged: true, released: false } });
      expect(fake.callsFor(keyOf(runId, 'brief', 'brief'))).toBe(1);
      expect(fake.callsFor(keyOf(runId, 'draft', 'draft'))).toBe(1);
      expect(await ledgerOf(created.body.job_id)).toEqual([{ state: 'charged', units: 10 }]);
    });
  });
});
