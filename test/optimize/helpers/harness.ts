import {
  startTestApp,
  type RequestOptions,
  type TestApp,
  type TestAppOptions,
  type TestResponse,
} from '../../helpers/app.ts';
import { expect } from 'vitest';
import { connectHttpClient, structured } from '../../helpers/mcp.ts';
import { startCanary, type Canary } from '../../helpers/canary.ts';
import { startLoopbackSerp, startLoopbackWeb, type LoopbackSerp, type LoopbackWeb } from './web.ts';
import type { ScoredCompetitor } from '../../../src/engine/optimize/pipeline-types.ts';

/**
 * One Optimize test world: a real app on a temp SQLite file with a fake clock, the loopback web it may fetch
 * (allow-listed), a SerpApi fake whose results point into that web, and a canary that must never be reached.
 */

export const OPT_ID = /^opt_[0-9A-HJKMNP-TV-Z]{26}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export interface Optimization {
  optimization_id: string;
  status: 'queued' | 'running' | 'complete' | 'failed';
  stage: string | null;
  client_id: string | null;
  url: string;
  keyword: string;
  language: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  billing_status: 'reserved' | 'finalized' | 'released' | 'reconciliation_pending';
  summary?: {
    rankabilityScore: number;
    sourceWordCount: number;
    competitorCount: number;
    duration: number;
    billingFinalized: boolean;
    recommendations: Recommendation[];
    confidence: 'normal' | 'low';
    warnings: string[];
  } | null;
  result?: OptimizationResult | null;
  evidence?: Record<string, unknown> | null;
}

export interface OptimizationResult {
  rankabilityScore: number;
  categoryScores: Record<string, number>;
  scoreDetails: {
    id: string;
    category: string;
    label: string;
    earned: number;
    possible: number;
    evidence: Record<string, unknown>;
    recommendation: string | null;
  }[];
  entities: {
    term: string;
    kind: string;
    importance: number;
    sourceCount: number;
    competitorRange: { p25: number; median: number; p75: number };
    sourceUses: number;
    status: string;
  }[];
  sourceWordCount: number;
  competitorCount: number;
  competitors: ScoredCompetitor[];
  recommendations: Recommendation[];
  excluded_competitors: { url: string; position: number | null; reason: string; detail: string }[];
  confidence: 'normal' | 'low';
  warnings: string[];
  duration: number;
  scoringVersion: string;
}

export interface Recommendation {
  id: string;
  check: string;
  category: string;
  kind: 'add_term' | 'use_more' | 'use_less' | 'fix';
  term: string | null;
  points: number;
  priority: 'high' | 'medium' | 'low';
  recommendation: string;
}

export interface World {
  t: TestApp;
  web: LoopbackWeb;
  serp: LoopbackSerp;
  canary: Canary;
  /** Stops the app (keeping its database) and starts a new one on the same file, clock and settings. */
  restart(): Promise<TestApp>;
  close(): Promise<void>;
}

/**
 * Starts the world; `env` adds to (and overrides) the Optimize settings; `competitors` are the search results for
 * any query not set (default three; one makes a run's scoring cheapest where the score does not matter).
 */
export async function startWorld(
  options: { env?: Record<string, string>; competitors?: readonly string[] } & Omit<TestAppOptions, 'env'> = {},
): Promise<World> {
  const canary = await startCanary();
  const web = await startLoopbackWeb({ privatePort: canary.port });
  const { env, competitors, ...rest } = options;
  const serp = await startLoopbackSerp(web, competitors);
  const settings: TestAppOptions = {
    ...rest,
    env: {
      ...serp.env,
      AGENT_API_TEST_FETCH_ALLOW: web.allow,
      // The runner moves only when a test drives it (runUntilIdle, notify); no background polling.
      AGENT_API_POLL_MS: '60000',
      AGENT_API_LOG_LEVEL: 'info',
      ...env,
    },
  };
  const first = await startTestApp(settings);
  // Load the language model up front: the load is seconds of blocking CPU that would otherwise land inside the
  // first run of the first test (and stall whatever request is in flight then).
  void first.engine.analysis.analyzer;
  const world: World = {
    t: first,
    web,
    serp,
    canary,
    async restart() {
      await world.t.stop();
      world.t = await startTestApp({ ...settings, clock: first.clock, dbPath: first.dbPath });
      void world.t.engine.analysis.analyzer;
      return world.t;
    },
    async close() {
      web.release();
      if (world.t === first) await first.close();
      else {
        await world.t.close();
        first.cleanup();
      }
      await serp.close();
      await web.close();
      await canary.close();
    },
  };
  return world;
}

/**
 * Runs the runner until nothing is due or leased: `runUntilIdle` plus a check of the queue, because the run a POST
 * announced may be claimed by the runner's own scheduled tick while `runUntilIdle` looks.
 */
export async function drain(t: TestApp): Promise<void> {
  for (let i = 0; i < 500; i++) {
    await t.engine.runner.runUntilIdle();
    const now = t.clock.now();
    const busy = await t.db
      .selectFrom('runs')
      .select('id')
      .where('state', '=', 'pending')
      .where((eb) =>
        eb.or([
          eb('run_after', '<=', now),
          eb.and([eb('lease_owner', 'is not', null), eb('lease_expires_at', '>', now)]),
        ]),
      )
      .executeTakeFirst();
    await new Promise((resolve) => setImmediate(resolve));
    if (!busy && t.engine.runner.inFlight() === 0) return;
  }
  throw new Error('the runner did not settle');
}

/** Drains, advancing the fake clock past each retry delay, until the optimization is terminal. */
export async function settle(t: TestApp, id: string, stepMs = 11 * 60_000): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await drain(t);
    const row = await t.db.selectFrom('optimizations').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    if (row.status === 'complete' || row.status === 'failed') return;
    t.clock.advance(stepMs);
  }
  throw new Error(`optimization ${id} did not finish`);
}

/** Stops the runner claiming work (the announced runs stay queued) until `resume`. */
export async function pause(t: TestApp): Promise<void> {
  await t.engine.runner.stop(0);
}

export async function resume(t: TestApp): Promise<void> {
  await t.engine.runner.start();
}

let keys = 0;
/** A fresh Idempotency-Key. */
export const idem = (label = 'k') => `${label}-${process.pid}-${++keys}`;

/**
 * `t.request` on a fresh connection: a run's scoring is synchronous CPU work, and a keep-alive socket reused right
 * after such a pause can be closed by the server under the request (ECONNRESET in the test, not in the API).
 */
export function call<T = Record<string, unknown>>(
  t: TestApp,
  method: string,
  path: string,
  opts: RequestOptions = {},
): Promise<TestResponse<T>> {
  return t.request<T>(method, path, { ...opts, headers: { connection: 'close', ...opts.headers } });
}

export function postOptimize(
  t: TestApp,
  key: string | null,
  body: unknown,
  idempotencyKey?: string | null,
  headers: Record<string, string> = {},
) {
  return call<Optimization & ErrorBody>(t, 'POST', '/optimize', {
    key,
    body,
    headers:
      idempotencyKey === undefined || idempotencyKey === null
        ? headers
        : { 'idempotency-key': idempotencyKey, ...headers },
  });
}

export function getOptimization(t: TestApp, key: string, id: string, query: Record<string, string | number> = {}) {
  return call<Optimization & ErrorBody>(t, 'GET', `/optimizations/${id}`, { key, query });
}

export function listOptimizations(t: TestApp, key: string, query: Record<string, string | number> = {}) {
  return call<
    {
      data: Optimization[];
      pagination: { limit: number; offset: number; total: number; has_more: boolean };
    } & ErrorBody
  >(t, 'GET', '/optimizations', { key, query });
}

/** An MCP client over Streamable HTTP, one connection per request (see `call`). */
export function mcpClient(t: TestApp, key: string | null) {
  return connectHttpClient(t.url, key, { connection: 'close' });
}

/** Starts an optimization and expects 202. */
export async function started(
  t: TestApp,
  key: string,
  body: Record<string, unknown>,
  idempotencyKey = idem(),
): Promise<Optimization> {
  const r = await postOptimize(t, key, body, idempotencyKey);
  if (r.status !== 202) throw new Error(`expected 202, got ${r.status}: ${r.text}`);
  return r.body;
}

/** Everything an organisation's Optimize requests could have left behind. */
export async function footprint(t: TestApp, orgId: string) {
  const optimizations = await t.db.selectFrom('optimizations').selectAll().where('org_id', '=', orgId).execute();
  const ledger = await t.db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId).execute();
  const runs = await t.db.selectFrom('runs').selectAll().where('org_id', '=', orgId).execute();
  const keys = await t.db.selectFrom('idempotency_keys').selectAll().where('org_id', '=', orgId).execute();
  return {
    optimizations: optimizations.length,
    reservations: ledger.length,
    runs: runs.length,
    keys: keys.length,
    ledger,
    rows: optimizations,
    runRows: runs,
  };
}

export type { TestResponse };

export type ToolResult = {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

/** One MCP tool call on a fresh session of `key`. */
export async function tool(t: TestApp, key: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const c = await mcpClient(t, key);
  try {
    return (await c.client.callTool({ name, arguments: args })) as ToolResult;
  } finally {
    await c.close();
  }
}

/** The REST error body and the MCP one are the same object. */
export function expectSameError(mcp: ToolResult, rest: { body: unknown }): void {
  expect(mcp.isError).toBe(true);
  expect(structured(mcp)).toEqual(rest.body);
}
