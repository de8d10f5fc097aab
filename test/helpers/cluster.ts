import { sql } from 'kysely';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import type { Db } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createClient } from '../../src/store/repos/clients.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import type { Plan } from '../../src/store/schema.ts';
import { spawnServer, type SpawnedServer } from './spawn.ts';
import { readJsonAnswer, type JsonAnswer } from './json-answer.ts';
import { PLUMBING } from '../content/helpers/harness.ts';
import { openTestStore, type TestStore } from './store.ts';

/**
 * Several real `agent-api serve` processes on ONE PostgreSQL database (the `multiprocess` vitest project): the store
 * is a fresh database of the run's throwaway cluster, migrated and seeded from the test process through the repos, and
 * every member is a child process spawned with the same store settings. Each member connects with its own
 * `application_name` (PGAPPNAME, `mp-<name>`), so `pg_stat_activity` shows which processes are on the database; a
 * run's `lease_owner` (`host:pid:random`, engine/runner/runner.ts) names the member holding it by pid.
 */

export interface Member extends SpawnedServer {
  /** `a`, `b`, `c`, … (the order they were asked for). */
  name: string;
  pid: number;
  /** The process has not exited. */
  alive(): boolean;
}

export interface Tenant {
  orgId: string;
  clientId: string;
  key: string;
}

export type ApiAnswer<T = Record<string, unknown>> = JsonAnswer<T>;

/** A content job on a topic the offline archive covers, with a short draft target (both suites send it). */
export const plumbingJob = (clientId: string) => ({
  topic: PLUMBING,
  client_id: clientId,
  page_contract: 'commercial_service',
  word_count_target: 300,
});

export interface Cluster {
  /** The test's own connection to the one database (for seeding and for reading what the members wrote). */
  db: Db;
  /** The settings every member got (store, shared settings); spawn more with `spawn`. */
  env: Record<string, string>;
  members: Member[];
  /** Starts another member on the same database. */
  spawn(name: string, extra?: Record<string, string>): Promise<Member>;
  /** An organisation of `plan` with one client (service area Austin, TX) and an all-scope key. */
  tenant(plan?: Plan): Promise<Tenant>;
  /** Another all-scope key of an organisation (each key has its own per-minute request limit). */
  key(orgId: string): Promise<string>;
  /** The member whose runner holds a lease named `owner` (by pid), if any. */
  holder(owner: string | null): Member | undefined;
  /** The `application_name`s of the connections open on this database (the members show as `mp-<name>`). */
  connectedApps(): Promise<string[]>;
  /** Kills every member still running (-9) and drops the test's connection. */
  close(): Promise<void>;
}

/** The pid in a runner's lease owner name (`host:pid:random`). */
export function pidOfOwner(owner: string | null): number | null {
  const m = owner ? /:(\d+):[^:]*$/.exec(owner) : null;
  return m ? Number(m[1]) : null;
}

/** Starts `size` members on a fresh, migrated database (together, so they also race their start-up migrations). */
export async function startCluster(options: { size: number; env?: Record<string, string> }): Promise<Cluster> {
  const store: TestStore = await openTestStore();
  await migrateToLatest(store.db);
  const env: Record<string, string> = {
    ...store.env,
    AGENT_API_OFFLINE: '1',
    AGENT_API_POLL_MS: '50',
    AGENT_API_RETRY_BASE_MS: '50',
    ...options.env,
  };
  const members: Member[] = [];
  const spawn = async (name: string, extra: Record<string, string> = {}): Promise<Member> => {
    const server = await spawnServer({ ...env, PGAPPNAME: `mp-${name}`, ...extra });
    const member: Member = {
      ...server,
      name,
      pid: server.child.pid!,
      alive: () => server.child.exitCode === null && server.child.signalCode === null,
    };
    members.push(member);
    return member;
  };
  try {
    const names = Array.from({ length: options.size }, (_, i) => String.fromCharCode(97 + i));
    const started = await Promise.allSettled(names.map((n) => spawn(n)));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    members.sort((x, y) => x.name.localeCompare(y.name));
  } catch (err) {
    await Promise.all(members.map((m) => m.crash()));
    await store.close();
    throw err;
  }

  const db = store.db;
  let seq = 0;
  return {
    db,
    env,
    members,
    spawn,
    async tenant(plan: Plan = 'agency') {
      const now = Date.now();
      const org = await createOrganisation(db, { name: `mp org ${++seq}`, plan, subscription: 'active' }, now);
      const client = await createClient(
        db,
        { orgId: org.id, name: `mp client ${seq}`, serviceArea: 'Austin, TX' },
        now,
      );
      const key = await issueApiKey(db, { orgId: org.id, scopes: SCOPES }, now);
      return { orgId: org.id, clientId: client.id, key: key.apiKey };
    },
    async key(orgId: string) {
      return (await issueApiKey(db, { orgId, scopes: SCOPES }, Date.now())).apiKey;
    },
    holder(owner) {
      const pid = pidOfOwner(owner);
      return pid === null ? undefined : members.find((m) => m.pid === pid);
    },
    async connectedApps() {
      const r = await sql<{ app: string }>`
        select distinct application_name as app from pg_stat_activity where datname = current_database()
      `.execute(db);
      return r.rows.map((row) => row.app).sort();
    },
    async close() {
      await Promise.all(members.map((m) => m.crash()));
      await store.close();
    },
  };
}

/** One REST call (`/api/agent/v1` + path) to a member; the body is parsed when it is JSON. */
export async function api<T = Record<string, unknown>>(
  base: string,
  key: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer<T>> {
  const res = await fetch(`${base}/api/agent/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return readJsonAnswer<T>(res);
}

/**
 * Polls `read` until `check` holds (another process is doing the work); fails naming `what` and the last value after
 * `timeoutMs`. Waiting on a condition, never on a duration.
 */
export async function until<T>(
  what: string,
  read: () => Promise<T> | T,
  check: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The number of rows of a count query (PostgreSQL answers bigint counts as numbers here, see dialect/postgres.ts). */
export const countOf = (row: { n: unknown } | undefined): number => Number(row?.n ?? 0);
