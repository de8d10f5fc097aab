import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structured } from '../helpers/mcp.ts';
import type { TestApp } from '../helpers/app.ts';
import {
  drain,
  getOptimization,
  idem,
  ISO_MS,
  listOptimizations,
  mcpClient,
  pause,
  resume,
  started,
  startWorld,
  type Optimization,
  type World,
} from './helpers/harness.ts';
import { KEYWORD } from './helpers/web.ts';

/**
 * Reading optimizations (docs/api.md §3.3): list pagination, order and filters; the status, summary and full views;
 * `wait_seconds` long-polling; progress notifications of start_optimization over MCP.
 */

const BASE_FIELDS = [
  'billing_status',
  'client_id',
  'completed_at',
  'created_at',
  'error',
  'keyword',
  'language',
  'optimization_id',
  'stage',
  'started_at',
  'status',
  'url',
];

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

describe('list and views', () => {
  let key: string;
  let clientId: string;
  let o1: Optimization;
  let o2: Optimization;
  let o3: Optimization;

  beforeAll(async () => {
    const tenant = await w.t.tenant('agency');
    key = tenant.key;
    clientId = tenant.clientId;
    o1 = await started(w.t, key, {
      url: w.web.url('/target/thorough'),
      keyword: 'Emergency Plumber',
      client_id: clientId,
    });
    w.t.clock.advance(1_000);
    o2 = await started(w.t, key, { url: w.web.url('/target/thin'), keyword: 'water heater repair' });
    w.t.clock.advance(1_000);
    o3 = await started(w.t, key, {
      url: w.web.url('/target/missing'),
      keyword: 'emergency plumber cost',
      client_id: clientId,
    });
    // Another organisation's run never shows up.
    const other = await w.t.tenant('agency');
    await started(w.t, other.key, { url: w.web.url('/target/thin'), keyword: KEYWORD });
    await drain(w.t);
  });

  it('lists newest first, 20 per page by default, as summaries without full results', async () => {
    const r = await listOptimizations(w.t, key);
    expect(r.status).toBe(200);
    expect(r.body.data.map((o) => o.optimization_id)).toEqual([
      o3.optimization_id,
      o2.optimization_id,
      o1.optimization_id,
    ]);
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, total: 3, has_more: false });
    for (const row of r.body.data) {
      expect(Object.keys(row).sort()).toEqual([...BASE_FIELDS, 'summary'].sort());
      expect('result' in row).toBe(false);
      expect('evidence' in row).toBe(false);
    }
    const [failed, thin, thorough] = r.body.data;
    expect(failed).toMatchObject({ status: 'failed', summary: null, billing_status: 'released' });
    expect(thin!.status).toBe('complete');
    expect(thorough!.summary).toMatchObject({ competitorCount: 3, billingFinalized: true });
    expect(thorough!.summary!.rankabilityScore).toBeGreaterThan(thin!.summary!.rankabilityScore);
  });

  it('pages with limit and offset, and reports has_more', async () => {
    const p1 = await listOptimizations(w.t, key, { limit: 2 });
    expect(p1.body.data.map((o) => o.optimization_id)).toEqual([o3.optimization_id, o2.optimization_id]);
    expect(p1.body.pagination).toEqual({ limit: 2, offset: 0, total: 3, has_more: true });
    const p2 = await listOptimizations(w.t, key, { limit: 2, offset: 2 });
    expect(p2.body.data.map((o) => o.optimization_id)).toEqual([o1.optimization_id]);
    expect(p2.body.pagination).toEqual({ limit: 2, offset: 2, total: 3, has_more: false });
    const beyond = await listOptimizations(w.t, key, { offset: 10 });
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination.total).toBe(3);
    expect((await listOptimizations(w.t, key, { limit: 100 })).body.data).toHaveLength(3);
  });

  it('filters by client_id, status, keyword (case-insensitive substring) and exact url', async () => {
    const ids = async (query: Record<string, string | number>) => {
      const r = await listOptimizations(w.t, key, query);
      expect(r.status).toBe(200);
      expect(r.body.pagination.total).toBe(r.body.data.length);
      return r.body.data.map((o) => o.optimization_id);
    };
    expect(await ids({ client_id: clientId })).toEqual([o3.optimization_id, o1.optimization_id]);
    expect(await ids({ status: 'complete' })).toEqual([o2.optimization_id, o1.optimization_id]);
    expect(await ids({ status: 'failed' })).toEqual([o3.optimization_id]);
    expect(await ids({ status: 'queued' })).toEqual([]);
    expect(await ids({ keyword: 'PLUMBER' })).toEqual([o3.optimization_id, o1.optimization_id]);
    expect(await ids({ keyword: '%' })).toEqual([]);
    expect(await ids({ url: w.web.url('/target/thin') })).toEqual([o2.optimization_id]);
    expect(await ids({ url: `${w.web.url('/target/thin')}/` })).toEqual([]);
    expect(await ids({ client_id: clientId, status: 'complete', keyword: 'emergency' })).toEqual([o1.optimization_id]);
  });

  it('answers the same list over MCP', async () => {
    const rest = await listOptimizations(w.t, key, { client_id: clientId, limit: 1 });
    const c = await mcpClient(w.t, key);
    try {
      const m = (await c.client.callTool({
        name: 'list_optimizations',
        arguments: { client_id: clientId, limit: 1 },
      })) as ToolResult;
      expect(m.isError).toBeFalsy();
      expect(structured(m)).toEqual(rest.body);
    } finally {
      await c.close();
    }
  });

  it('view=status has only the status fields; summary (the default) adds the summary; full adds result and evidence', async () => {
    const status = await getOptimization(w.t, key, o1.optimization_id, { view: 'status' });
    expect(Object.keys(status.body).sort()).toEqual(BASE_FIELDS);
    expect(status.body).toMatchObject({ status: 'complete', stage: null, error: null, billing_status: 'finalized' });
    expect(status.body.started_at).toMatch(ISO_MS);
    expect(status.body.completed_at).toMatch(ISO_MS);

    const summary = await getOptimization(w.t, key, o1.optimization_id, { view: 'summary' });
    const byDefault = await getOptimization(w.t, key, o1.optimization_id);
    expect(byDefault.body).toEqual(summary.body);
    expect(Object.keys(summary.body).sort()).toEqual([...BASE_FIELDS, 'summary'].sort());

    const full = await getOptimization(w.t, key, o1.optimization_id, { view: 'full' });
    expect(Object.keys(full.body).sort()).toEqual([...BASE_FIELDS, 'evidence', 'result', 'summary'].sort());
    const result = full.body.result!;
    expect(summary.body.summary).toEqual({
      rankabilityScore: result.rankabilityScore,
      sourceWordCount: result.sourceWordCount,
      competitorCount: result.competitorCount,
      duration: result.duration,
      billingFinalized: true,
      // The summary carries the top 5 of the result's recommendations, its confidence and warnings.
      recommendations: result.recommendations.slice(0, 5),
      confidence: result.confidence,
      warnings: result.warnings,
    });
    expect(full.body.summary).toEqual(summary.body.summary);
    const { summary: _s, result: _r, evidence: _e, ...fullBase } = full.body;
    expect(fullBase).toEqual(status.body);
  });

  it('a failed run stays readable with its saved error, no summary and no result', async () => {
    const full = await getOptimization(w.t, key, o3.optimization_id, { view: 'full' });
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ status: 'failed', summary: null, result: null, billing_status: 'released' });
    expect(full.body.error).toMatch(/404/);
    expect(full.body.completed_at).toMatch(ISO_MS);
  });

  it('a queued run has summary null and result null; it reads the same over MCP', async () => {
    await pause(w.t);
    let id: string;
    try {
      id = (await started(w.t, key, { url: w.web.url('/target/thorough'), keyword: KEYWORD })).optimization_id;
      const summary = await getOptimization(w.t, key, id, { view: 'summary' });
      expect(summary.body).toMatchObject({
        status: 'queued',
        stage: null,
        summary: null,
        billing_status: 'reserved',
        started_at: null,
      });
      const full = await getOptimization(w.t, key, id, { view: 'full' });
      expect(full.body).toMatchObject({ result: null, evidence: null, summary: null });
      const c = await mcpClient(w.t, key);
      try {
        const m = (await c.client.callTool({
          name: 'get_optimization',
          arguments: { optimization_id: id, view: 'full' },
        })) as ToolResult;
        expect(structured(m)).toEqual(full.body);
      } finally {
        await c.close();
      }
    } finally {
      await resume(w.t);
    }
    await drain(w.t);
    expect((await getOptimization(w.t, key, id, { view: 'status' })).body.status).toBe('complete');
  });
});

describe('wait_seconds long-poll', () => {
  /** Resolves once the app has run `n` more statements than `from` (the server is working on a request). */
  async function statementsReach(t: TestApp, target: number): Promise<void> {
    for (let i = 0; i < 10_000 && t.engine.dbStats.statements < target; i++) await new Promise((r) => setImmediate(r));
    expect(t.engine.dbStats.statements).toBeGreaterThanOrEqual(target);
  }

  it('returns as soon as the status changes while the runner runs (not at the deadline)', async () => {
    const { key } = await w.t.tenant('agency');
    await pause(w.t);
    let o: Optimization;
    let waited: Promise<{ status: number; body: Optimization }>;
    // The wait runs on the app's fake clock, which nothing moves here: only a change can answer it.
    const t0 = w.t.clock.now();
    try {
      o = await started(w.t, key, { url: w.web.url('/target/thorough'), keyword: KEYWORD });
      // What a read of this run costs without waiting: authentication plus the reads of the record.
      const s0 = w.t.engine.dbStats.statements;
      expect(
        (await getOptimization(w.t, key, o.optimization_id, { view: 'status', wait_seconds: 0 })).body.status,
      ).toBe('queued');
      const plainRead = w.t.engine.dbStats.statements - s0;
      const s1 = w.t.engine.dbStats.statements;
      waited = getOptimization(w.t, key, o.optimization_id, { view: 'status', wait_seconds: 20 });
      // The waiting read has looked at the record and is now waiting for a change.
      await statementsReach(w.t, s1 + plainRead);
      const early = await Promise.race([
        waited.then(() => 'answered'),
        new Promise((r) => setImmediate(() => r('pending'))),
      ]);
      expect(early).toBe('pending');
    } finally {
      await resume(w.t);
    }
    const r = await waited;
    expect(r.status).toBe(200);
    expect(r.body.status).not.toBe('queued');
    expect(r.body.started_at).not.toBeNull();
    expect(w.t.clock.now()).toBe(t0);
    await drain(w.t);
  });

  it('returns promptly for a run that is already terminal (REST and MCP)', async () => {
    const { key } = await w.t.tenant('agency');
    const o = await started(w.t, key, { url: w.web.url('/target/missing'), keyword: KEYWORD });
    await drain(w.t);
    // Nothing moves the app's fake clock now: a wait would never end, so answering at all is answering at once.
    const t0 = w.t.clock.now();
    const r = await getOptimization(w.t, key, o.optimization_id, { view: 'status', wait_seconds: 30 });
    expect(r.body.status).toBe('failed');
    const c = await mcpClient(w.t, key);
    try {
      const m = (await c.client.callTool({
        name: 'get_optimization',
        arguments: { optimization_id: o.optimization_id, view: 'status', wait_seconds: 30 },
      })) as ToolResult;
      expect(structured<Optimization>(m).status).toBe('failed');
    } finally {
      await c.close();
    }
    expect(w.t.clock.now()).toBe(t0);
  });
});

describe('start_optimization progress over MCP', () => {
  // The runner polls in the background here, as in a served process.
  let bg: World;
  beforeAll(async () => {
    bg = await startWorld({ background: true, competitors: ['/c/1'], env: { AGENT_API_POLL_MS: '50' } });
  });
  afterAll(async () => {
    await bg?.close();
  });

  it('reports each stage it sees to a caller with a progress token and answers the finished record', async () => {
    const { key } = await bg.t.tenant('agency');
    const c = await mcpClient(bg.t, key);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    try {
      const res = (await c.client.callTool(
        {
          name: 'start_optimization',
          arguments: { url: bg.web.url('/target/thorough'), keyword: KEYWORD, idempotency_key: idem('progress') },
        },
        undefined,
        { onprogress: (p) => void seen.push(p) },
      )) as ToolResult;
      expect(res.isError).toBeFalsy();
      const o = structured<Optimization>(res);
      expect(o.status).toBe('complete');
      expect(o.billing_status).toBe('finalized');
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen[seen.length - 1]).toMatchObject({ progress: 4, total: 4, message: 'complete' });
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThanOrEqual(seen[i - 1]!.progress);
      const stages = seen.map((p) => p.message);
      for (const s of stages)
        expect(['queued', 'searching', 'fetching', 'scoring', 'running', 'complete']).toContain(s);
      expect(new Set(stages).size).toBe(stages.length);
    } finally {
      await c.close();
    }
  });

  it('without a progress token answers the queued record at once', async () => {
    const { key } = await bg.t.tenant('agency');
    const c = await mcpClient(bg.t, key);
    try {
      const res = (await c.client.callTool({
        name: 'start_optimization',
        arguments: { url: bg.web.url('/target/missing'), keyword: KEYWORD, idempotency_key: idem('noprogress') },
      })) as ToolResult;
      expect(structured<Optimization>(res).status).toBe('queued');
    } finally {
      await c.close();
    }
  });
});
