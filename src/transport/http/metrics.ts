/**
 * `GET /metrics` in Prometheus's text format, served only when AGENT_API_METRICS_TOKEN is set and only to a caller
 * that presents it as its Bearer token (compared in constant time; a wrong one counts as a failed authentication of
 * the address). The engine records runs, provider calls and rejections as they happen (engine/platform/metrics.ts); the queue,
 * the database pool and the process are read here at scrape time. Each process reports its own figures except the
 * queue, which is the installation's (every process sharing the store reports the same counts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import type { Pool } from 'pg';
import { collectDefaultMetrics, Gauge } from 'prom-client';
import { ApiError } from '../../errors.ts';
import type { Engine } from '../../engine/engine.ts';
import { bearerToken } from '../../engine/accounts/auth.ts';
import { countUnfinishedRuns, type RunQueueState } from '../../store/repos/runs.ts';
import type { HttpEnv } from './guards.ts';
import type { FailedAuthLimiter } from './request-auth.ts';

const QUEUE_STATES: readonly RunQueueState[] = ['due', 'scheduled', 'running', 'waiting'];

const digest = (s: string) => createHash('sha256').update(s).digest();

export function mountMetrics(
  app: Hono<HttpEnv>,
  deps: { engine: Engine; token: string; pool: Pool | null; failedAuth: FailedAuthLimiter },
): void {
  const { engine, pool, failedAuth } = deps;
  const registry = engine.metrics.registry;
  collectDefaultMetrics({ register: registry, prefix: 'agent_api_' });

  const depth = new Gauge({
    name: 'agent_api_queue_depth',
    help: 'Runs due now and not yet claimed by any worker, by kind.',
    labelNames: ['kind'],
    registers: [registry],
  });
  const runs = new Gauge({
    name: 'agent_api_runs',
    help: 'Unfinished runs in the store by kind and state: due (claimable now), scheduled, running, waiting.',
    labelNames: ['kind', 'state'],
    registers: [registry],
  });
  /** One query fills both queue gauges before a scrape renders (prom-client collects metrics concurrently). */
  const readQueue = async () => {
    const counts = await countUnfinishedRuns(engine.db, engine.clock.now());
    runs.reset();
    depth.reset();
    for (const kind of engine.runner.kinds()) {
      depth.set({ kind }, 0);
      for (const state of QUEUE_STATES) runs.set({ kind, state }, 0);
    }
    for (const c of counts) {
      runs.set({ kind: c.kind, state: c.state }, c.count);
      if (c.state === 'due') depth.set({ kind: c.kind }, c.count);
    }
  };
  if (pool) {
    new Gauge({
      name: 'agent_api_db_pool_connections',
      help: "PostgreSQL connections of this process's pool: total open, idle, and requests waiting for one.",
      labelNames: ['state'],
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    new Gauge({
      name: 'agent_api_db_pool_max',
      help: "The size of this process's PostgreSQL pool (AGENT_API_DATABASE_POOL_SIZE).",
      registers: [registry],
      collect() {
        this.set(pool.options.max ?? 10);
      },
    });
  }

  const expected = digest(deps.token);
  app.get('/metrics', async (c) => {
    const token = bearerToken(c.req.header('authorization'));
    if (!token || !timingSafeEqual(digest(token), expected)) {
      const failure = new ApiError('unauthorized', 'The metrics token is missing or wrong.');
      throw await failedAuth.fail(failedAuth.clientOf(c), failure);
    }
    await readQueue();
    return c.body(await registry.metrics(), 200, { 'content-type': registry.contentType });
  });
}
