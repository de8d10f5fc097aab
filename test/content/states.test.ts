import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import {
  approve,
  createdJob,
  expectSameError,
  footprint,
  getArtifacts,
  getJob,
  idem,
  ISO_MS,
  ledgerOf,
  listJobs,
  NO_MATCH,
  PLUMBING,
  postJob,
  recordStatuses,
  run,
  settle,
  SOURDOUGH,
  startContentApp,
  tenant,
  tool,
  UUID,
  type Artifacts,
  type JobCreated,
  type JobDetail,
  type Tenant,
} from './helpers/harness.ts';

/**
 * The content job states of docs/api.md §3.1, row by row, over REST and MCP: creation (201, replay 200), the auto
 * pipeline queued → researching → generating_draft → completed, the stepped pipeline pausing at brief_ready with the
 * partial artifacts, approval (and 409 invalid_state everywhere else), and failure (failed, error, usage released).
 * The history of every status/stage write comes from a trigger the app's own writes fire, so no move is missed
 * however fast the runner goes.
 */

let t: TestApp;
let log: Awaited<ReturnType<typeof recordStatuses>>;
let a: Tenant;

beforeAll(async () => {
  t = await startContentApp();
  log = await recordStatuses(t);
  a = await tenant(t);
});
afterAll(async () => {
  await t?.close();
});

describe('create: POST /copywriter/jobs and create_content_job', () => {
  let first: JobCreated;
  const key = idem('create');

  it('201 with the job record of docs/api.md §3.1, queued; the detail carries the request with its defaults', async () => {
    const r = await postJob(
      t,
      a.key,
      { topic: SOURDOUGH, client_id: a.clientId, page_contract: 'article', word_count_target: 300 },
      key,
    );
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    first = r.body;
    expect(Object.keys(first).sort()).toEqual([
      'content_type',
      'created_at',
      'job_id',
      'research_platforms',
      'status',
      'usage_impact',
    ]);
    expect(first).toMatchObject({
      status: 'queued',
      content_type: 'article',
      research_platforms: ['organic'],
      usage_impact: { level: expect.any(String), included: true },
    });
    expect(first.job_id).toMatch(UUID);
    expect(first.created_at).toMatch(ISO_MS);

    const d = await getJob(t, a.key, first.job_id);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({
      job_id: first.job_id,
      kind: 'job',
      client_id: a.clientId,
      creation_source: 'agent_api',
      mode: 'auto',
      status: 'queued',
      progress: { stage: 'queued', percent: 0 },
      topic: SOURDOUGH,
      intent: 'educate',
      language: 'en',
      location: 'United States',
      tone: 'clear_practical',
      custom_instructions: null,
      word_count_target: 300,
      project_mode: 'new',
      page_contract: 'article',
      source_url: null,
      research_platforms: ['organic'],
      has_draft_body: false,
      billing: { charged: false, released: false },
      error: null,
      started_at: null,
      completed_at: null,
      created_at: first.created_at,
    });
    expect(await ledgerOf(t, first.job_id)).toEqual([{ state: 'reserved', units: 10 }]);
  });

  it('200 with the same job for the same Idempotency-Key (Idempotent-Replayed: true); one job, one reservation, one run', async () => {
    const r = await postJob(
      t,
      a.key,
      { topic: SOURDOUGH, client_id: a.clientId, page_contract: 'article', word_count_target: 300 },
      key,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBe('true');
    expect(r.body).toEqual(first);
    const f = await footprint(t, a.orgId);
    expect(f.jobRows.filter((j) => j.id === first.job_id)).toHaveLength(1);
    expect(f.ledger.filter((l) => l.resource_id === first.job_id)).toHaveLength(1);
    expect(f.runRows.filter((l) => l.resource_id === first.job_id)).toHaveLength(1);
  });

  it('over MCP: the same record, and the replay says so in _meta', async () => {
    const args = {
      topic: SOURDOUGH,
      client_id: a.clientId,
      page_contract: 'article',
      word_count_target: 300,
      idempotency_key: key,
    };
    const replay = await tool(t, a.key, 'create_content_job', args);
    expect(replay.isError).toBeFalsy();
    expect(structured(replay)).toEqual(first);
    expect(replay._meta).toMatchObject({ idempotent_replayed: true });
  });

  it('auto: queued → researching → generating_draft → completed without a pause; artifacts complete; usage charged', async () => {
    expect(await settle(t, first.job_id)).toBe('completed');
    expect(await log.statuses(first.job_id)).toEqual(['queued', 'researching', 'generating_draft', 'completed']);
    expect(await log.stages(first.job_id)).toEqual([
      'queued',
      'researching',
      'briefing',
      'drafting',
      'scoring',
      'completed',
    ]);
    // The brief is approved automatically: the job never rests at brief_ready.
    expect(await log.statuses(first.job_id)).not.toContain('brief_ready');
    const d = await getJob(t, a.key, first.job_id);
    expect(d.body).toMatchObject({
      status: 'completed',
      progress: { stage: 'completed', percent: 100 },
      billing: { charged: true, released: false },
      error: null,
    });
    expect(d.body.started_at).toMatch(ISO_MS);
    expect(d.body.completed_at).toMatch(ISO_MS);
    const art = await getArtifacts(t, a.key, first.job_id);
    expect(art.status).toBe(200);
    expect(art.body).toMatchObject({ job_id: first.job_id, status: 'completed', writer: 'extractive', review: null });
    for (const k of ['outline', 'seo_metadata', 'entities', 'faqs', 'draft', 'citations', 'sources'] as const)
      expect(art.body[k], k).not.toBeNull();
    expect(art.body.outline!.length).toBeGreaterThan(0);
    expect(art.body.draft!.content.length).toBeGreaterThan(0);
    // The scoring stage scored the draft against the researched pages; recommendations come most points first.
    const score = art.body.score as {
      rankabilityScore: number;
      categoryScores: Record<string, number>;
      recommendations: { points: number; recommendation: string }[];
      competitorCount: number;
    };
    expect(score.rankabilityScore).toBeGreaterThan(0);
    expect(score.rankabilityScore).toBeLessThanOrEqual(100);
    expect(Object.keys(score.categoryScores).length).toBeGreaterThan(0);
    expect(score.competitorCount).toBeGreaterThan(0);
    const points = score.recommendations.map((r) => r.points);
    expect(points).toEqual([...points].sort((x, y) => y - x));
    for (const r of score.recommendations) expect(r.recommendation.length).toBeGreaterThan(0);
    expect(await ledgerOf(t, first.job_id)).toEqual([{ state: 'charged', units: 10 }]);
    // The replay after completion answers the job as it is now.
    const again = await postJob(
      t,
      a.key,
      { topic: SOURDOUGH, client_id: a.clientId, page_contract: 'article', word_count_target: 300 },
      key,
    );
    expect(again).toMatchObject({ status: 200, body: { job_id: first.job_id, status: 'completed' } });
  });
});

describe('stepped: pause at brief_ready, approve, complete (REST and MCP)', () => {
  let job: JobCreated;

  it('approve while queued → 409 invalid_state (REST and MCP); nothing moves', async () => {
    job = await createdJob(t, a.key, {
      topic: PLUMBING,
      client_id: a.clientId,
      page_contract: 'commercial_service',
      mode: 'stepped',
      word_count_target: 300,
    });
    const rest = await approve(t, a.key, job.job_id);
    const mcp = await tool(t, a.key, 'approve_content_brief', { job_id: job.job_id });
    expectSameError(mcp, rest, 409, 'invalid_state');
    expect(rest.body.error.details).toMatchObject({ status: 'queued', mode: 'stepped' });
    expect((await getJob(t, a.key, job.job_id)).body.status).toBe('queued');
  });

  it('queued → researching → brief_ready: pauses with outline, SEO metadata, entities and FAQs readable and the draft null', async () => {
    expect(await settle(t, job.job_id)).toBe('brief_ready');
    expect(await log.statuses(job.job_id)).toEqual(['queued', 'researching', 'brief_ready']);
    expect(await log.stages(job.job_id)).toEqual(['queued', 'researching', 'briefing', 'brief_ready']);
    const d = await getJob(t, a.key, job.job_id);
    expect(d.body).toMatchObject({
      mode: 'stepped',
      status: 'brief_ready',
      progress: { stage: 'brief_ready', percent: 50 },
      billing: { charged: false, released: false },
      completed_at: null,
    });
    const art = await getArtifacts(t, a.key, job.job_id);
    expect(art.body.status).toBe('brief_ready');
    expect(art.body.outline!.length).toBeGreaterThan(0);
    expect(art.body.seo_metadata).toMatchObject({
      title: expect.any(String),
      metaDescription: expect.any(String),
      slug: expect.any(String),
      h1: expect.any(String),
      primaryKeyword: PLUMBING,
    });
    expect(art.body.entities!.length).toBeGreaterThan(0);
    expect(art.body.faqs!.length).toBeGreaterThan(0);
    expect(art.body.draft).toBeNull();
    expect(art.body.citations).toBeNull();
    // Over MCP the artifacts are the same body.
    expect(structured(await tool(t, a.key, 'get_content_artifacts', { job_id: job.job_id, include: ['all'] }))).toEqual(
      art.body,
    );
    // The run waits for a person: more draining does nothing, and its reservation is still held.
    const runRow = await t.db
      .selectFrom('runs')
      .selectAll()
      .where('resource_id', '=', job.job_id)
      .executeTakeFirstOrThrow();
    expect(runRow.state).toBe('waiting');
    await run(t);
    t.clock.advance(3_600_000);
    await run(t);
    expect((await getJob(t, a.key, job.job_id)).body.status).toBe('brief_ready');
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'reserved', units: 10 }]);
  });

  it('approve (MCP approve_content_brief) → 200 at generating_draft; then completed with a draft, charged once', async () => {
    const r = await tool(t, a.key, 'approve_content_brief', { job_id: job.job_id });
    expect(r.isError).toBeFalsy();
    expect(structured<JobDetail>(r)).toMatchObject({
      job_id: job.job_id,
      status: 'generating_draft',
      progress: { stage: 'drafting' },
      mode: 'stepped',
    });
    // Approving again while the draft is being written is not valid.
    const twice = await approve(t, a.key, job.job_id);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: 'invalid_state', details: { status: 'generating_draft' } });

    expect(await settle(t, job.job_id)).toBe('completed');
    expect(await log.statuses(job.job_id)).toEqual([
      'queued',
      'researching',
      'brief_ready',
      'generating_draft',
      'completed',
    ]);
    const art = await getArtifacts(t, a.key, job.job_id);
    expect(art.body.draft!.content).toContain('#');
    expect(art.body.draft!.word_count).toBeGreaterThan(0);
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'charged', units: 10 }]);
  });

  it('approve once completed → 409 invalid_state (REST and MCP)', async () => {
    const rest = await approve(t, a.key, job.job_id);
    const mcp = await tool(t, a.key, 'approve_content_brief', { job_id: job.job_id });
    expectSameError(mcp, rest, 409, 'invalid_state');
    expect(rest.body.error.details).toMatchObject({ status: 'completed', mode: 'stepped' });
  });

  it('REST approve of a stepped job at brief_ready answers 200 with the detail record', async () => {
    const j = await createdJob(t, a.key, {
      topic: PLUMBING,
      client_id: a.clientId,
      page_contract: 'article',
      mode: 'stepped',
      word_count_target: 300,
    });
    expect(await settle(t, j.job_id)).toBe('brief_ready');
    const r = await approve(t, a.key, j.job_id);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ job_id: j.job_id, status: 'generating_draft', mode: 'stepped' });
    expect(await settle(t, j.job_id)).toBe('completed');
  });
});

describe('approve of an auto job and of a failed job; failure of the pipeline', () => {
  it('approve of an auto job (queued, then completed) → 409 invalid_state', async () => {
    const rows = (await listJobs(t, a.key, { mode: 'auto', status: 'completed' })).body.data;
    expect(rows.length).toBeGreaterThan(0);
    const done = await approve(t, a.key, rows[0]!.job_id);
    expect(done.status).toBe(409);
    expect(done.body.error).toMatchObject({ code: 'invalid_state', details: { mode: 'auto', status: 'completed' } });
    const queued = await createdJob(t, a.key, { topic: NO_MATCH, client_id: a.clientId, page_contract: 'article' });
    const rest = await approve(t, a.key, queued.job_id);
    const mcp = await tool(t, a.key, 'approve_content_brief', { job_id: queued.job_id });
    expectSameError(mcp, rest, 409, 'invalid_state');
    expect(rest.body.error.details).toMatchObject({ mode: 'auto', status: 'queued' });
    await settle(t, queued.job_id);
  });

  it('research that finds nothing: queued → researching → failed, error set, usage released, no artifacts; approve → 409', async () => {
    const job = await createdJob(t, a.key, {
      topic: NO_MATCH,
      client_id: a.clientId,
      page_contract: 'article',
      mode: 'stepped',
    });
    expect(await settle(t, job.job_id)).toBe('failed');
    expect(await log.statuses(job.job_id)).toEqual(['queued', 'researching', 'failed']);
    const d = await getJob(t, a.key, job.job_id);
    expect(d.body).toMatchObject({
      status: 'failed',
      progress: { stage: 'failed', percent: 100 },
      billing: { charged: false, released: true },
    });
    expect(d.body.error).toMatch(/no page about "zzqx/);
    expect(d.body.completed_at).toMatch(ISO_MS);
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'released', units: 10 }]);
    const art = await getArtifacts(t, a.key, job.job_id);
    expect(art.body).toMatchObject({
      status: 'failed',
      outline: null,
      seo_metadata: null,
      entities: null,
      faqs: null,
      draft: null,
      citations: null,
    });
    const rest = await approve(t, a.key, job.job_id);
    const mcp = await tool(t, a.key, 'approve_content_brief', { job_id: job.job_id });
    expectSameError(mcp, rest, 409, 'invalid_state');
    // The run is terminal: nothing retries it.
    expect(
      await t.db
        .selectFrom('runs')
        .select(['state', 'attempts'])
        .where('resource_id', '=', job.job_id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ state: 'failed', attempts: 1 });
  });
});

describe('reads: detail, list and artifacts over REST and MCP', () => {
  it('get_content_job and get_content_artifacts answer the REST bodies', async () => {
    const rows = (await listJobs(t, a.key, { status: 'completed' })).body.data;
    const id = rows[0]!.job_id;
    expect(structured(await tool(t, a.key, 'get_content_job', { job_id: id }))).toEqual(
      (await getJob(t, a.key, id)).body,
    );
    expect(
      structured<Artifacts>(await tool(t, a.key, 'get_content_artifacts', { job_id: id, include: ['all'] })),
    ).toEqual((await getArtifacts(t, a.key, id)).body);
  });

  it('list: newest first, filters by status, mode and client, pagination; MCP list_content_jobs answers the same', async () => {
    const all = await listJobs(t, a.key);
    expect(all.status).toBe(200);
    const total = all.body.pagination.total;
    expect(total).toBeGreaterThanOrEqual(5);
    const created = all.body.data.map((j) => j.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    for (const row of all.body.data)
      expect(row).toMatchObject({
        creation_source: 'agent_api',
        client_id: a.clientId,
        progress: { stage: expect.any(String) },
      });
    const stepped = await listJobs(t, a.key, { mode: 'stepped' });
    expect(stepped.body.data.length).toBeGreaterThan(0);
    expect(stepped.body.data.every((j) => j.mode === 'stepped')).toBe(true);
    const failed = await listJobs(t, a.key, { status: 'failed' });
    expect(failed.body.data.every((j) => j.status === 'failed' && j.error)).toBe(true);
    const page = await listJobs(t, a.key, { limit: 2, offset: 1 });
    expect(page.body.pagination).toEqual({ limit: 2, offset: 1, total, has_more: total > 3 });
    expect(page.body.data.map((j) => j.job_id)).toEqual(all.body.data.slice(1, 3).map((j) => j.job_id));
    expect(structured(await tool(t, a.key, 'list_content_jobs', { mode: 'stepped' }))).toEqual(stepped.body);
    const other = await t.client(a.orgId, { name: 'Other client' });
    expect((await listJobs(t, a.key, { client_id: other.id })).body.pagination.total).toBe(0);
  });
});
