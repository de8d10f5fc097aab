/**
 * `npm run bench -- foundation`: the foundation's three ratios, each measured side by side in this run.
 *  1. REST GET /usage (auth + rate limiting + usage read) vs a bare node:http server doing the same indexed read.
 *  2. MCP tools/call get_usage over Streamable HTTP vs a minimal SDK server answering a constant.
 *  3. Runner jobs/s of a one-step pipeline vs a raw claim-and-complete loop on the same database settings.
 * Servers run in child processes so the load generator does not share their event loop.
 */
import { randomUUID } from 'node:crypto';
import Database from '../src/sqlite-driver.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createOrganisation } from '../src/store/repos/organisations.ts';
import { insertRun } from '../src/store/repos/runs.ts';
import { immediate } from '../src/store/db.ts';
import { definePipeline } from '../src/engine/runner/types.ts';
import { tempDir } from '../test/helpers/temp.ts';
import { spawnJsonServer, table } from './lib/harness.ts';
import { httpSide, interleave, type Side } from './lib/load.ts';
import { seedUsage } from './lib/scale-seed.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 1_000);

async function restBench(dbPath: string, orgId: string, apiKeys: string[]) {
  const env = { AGENT_API_DB: dbPath, AGENT_API_LOG_LEVEL: 'info', BENCH_ORG_ID: orgId };
  const bare = await spawnJsonServer('bench/lib/bare-usage-server.ts', env);
  const ours = await spawnJsonServer('bench/lib/app-server.ts', env);
  try {
    let i = 0;
    const [b, o] = await interleave(
      [
        httpSide('bare', bare.pid, { url: `http://127.0.0.1:${bare.port}/usage`, headers: () => ({}) }),
        httpSide('ours', ours.pid, {
          url: `http://127.0.0.1:${ours.port}/api/agent/v1/usage`,
          headers: () => ({ authorization: `Bearer ${apiKeys[i++ % apiKeys.length]}` }),
        }),
      ],
      ROUNDS,
      ROUND_MS,
    );
    return { bare: b!, ours: o! };
  } finally {
    await bare.stop();
    await ours.stop();
  }
}

export async function mcpSide(
  name: string,
  pid: number,
  port: number,
  keys: string[],
  lanes: number,
): Promise<Side & { close(): Promise<void> }> {
  const clients: Client[] = [];
  for (const key of keys) {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: key ? { Authorization: `Bearer ${key}` } : {} },
      }),
    );
    clients.push(client);
  }
  let next = 0;
  return {
    name,
    pid,
    async round(ms) {
      let calls = 0;
      let errors = 0;
      const latencies: number[] = [];
      const until = performance.now() + ms;
      await Promise.all(
        Array.from({ length: lanes }, async () => {
          while (performance.now() < until) {
            const t0 = performance.now();
            const r = await clients[next++ % clients.length]!.callTool({ name: 'get_usage', arguments: {} });
            latencies.push(performance.now() - t0);
            if (r.isError) errors++;
            calls++;
          }
        }),
      );
      latencies.sort((x, y) => x - y);
      return { ops: calls, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, errors };
    },
    close: async () => void (await Promise.all(clients.map((c) => c.close()))),
  };
}

async function mcpBench(dbPath: string, orgId: string, apiKeys: string[]) {
  const env = { AGENT_API_DB: dbPath, AGENT_API_LOG_LEVEL: 'info', BENCH_ORG_ID: orgId };
  const minimal = await spawnJsonServer('bench/lib/minimal-mcp-server.ts', env);
  const ours = await spawnJsonServer('bench/lib/app-server.ts', env);
  const sessions = 150;
  try {
    const base = await mcpSide(
      'minimal',
      minimal.pid,
      minimal.port,
      Array.from({ length: sessions }, () => ''),
      16,
    );
    const mine = await mcpSide('ours', ours.pid, ours.port, apiKeys.slice(0, sessions), 16);
    const [b, m] = await interleave([base, mine], ROUNDS, ROUND_MS);
    await base.close();
    await mine.close();
    return { base: b!, mine: m! };
  } finally {
    await minimal.stop();
    await ours.stop();
  }
}

async function runnerBench(jobs: number) {
  // Ours: the durable runner with a one-step pipeline whose step does nothing.
  const t1 = tempDir('agent-api-bench-');
  const config = loadConfig({
    AGENT_API_DB: t1.dbPath,
    AGENT_API_LOG_LEVEL: 'silent',
    AGENT_API_RUNNER_CONCURRENCY: '8',
  });
  const noop = definePipeline<'noop', void, { noop: null }>({
    kind: 'bench',
    steps: [{ name: 'noop', stage: 'noop', transient: false, run: async () => null }],
    enterStage: async () => undefined,
    onComplete: async () => undefined,
    onFail: async () => undefined,
  });
  const app = await createApp({ config, logger: createLogger('silent'), pipelines: () => [noop] });
  const org = await createOrganisation(
    app.database.db,
    { name: 'bench', plan: 'agency', subscription: 'active' },
    Date.now(),
  );
  await immediate(app.database.db, async (trx) => {
    for (let i = 0; i < jobs; i++)
      await insertRun(trx, { kind: 'bench', resourceId: randomUUID(), orgId: org.id, maxAttempts: 3 }, Date.now());
  });
  let t = performance.now();
  await app.engine.runner.runUntilIdle();
  const oursPerSecond = jobs / ((performance.now() - t) / 1000);
  await app.close();
  t1.cleanup();

  // Raw: one table, one claim statement and one completion statement per job, same pragmas.
  const t2 = tempDir('agent-api-bench-');
  const raw = new Database(t2.dbPath);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('busy_timeout = 5000');
  raw.exec(`create table jobs (id text primary key, state text not null, run_after integer not null, lease_owner text, lease_expires_at integer);
            create index jobs_due on jobs (state, run_after);`);
  const ins = raw.prepare(`insert into jobs values (?, 'pending', ?, null, null)`);
  raw.transaction(() => {
    for (let i = 0; i < jobs; i++) ins.run(randomUUID(), Date.now());
  })();
  const claim = raw.prepare(
    `update jobs set lease_owner = ?, lease_expires_at = ? where id = (select id from jobs where state = 'pending' and run_after <= ? and (lease_expires_at is null or lease_expires_at <= ?) order by run_after limit 1) returning id`,
  );
  const done = raw.prepare(`update jobs set state = 'done', lease_owner = null where id = ? and lease_owner = ?`);
  t = performance.now();
  for (;;) {
    const now = Date.now();
    const row = claim.get('raw', now + 30_000, now, now) as { id: string } | undefined;
    if (!row) break;
    done.run(row.id, 'raw');
  }
  const rawPerSecond = jobs / ((performance.now() - t) / 1000);
  raw.close();
  t2.cleanup();
  return { oursPerSecond, rawPerSecond };
}

export async function run(args: string[]): Promise<void> {
  const only = args.filter((a) => !a.startsWith('-'));
  const want = (name: string) => only.length === 0 || only.includes(name);
  const tmp = tempDir('agent-api-bench-');
  try {
    const { orgId, apiKeys } = await seedUsage({ AGENT_API_DB: tmp.dbPath }, 600);
    const rows: string[][] = [];
    if (want('rest')) {
      const r = await restBench(tmp.dbPath, orgId, apiKeys);
      rows.push([
        'REST GET /usage req/s',
        r.ours.perSecond.toFixed(0),
        r.bare.perSecond.toFixed(0),
        (r.ours.perSecond / r.bare.perSecond).toFixed(2),
        '>= 0.5',
      ]);
      rows.push([
        'REST GET /usage p99 ms (median of rounds)',
        r.ours.p99.toFixed(1),
        r.bare.p99.toFixed(1),
        (r.bare.p99 / Math.max(0.1, r.ours.p99)).toFixed(2),
        '(bare/ours)',
      ]);
      rows.push([
        'REST server CPU µs per request',
        r.ours.cpuUsPerOp.toFixed(0),
        r.bare.cpuUsPerOp.toFixed(0),
        (r.bare.cpuUsPerOp / r.ours.cpuUsPerOp).toFixed(2),
        '(bare/ours)',
      ]);
      if (r.ours.errors) rows.push(['REST non-2xx answers (ours)', String(r.ours.errors), '', '', '']);
    }
    if (want('mcp')) {
      const m = await mcpBench(tmp.dbPath, orgId, apiKeys);
      rows.push([
        'MCP tools/call get_usage calls/s',
        m.mine.perSecond.toFixed(0),
        m.base.perSecond.toFixed(0),
        (m.mine.perSecond / m.base.perSecond).toFixed(2),
        '>= 0.8',
      ]);
      rows.push([
        'MCP server CPU µs per call',
        m.mine.cpuUsPerOp.toFixed(0),
        m.base.cpuUsPerOp.toFixed(0),
        (m.base.cpuUsPerOp / m.mine.cpuUsPerOp).toFixed(2),
        '(minimal/ours)',
      ]);
      if (m.mine.errors) rows.push(['MCP tool errors (ours)', String(m.mine.errors), '', '', '']);
    }
    if (want('runner')) {
      const r = await runnerBench(3_000);
      rows.push([
        'Runner one-step jobs/s',
        r.oursPerSecond.toFixed(0),
        r.rawPerSecond.toFixed(0),
        (r.oursPerSecond / r.rawPerSecond).toFixed(2),
        '>= 0.25',
      ]);
    }
    process.stdout.write(table(['measure', 'ours', 'baseline', 'ratio', 'goal'], rows));
  } finally {
    tmp.cleanup();
  }
}
