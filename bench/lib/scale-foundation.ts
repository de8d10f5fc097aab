/**
 * Part 3 of `npm run bench -- scale`: bench/foundation.ts's scenario, one process, on the SQLite store and on
 * PostgreSQL (AGENT_API_DATABASE_URL), side by side: the same seed on each store (scale-seed.ts), the same app server
 * script (bench/lib/app-server.ts) for REST GET /usage and MCP get_usage (foundation's `mcpSide`: 150 sessions, 16
 * lanes), the two servers alternating round by round; then the in-process runner of a one-step pipeline draining the
 * same queues on each store, as foundation's runner bench does.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { insertRun } from '../../src/store/repos/runs.ts';
import { immediate } from '../../src/store/db.ts';
import { mcpSide } from '../foundation.ts';
import { httpSide, interleave, type SideView } from './load.ts';
import { spawnChild, type BenchChild } from './scale-procs.ts';
import { seedUsage } from './scale-seed.ts';
import { noopPipeline } from './scale-worker.ts';

/** REST keys are the first 600, MCP sessions take the next 150: no key is loaded by both. */
const REST_KEYS = 600;
const MCP_SESSIONS = 150;

export interface StoreSides {
  rest: { sqlite: SideView; postgres: SideView };
  mcp: { sqlite: SideView; postgres: SideView };
}

/** REST and MCP on one app server per store, alternating. */
export async function foundationServers(
  stores: { sqlite: Record<string, string>; postgres: Record<string, string> },
  opts: { rounds: number; roundMs: number; parts: { rest: boolean; mcp: boolean } },
): Promise<Partial<StoreSides>> {
  const seeded = {
    sqlite: await seedUsage(stores.sqlite, REST_KEYS + MCP_SESSIONS),
    postgres: await seedUsage(stores.postgres, REST_KEYS + MCP_SESSIONS),
  };
  const servers: BenchChild[] = [];
  try {
    for (const [name, env] of Object.entries(stores))
      servers.push(
        await spawnChild(`${name} app server`, 'bench/lib/app-server.ts', { ...env, AGENT_API_LOG_LEVEL: 'info' }),
      );
    const [sqlite, postgres] = servers as [BenchChild, BenchChild];
    const port = (s: BenchChild) => Number(s.first.port);
    const out: Partial<StoreSides> = {};
    if (opts.parts.rest) {
      const side = (name: 'sqlite' | 'postgres', server: BenchChild) => {
        const keys = seeded[name].apiKeys.slice(0, REST_KEYS);
        let i = 0;
        return httpSide(name, server.pid, {
          url: `http://127.0.0.1:${port(server)}/api/agent/v1/usage`,
          headers: () => ({ authorization: `Bearer ${keys[i++ % keys.length]}` }),
        });
      };
      const [s, p] = await interleave([side('sqlite', sqlite), side('postgres', postgres)], opts.rounds, opts.roundMs);
      out.rest = { sqlite: s!, postgres: p! };
    }
    if (opts.parts.mcp) {
      const keys = (name: 'sqlite' | 'postgres') => seeded[name].apiKeys.slice(REST_KEYS, REST_KEYS + MCP_SESSIONS);
      const s = await mcpSide('sqlite', sqlite.pid, port(sqlite), keys('sqlite'), 16);
      const p = await mcpSide('postgres', postgres.pid, port(postgres), keys('postgres'), 16);
      try {
        const [sv, pv] = await interleave([s, p], opts.rounds, opts.roundMs);
        out.mcp = { sqlite: sv!, postgres: pv! };
      } finally {
        await s.close().catch(() => undefined);
        await p.close().catch(() => undefined);
      }
    }
    return out;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

/**
 * Foundation's runner bench, ours side, on each store: the durable runner in this process (runUntilIdle) draining
 * `jobs` one-step runs enqueued with `insertRun`. Both apps are built first; after a warm-up drain each, the stores
 * drain alternately A B B A and each one's jobs/s is over both of its drains.
 */
export async function runnerStores(
  stores: { sqlite: Record<string, string>; postgres: Record<string, string> },
  jobs: number,
  concurrency: number,
): Promise<{ sqlite: number; postgres: number }> {
  const apps: App[] = [];
  try {
    const open = async (env: Record<string, string>) => {
      const config = loadConfig({
        ...env,
        AGENT_API_LOG_LEVEL: 'silent',
        AGENT_API_RUNNER_CONCURRENCY: String(concurrency),
      });
      const app = await createApp({ config, logger: createLogger('silent'), pipelines: () => [noopPipeline()] });
      apps.push(app);
      const org = await createOrganisation(
        app.database.db,
        { name: 'bench', plan: 'agency', subscription: 'active' },
        Date.now(),
      );
      return async (n: number) => {
        await immediate(app.database.db, async (trx) => {
          for (let i = 0; i < n; i++)
            await insertRun(
              trx,
              { kind: 'bench', resourceId: randomUUID(), orgId: org.id, maxAttempts: 3 },
              Date.now(),
            );
        });
        const t = performance.now();
        await app.engine.runner.runUntilIdle();
        return performance.now() - t;
      };
    };
    const sqlite = await open(stores.sqlite);
    const postgres = await open(stores.postgres);
    const warm = Math.max(50, Math.floor(jobs / 10));
    await sqlite(warm);
    await postgres(warm);
    let sqliteMs = await sqlite(jobs);
    let postgresMs = await postgres(jobs);
    postgresMs += await postgres(jobs);
    sqliteMs += await sqlite(jobs);
    return { sqlite: (2 * jobs) / (sqliteMs / 1000), postgres: (2 * jobs) / (postgresMs / 1000) };
  } finally {
    for (const app of apps) await app.close();
  }
}

/** The SQLite file of a store folder. */
export const sqliteFile = (dir: string, name: string) => join(dir, `${name}.db`);
