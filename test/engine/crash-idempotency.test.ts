import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import type { OpenedDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createClient } from '../../src/store/repos/clients.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { startBillableProvider, type BillableProvider } from '../helpers/billable-provider.ts';
import { expireLeases, LONG_LEASE_MS } from '../helpers/leases.ts';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.ts';
import { openTestStore, type TestStore } from '../helpers/store.ts';

/**
 * docs/reliability.md B.23 and B.24 with real processes: the widget server is killed with SIGKILL at a chosen point, a new
 * process is started on the same store (SQLite file or PostgreSQL database), and the client retries with the same Idempotency-Key. The billable
 * provider on loopback counts calls and distinct executions per derived key (`<runId>:call`).
 */

type Widget = { widget_id: string; status: string; billing: string; result: { execution: number } | null };

describe('B. idempotency across crashes (kill -9)', () => {
  let store: TestStore;
  let database: OpenedDatabase;
  let provider: BillableProvider;
  let tenant: { orgId: string; clientId: string; key: string };
  const servers: SpawnedServer[] = [];

  beforeEach(async () => {
    store = await openTestStore();
    database = store.opened;
    await migrateToLatest(database.db);
    const now = Date.now();
    const org = await createOrganisation(
      database.db,
      { name: 'crash org', plan: 'agency', subscription: 'active' },
      now,
    );
    const client = await createClient(database.db, { name: 'c', orgId: org.id }, now);
    const key = await issueApiKey(database.db, { orgId: org.id, scopes: ['copywriter:run', 'copywriter:read'] }, now);
    tenant = { orgId: org.id, clientId: client.id, key: key.apiKey };
    provider = await startBillableProvider();
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.crash();
    provider.release();
    await provider.close();
    await store.close();
  });

  /**
   * A widget server on the shared database: one runner slot, 50 ms polling, and a lease no stall of a busy machine
   * outlives (a live server never loses its own); `crash` ends the killed server's leases (helpers/leases.ts).
   */
  async function server(owner: string): Promise<SpawnedServer> {
    const s = await spawnServer(
      {
        ...store.env,
        WIDGET_PROVIDER_URL: provider.url,
        AGENT_API_LEASE_MS: LONG_LEASE_MS,
        AGENT_API_POLL_MS: '50',
        AGENT_API_RUNNER_CONCURRENCY: '1',
        RUNNER_OWNER: owner,
      },
      { script: 'test/helpers/widget-server.ts' },
    );
    servers.push(s);
    return s;
  }

  async function crash(s: SpawnedServer): Promise<void> {
    await s.crash();
    servers.splice(servers.indexOf(s), 1);
    // Its leases run out, as they would LEASE_MS after the kill: the next server claims the runs at once.
    await expireLeases(database.db);
  }

  async function createWidget(s: SpawnedServer, label: string, idem: string) {
    const res = await fetch(`${s.url}/api/agent/v1/widgets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'idempotency-key': idem },
      body: JSON.stringify({ client_id: tenant.clientId, label }),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as Widget };
  }

  const runOf = (widgetId: string) =>
    database.db.selectFrom('runs').selectAll().where('resource_id', '=', widgetId).executeTakeFirstOrThrow();
  const waitFor = <T>(fn: () => Promise<T> | T) => vi.waitFor(fn, { timeout: 120_000, interval: 25 });

  /** The records one widget left: its runs, its ledger entries and the organisation's key records. */
  async function records(widgetId: string) {
    return {
      runs: (
        await database.db
          .selectFrom('runs')
          .select('id')
          .where('kind', '=', 'widget')
          .where('resource_id', '=', widgetId)
          .execute()
      ).length,
      ledger: await database.db
        .selectFrom('usage_ledger')
        .select(['state', 'units'])
        .where('resource_id', '=', widgetId)
        .execute(),
    };
  }

  it('B.23 crash after the key+reservation commit, before the provider call: the retry replays and the work completes once', async () => {
    const first = await server('first');
    // Occupy the only runner slot with a widget whose provider call is held, so the target is accepted but not claimed.
    provider.setHold(true);
    const blocker = await createWidget(first, 'blocker', 'blocker-key');
    expect(blocker.status).toBe(201);
    await waitFor(() => expect(provider.heldCount()).toBe(1));

    const target = await createWidget(first, 'target', 'target-key');
    expect(target.status).toBe(201);
    const id = target.body.widget_id;
    // Committed: the key record, the reservation and the queued run, and no provider call for it yet.
    const queued = await runOf(id);
    expect(queued).toMatchObject({ state: 'pending', lease_owner: null, attempts: 0 });
    expect(provider.callsFor(`${queued.id}:`)).toBe(0);
    expect(await records(id)).toEqual({ runs: 1, ledger: [{ state: 'reserved', units: 1 }] });

    await crash(first);
    provider.setHold(false);
    provider.release();

    const second = await server('second');
    const retry = await createWidget(second, 'target', 'target-key');
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBe('true');
    expect(retry.body.widget_id).toBe(id);

    await waitFor(async () => expect((await runOf(id)).state).toBe('done'));
    expect(provider.callsFor(`${queued.id}:call`)).toBe(1);
    expect(await records(id)).toEqual({ runs: 1, ledger: [{ state: 'charged', units: 1 }] });
    const keys = await database.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('org_id', '=', tenant.orgId)
      .orderBy('key')
      .execute();
    expect(keys.map((k) => k.key)).toEqual(['blocker-key', 'target-key']);
    // The blocker, whose call was in flight at the crash, is recovered as well, and charged once.
    await waitFor(async () => expect((await runOf(blocker.body.widget_id)).state).toBe('done'));
    expect(await records(blocker.body.widget_id)).toEqual({ runs: 1, ledger: [{ state: 'charged', units: 1 }] });
    const final = await createWidget(second, 'target', 'target-key');
    expect(final.body).toMatchObject({ widget_id: id, status: 'complete', billing: 'charged' });
  }, 240_000);

  it('B.24 crash after the provider did the work but before the answer was stored: the resumed run calls again with the same key; one execution', async () => {
    const first = await server('first');
    provider.setHold(true);
    const created = await createWidget(first, 'paid', 'paid-key');
    expect(created.status).toBe(201);
    const id = created.body.widget_id;
    await waitFor(() => expect(provider.heldCount()).toBe(1));
    const run = await runOf(id);
    const derived = `${run.id}:call`;
    expect(provider.calls.get(derived)).toBe(1);

    // The server dies; then the provider completes the billable work and answers a connection nobody reads.
    await crash(first);
    const runsBefore = provider.runs();
    provider.setHold(false);
    provider.release();
    expect(provider.runs()).toBe(runsBefore + 1);
    const execution = runsBefore + 1;

    const second = await server('second');
    const retry = await createWidget(second, 'paid', 'paid-key');
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBe('true');
    expect(retry.body.widget_id).toBe(id);

    // The dead server's lease has ended: the new process resumes the run and calls again with the same derived key.
    await waitFor(async () => expect((await runOf(id)).state).toBe('done'));
    expect(provider.calls.get(derived)).toBe(2);
    expect(provider.runs()).toBe(execution);
    expect(await records(id)).toEqual({ runs: 1, ledger: [{ state: 'charged', units: 1 }] });
    const final = await createWidget(second, 'paid', 'paid-key');
    expect(final.body).toMatchObject({ widget_id: id, status: 'complete', billing: 'charged', result: { execution } });
  }, 240_000);

  it('B.24 answer released and the server killed at once (stored or not): provider runs = 1, charged once', async () => {
    const first = await server('first');
    provider.setHold(true);
    const created = await createWidget(first, 'race', 'race-key');
    expect(created.status).toBe(201);
    const id = created.body.widget_id;
    await waitFor(() => expect(provider.heldCount()).toBe(1));
    const run = await runOf(id);
    const runsBefore = provider.runs();
    provider.setHold(false);
    provider.release();
    await crash(first);

    const second = await server('second');
    const retry = await createWidget(second, 'race', 'race-key');
    expect(retry.status).toBe(200);
    expect(retry.body.widget_id).toBe(id);
    await waitFor(async () => expect((await runOf(id)).state).toBe('done'));
    expect(provider.runs() - runsBefore).toBe(1);
    expect([1, 2]).toContain(provider.calls.get(`${run.id}:call`));
    expect(await records(id)).toEqual({ runs: 1, ledger: [{ state: 'charged', units: 1 }] });
  }, 240_000);
});
