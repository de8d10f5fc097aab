/**
 * `npm run bench -- scale [runner] [rest] [foundation] [--quick] [--jobs=N] [--concurrency=N] [--pool=N]
 * [--raw-connections=N] [--step-ms=N]`: how the server scales out on PostgreSQL, every figure measured side by side in
 * this run on a throwaway cluster (test/helpers/postgres.ts: Debian's postgresql binaries, fsync off).
 *  1. Runner jobs/s of a one-step pipeline in 1, 2 and 4 real worker processes on one database, each against a raw
 *     `FOR UPDATE SKIP LOCKED` claim-and-complete loop in as many processes with as many connections; and 4 processes
 *     against 1, with that step and with a step that waits `--step-ms` (default 100: a provider call's latency).
 *  2. REST GET /usage req/s of two serve processes against one (same autocannon load, same connections, dealt
 *     round-robin over the processes).
 *  3. bench/foundation.ts's scenario in one process, SQLite against PostgreSQL.
 * `--quick` halves the queues (500 runs a drain instead of 1,000) and measures 3 HTTP rounds instead of 5
 * (BENCH_ROUNDS and BENCH_ROUND_MS override the rounds, as for the foundation bench). Every child process and the
 * cluster are stopped at the end, on error and on Ctrl-C.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { startPostgresCluster, type PgCluster } from '../test/helpers/postgres.ts';
import { tempDir } from '../test/helpers/temp.ts';
import { table } from './lib/harness.ts';
import { killAllChildren } from './lib/scale-procs.ts';
import { runnerAgainstRaw, runnerWaiting, type QueueRun, type RunnerSettings } from './lib/scale-runner.ts';
import { restScale } from './lib/scale-rest.ts';
import { foundationServers, runnerStores, sqliteFile } from './lib/scale-foundation.ts';

const PROCESSES = [1, 2, 4] as const;

function numberArg(args: string[], name: string, fallback: number): number {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  if (!a) return fallback;
  const n = Number(a.slice(name.length + 3));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} wants a positive integer, got ${a}`);
  return n;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const yesNo = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
const f0 = (n: number) => n.toFixed(0);
const f2 = (n: number) => n.toFixed(2);

async function runnerPart(cluster: PgCluster, s: RunnerSettings): Promise<void> {
  process.stdout.write(
    `\n-- 1. Runner: one-step pipeline (a step that answers null) in N worker processes on one database --\n` +
      `workers: AGENT_API_RUNNER_CONCURRENCY=${s.concurrency}, AGENT_API_DATABASE_POOL_SIZE=${s.poolSize} ` +
      `(+1 LISTEN connection each); raw loop: ${s.rawConnections} connections per process, as many processes, same ` +
      `runs table and due-run predicate. Each drain: ${s.jobs} runs enqueued while nothing works, then "go" to all, ` +
      `timed to the last completion; per side a warm-up drain, then A B B A (jobs/s over both drains)\n`,
  );
  const ours = new Map<number, QueueRun>();
  const raw = new Map<number, QueueRun>();
  for (const p of PROCESSES) {
    const r = await runnerAgainstRaw(cluster, p, s);
    ours.set(p, r.ours);
    raw.set(p, r.raw);
  }
  const rows = PROCESSES.map((p) => {
    const o = ours.get(p)!;
    const r = raw.get(p)!;
    const ratio = o.perSecond / r.perSecond;
    return [
      `${p} process${p > 1 ? 'es' : ''}`,
      `${p * s.poolSize} / ${p * s.rawConnections}`,
      f0(o.perSecond),
      f0(r.perSecond),
      f2(ratio),
      '>= 0.25',
      yesNo(ratio >= 0.25),
      `${f0(o.workerCpuUs)} / ${f0(o.pgCpuUs)}`,
      `${f0(r.workerCpuUs)} / ${f0(r.pgCpuUs)}`,
      `${o.failed} / ${o.logLines}`,
    ];
  });
  process.stdout.write(
    table(
      [
        'runner jobs/s',
        'connections ours/raw',
        'ours',
        'raw loop',
        'ratio',
        'goal',
        'goal met?',
        'ours CPU µs/job worker/PG',
        'raw CPU µs/job worker/PG',
        'ours failed runs / warning lines',
      ],
      rows,
    ),
  );
  const scaleOurs = ours.get(4)!.perSecond / ours.get(1)!.perSecond;
  const scaleRaw = raw.get(4)!.perSecond / raw.get(1)!.perSecond;
  // The same runner when its step waits (a provider's latency) instead of answering at once: the cores are no longer
  // the limit, so this shows what more processes buy on a machine whose cores one process already fills above.
  const waitJobs = Math.max(200, Math.floor(s.jobs / 2));
  const waiting = new Map<number, QueueRun>();
  for (const p of [1, 4]) waiting.set(p, await runnerWaiting(cluster, p, s, s.stepMs, waitJobs));
  const scaleWaiting = waiting.get(4)!.perSecond / waiting.get(1)!.perSecond;
  const cores = cpus().length;
  process.stdout.write(
    table(
      ['scaling', 'ours', 'raw loop', 'goal', 'goal met?'],
      [
        [
          '4 processes / 1 process, jobs/s',
          f2(scaleOurs),
          f2(scaleRaw),
          '>= 2.5 (ours)',
          `${yesNo(scaleOurs >= 2.5)}${cores < 4 && scaleOurs < 2.5 ? ` (${cores} cores: the raw loop cannot either)` : ''}`,
        ],
        [
          `same, the step waiting ${s.stepMs} ms (${f0(waiting.get(1)!.perSecond)} -> ${f0(waiting.get(4)!.perSecond)} jobs/s, ${waitJobs} runs a drain)`,
          f2(scaleWaiting),
          '',
          '>= 2.5 (ours)',
          yesNo(scaleWaiting >= 2.5),
        ],
      ],
    ),
  );
}

async function restPart(cluster: PgCluster, rounds: number, roundMs: number, tmpDir: string): Promise<void> {
  const url = await cluster.createDatabase('rest_scale');
  try {
    const opts = { keys: 1_000, connections: 16, poolSize: 10, rounds, roundMs, tmpDb: sqliteFile(tmpDir, 'rest') };
    process.stdout.write(
      `\n-- 2. REST GET /usage: 2 serve processes against 1 on one database --\n` +
        `autocannon in the bench process, ${opts.connections} connections (dealt round-robin over the processes), ` +
        `${rounds} alternating rounds of ${roundMs} ms after a warm-up round each; AGENT_API_DATABASE_POOL_SIZE=` +
        `${opts.poolSize}; the per-key limit is shared in PostgreSQL and no plan lifts it (agency: 120/min), so ` +
        `requests rotate over ${opts.keys} keys of one organisation\n`,
    );
    const r = await restScale(url, opts);
    const ratio = r.two.perSecond / r.one.perSecond;
    const rows = [
      ['REST GET /usage req/s', f0(r.two.perSecond), f0(r.one.perSecond), f2(ratio)],
      [
        'p99 ms (median of rounds)',
        r.two.p99.toFixed(1),
        r.one.p99.toFixed(1),
        f2(r.one.p99 / Math.max(0.1, r.two.p99)),
      ],
      [
        'server CPU µs per request (all serve processes)',
        f0(r.two.cpuUsPerOp),
        f0(r.one.cpuUsPerOp),
        f2(r.one.cpuUsPerOp / r.two.cpuUsPerOp),
      ],
      ['non-2xx answers and errors (429s included)', String(r.two.errors), String(r.one.errors), ''],
    ];
    process.stdout.write(table(['measure', '2 processes', '1 process', 'ratio (2/1; p99, CPU: 1/2)'], rows));
  } finally {
    await cluster.dropDatabase('rest_scale');
  }
}

async function foundationPart(
  cluster: PgCluster,
  rounds: number,
  roundMs: number,
  jobs: number,
  tmpDir: string,
  parts: { rest: boolean; mcp: boolean; runner: boolean },
): Promise<void> {
  process.stdout.write(
    `\n-- 3. The foundation bench in one process: SQLite against PostgreSQL --\n` +
      `SQLite: WAL, synchronous=FULL (the project's settings); PostgreSQL: this throwaway cluster (fsync off), ` +
      `AGENT_API_DATABASE_POOL_SIZE=10; REST and MCP: ${rounds} alternating rounds of ${roundMs} ms; runner: ` +
      `${jobs} one-step runs per drain, AGENT_API_RUNNER_CONCURRENCY=8, runUntilIdle in the bench process, a warm-up ` +
      `drain each, then A B B A\n`,
  );
  const rows: string[][] = [];
  const row = (measure: string, sqlite: number, postgres: number, digits = 0) =>
    rows.push([measure, sqlite.toFixed(digits), postgres.toFixed(digits), f2(postgres / sqlite)]);
  if (parts.rest || parts.mcp) {
    await cluster.createDatabase('foundation');
    try {
      const r = await foundationServers(
        {
          sqlite: { AGENT_API_DB: sqliteFile(tmpDir, 'foundation') },
          postgres: { AGENT_API_DB: sqliteFile(tmpDir, 'unused'), AGENT_API_DATABASE_URL: cluster.url('foundation') },
        },
        { rounds, roundMs, parts },
      );
      if (r.rest) {
        row('REST GET /usage req/s', r.rest.sqlite.perSecond, r.rest.postgres.perSecond);
        row('REST server CPU µs per request', r.rest.sqlite.cpuUsPerOp, r.rest.postgres.cpuUsPerOp);
        if (r.rest.sqlite.errors + r.rest.postgres.errors)
          row('REST non-2xx answers', r.rest.sqlite.errors, r.rest.postgres.errors);
      }
      if (r.mcp) {
        row('MCP tools/call get_usage calls/s', r.mcp.sqlite.perSecond, r.mcp.postgres.perSecond);
        row('MCP server CPU µs per call', r.mcp.sqlite.cpuUsPerOp, r.mcp.postgres.cpuUsPerOp);
        if (r.mcp.sqlite.errors + r.mcp.postgres.errors)
          row('MCP tool errors', r.mcp.sqlite.errors, r.mcp.postgres.errors);
      }
    } finally {
      await cluster.dropDatabase('foundation');
    }
  }
  if (parts.runner) {
    await cluster.createDatabase('foundation_runner');
    try {
      const r = await runnerStores(
        {
          sqlite: { AGENT_API_DB: sqliteFile(tmpDir, 'runner') },
          postgres: {
            AGENT_API_DB: sqliteFile(tmpDir, 'unused'),
            AGENT_API_DATABASE_URL: cluster.url('foundation_runner'),
          },
        },
        jobs,
        8,
      );
      row('Runner one-step jobs/s', r.sqlite, r.postgres);
    } finally {
      await cluster.dropDatabase('foundation_runner');
    }
  }
  process.stdout.write(table(['measure', 'SQLite', 'PostgreSQL', 'ratio (PG/SQLite)'], rows));
}

export async function run(args: string[]): Promise<void> {
  const quick = args.includes('--quick');
  const only = args.filter((a) => !a.startsWith('-'));
  const want = (name: string) => only.length === 0 || only.includes(name);
  const rounds = Number(process.env.BENCH_ROUNDS ?? (quick ? 3 : 5));
  const roundMs = Number(process.env.BENCH_ROUND_MS ?? 1_000);
  const poolSize = numberArg(args, 'pool', 10);
  const settings: RunnerSettings = {
    jobs: numberArg(args, 'jobs', quick ? 500 : 1_000),
    concurrency: numberArg(args, 'concurrency', 8),
    poolSize,
    rawConnections: numberArg(args, 'raw-connections', poolSize),
    stepMs: numberArg(args, 'step-ms', 100),
  };

  // Ctrl-C or a kill: every child goes with this process (the cluster helper stops the cluster on its own).
  const onSignal = (signal: NodeJS.Signals) => {
    killAllChildren();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('exit', killAllChildren);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const tmp = tempDir('agent-api-bench-scale-');
  let cluster: PgCluster | undefined;
  try {
    cluster = await startPostgresCluster();
    const cpu = cpus();
    process.stdout.write(
      `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
        `node ${process.version}, PostgreSQL ${cluster.version} (throwaway cluster: fsync=off, synchronous_commit=off, ` +
        `shared_buffers=64MB), on the same machine as every process measured${quick ? '; --quick' : ''}\n` +
        `load average before: ${load()} (1, 5, 15 min; anything else running shares these cores)\n`,
    );
    if (want('runner')) await runnerPart(cluster, settings);
    if (want('rest')) await restPart(cluster, rounds, roundMs, tmp.dir);
    if (want('foundation'))
      await foundationPart(cluster, rounds, roundMs, settings.jobs, tmp.dir, { rest: true, mcp: true, runner: true });
    process.stdout.write(`\nload average after: ${load()} (this bench's own processes included)\n`);
  } finally {
    killAllChildren();
    await cluster?.stop().catch((err: unknown) => process.stderr.write(`stopping PostgreSQL: ${String(err)}\n`));
    tmp.cleanup();
    process.off('exit', killAllChildren);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
