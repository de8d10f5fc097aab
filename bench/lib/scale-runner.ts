/**
 * Part 1 of `npm run bench -- scale`: runner jobs/s of a one-step pipeline in N real worker processes on one
 * PostgreSQL database, beside a raw `FOR UPDATE SKIP LOCKED` claim-and-complete loop in as many processes with as many
 * connections (its own database, same schema).
 *
 * A fleet is N processes started once and kept idle between drains. A drain empties the `runs` table, enqueues the
 * queue (the same number of due runs each time) while nothing works on it, then says `go` to every process at once and
 * waits until nothing is pending; its time runs from `go` to the last completion as the database recorded it
 * (`max(updated_at)`). The runner fleet is stopped again after each drain, so the next queue is enqueued before any
 * worker starts on it. Each side first drains a small warm-up queue, then the sides drain alternately A B B A, so drift
 * on the machine falls on both; a side's jobs/s is its jobs over its time summed over its two drains.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import type { RunRow } from '../../src/store/repos/runs.ts';
import type { PgCluster } from '../../test/helpers/postgres.ts';
import { processCpuMs } from './harness.ts';
import { spawnChild, stopAll, type BenchChild } from './scale-procs.ts';

const KIND = 'bench';

/** CPU milliseconds used so far by the cluster's postmaster and every process it started (backends, vacuum, WAL). */
export function postgresCpuMs(cluster: PgCluster): number {
  const postmaster = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (pid === postmaster || ppid === postmaster) total += processCpuMs(pid);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RunnerSettings {
  /** Runs per measured drain (each side drains twice). */
  jobs: number;
  concurrency: number;
  poolSize: number;
  /** Connections of each raw-loop process. */
  rawConnections: number;
  /** How long the step waits in the scaling figure of a waiting step, ms. */
  stepMs: number;
}

/** One drain's figures. */
interface Drain {
  jobs: number;
  ms: number;
  workerCpuMs: number;
  pgCpuMs: number;
  failed: number;
  logLines: number;
}

export interface QueueRun {
  jobs: number;
  ms: number;
  perSecond: number;
  /** Worker processes' CPU per job, µs. */
  workerCpuUs: number;
  /** PostgreSQL's CPU per job, µs (all of the cluster's processes: both sides' idle ones too). */
  pgCpuUs: number;
  failed: number;
  /** Warning and error log lines the workers wrote while draining. */
  logLines: number;
}

/** N processes on one fresh database, idle between drains. */
class Fleet {
  private constructor(
    private readonly cluster: PgCluster,
    private readonly url: string,
    private readonly orgId: string,
    private readonly children: BenchChild[],
    private readonly runner: boolean,
  ) {}

  static async start(
    cluster: PgCluster,
    dbName: string,
    processes: number,
    runner: boolean,
    spawn: (url: string, i: number) => Promise<BenchChild>,
  ): Promise<Fleet> {
    const url = await cluster.createDatabase(dbName);
    const database = openStore({ url, file: '', poolSize: 1 });
    let orgId: string;
    try {
      await migrateToLatest(database.db);
      orgId = (
        await createOrganisation(database.db, { name: 'bench', plan: 'agency', subscription: 'active' }, Date.now())
      ).id;
    } finally {
      await database.close();
    }
    const started = await Promise.allSettled(Array.from({ length: processes }, (_, i) => spawn(url, i)));
    const children = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failure = started.find((s) => s.status === 'rejected');
    if (failure) {
      await stopAll(children);
      throw failure.reason;
    }
    return new Fleet(cluster, url, orgId, children, runner);
  }

  /** Empties the queue table and enqueues `jobs` due runs of the bench kind, as `insertRun` writes them. */
  private async enqueue(client: pg.Client, jobs: number): Promise<void> {
    const db = openStore({ url: this.url, file: '', poolSize: 1 });
    try {
      await sql`truncate runs`.execute(db.db);
      const now = Date.now();
      const row = (): RunRow => ({
        id: randomUUID(),
        kind: KIND,
        resource_id: randomUUID(),
        org_id: this.orgId,
        state: 'pending',
        step: 0,
        attempts: 0,
        max_attempts: 3,
        run_after: now,
        lease_owner: null,
        lease_expires_at: null,
        lease_token: 0,
        checkpoint: '{}',
        last_error: null,
        created_at: now,
        updated_at: now,
      });
      for (let i = 0; i < jobs; i += 500)
        await db.db
          .insertInto('runs')
          .values(Array.from({ length: Math.min(500, jobs - i) }, row))
          .execute();
    } finally {
      await db.close();
    }
    await client.query('vacuum analyze runs');
  }

  /** Enqueues `jobs`, says `go` to every process, waits until nothing is pending, and idles the fleet again. */
  async drain(jobs: number, timeoutMs = 180_000): Promise<Drain> {
    const poll = new pg.Client({ connectionString: this.url });
    poll.on('error', () => undefined);
    await poll.connect();
    try {
      await this.enqueue(poll, jobs);
      const cpu = () => this.children.reduce((a, c) => a + processCpuMs(c.pid), 0);
      const logs = () => this.children.reduce((a, c) => a + c.stderrLines(), 0);
      const cpu0 = cpu();
      const pg0 = postgresCpuMs(this.cluster);
      const logs0 = logs();
      const t0 = Date.now();
      for (const c of this.children) c.send('go');
      const deadline = t0 + timeoutMs;
      for (;;) {
        const r = await poll.query<{ n: number }>(`select count(*)::int as n from runs where state = 'pending'`);
        if (r.rows[0]!.n === 0) break;
        if (Date.now() > deadline)
          throw new Error(
            `${r.rows[0]!.n} runs still pending after ${timeoutMs} ms:\n${this.children.map((c) => c.stderr()).join('\n')}`,
          );
        await sleep(20);
      }
      const workerCpuMs = cpu() - cpu0;
      const pgCpuMs = postgresCpuMs(this.cluster) - pg0;
      const logLines = logs() - logs0;
      // Idle again: the runner stops (its next queue is enqueued before it starts); the raw loops report and wait.
      if (this.runner) for (const c of this.children) c.send('stop');
      await Promise.all(this.children.map((c) => c.next()));
      const r = await poll.query<{ last: string; done: number; failed: number }>(
        `select max(updated_at) as last, count(*) filter (where state = 'done')::int as done,
                count(*) filter (where state = 'failed')::int as failed from runs`,
      );
      const { last, done, failed } = r.rows[0]!;
      if (done + failed !== jobs) throw new Error(`expected ${jobs} finished runs, found ${done + failed}`);
      return { jobs, ms: Math.max(1, Number(last) - t0), workerCpuMs, pgCpuMs, failed, logLines };
    } finally {
      await poll.end().catch(() => undefined);
    }
  }

  async stop(dbName: string): Promise<void> {
    await stopAll(this.children);
    await this.cluster.dropDatabase(dbName);
  }
}

function summarise(drains: Drain[]): QueueRun {
  const sum = (f: (d: Drain) => number) => drains.reduce((a, d) => a + f(d), 0);
  const jobs = sum((d) => d.jobs);
  const ms = sum((d) => d.ms);
  return {
    jobs,
    ms,
    perSecond: jobs / (ms / 1000),
    workerCpuUs: (sum((d) => d.workerCpuMs) * 1000) / jobs,
    pgCpuUs: (sum((d) => d.pgCpuMs) * 1000) / jobs,
    failed: sum((d) => d.failed),
    logLines: sum((d) => d.logLines),
  };
}

/** `processes` worker processes running the project's runner, each step waiting `stepMs` first. */
function runnerFleet(cluster: PgCluster, dbName: string, processes: number, s: RunnerSettings, stepMs = 0) {
  return Fleet.start(cluster, dbName, processes, true, (url, i) =>
    spawnChild(`runner worker ${i + 1}/${processes}`, 'bench/lib/scale-worker.ts', {
      BENCH_SCALE_WORKER: '1',
      BENCH_STEP_MS: String(stepMs),
      AGENT_API_DATABASE_URL: url,
      AGENT_API_DATABASE_POOL_SIZE: String(s.poolSize),
      AGENT_API_RUNNER_CONCURRENCY: String(s.concurrency),
      AGENT_API_LOG_LEVEL: 'warn',
    }),
  );
}

/**
 * The project's runner alone in `processes` processes whose step waits `stepMs` (a provider's latency): what scaling
 * out buys when the work waits rather than computes. A warm-up drain, then two.
 */
export async function runnerWaiting(
  cluster: PgCluster,
  processes: number,
  s: RunnerSettings,
  stepMs: number,
  jobs: number,
): Promise<QueueRun> {
  const dbName = `runner_wait_p${processes}`;
  const fleet = await runnerFleet(cluster, dbName, processes, s, stepMs);
  try {
    await fleet.drain(Math.max(50, Math.floor(jobs / 10)));
    return summarise([await fleet.drain(jobs), await fleet.drain(jobs)]);
  } finally {
    await fleet.stop(dbName);
  }
}

/** The project's runner and the raw loop, each in `processes` processes: warm-up drains, then A B B A. */
export async function runnerAgainstRaw(
  cluster: PgCluster,
  processes: number,
  s: RunnerSettings,
): Promise<{ ours: QueueRun; raw: QueueRun }> {
  const oursDb = `runner_p${processes}`;
  const rawDb = `raw_p${processes}`;
  const fleets: Array<[Fleet, string]> = [];
  try {
    const settled = await Promise.allSettled([
      runnerFleet(cluster, oursDb, processes, s),
      Fleet.start(cluster, rawDb, processes, false, (url, i) =>
        spawnChild(`raw loop ${i + 1}/${processes}`, 'bench/lib/scale-raw-worker.ts', {
          BENCH_DATABASE_URL: url,
          BENCH_CONNECTIONS: String(s.rawConnections),
          BENCH_KIND: KIND,
        }),
      ),
    ]);
    settled.forEach((f, i) => f.status === 'fulfilled' && fleets.push([f.value, i === 0 ? oursDb : rawDb]));
    for (const f of settled) if (f.status === 'rejected') throw f.reason;
    const [ours, raw] = fleets.map(([f]) => f) as [Fleet, Fleet];
    const warm = Math.max(50, Math.floor(s.jobs / 10));
    await ours.drain(warm);
    await raw.drain(warm);
    const o = [await ours.drain(s.jobs)];
    const r = [await raw.drain(s.jobs)];
    r.push(await raw.drain(s.jobs));
    o.push(await ours.drain(s.jobs));
    return { ours: summarise(o), raw: summarise(r) };
  } finally {
    await Promise.all(fleets.map(([f, name]) => f.stop(name)));
  }
}
