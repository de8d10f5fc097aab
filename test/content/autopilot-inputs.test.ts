import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import {
  expectSameError,
  getJob,
  listJobs,
  PLUMBING,
  postAutopilot,
  settle,
  startContentApp,
  startedAutopilot,
  tenant,
  tool,
  createdJob,
  getAutopilot,
  type Tenant,
} from './helpers/harness.ts';

/**
 * Autopilot takes a content job's writing inputs (word_count_target, tone, custom_instructions) with the same rules,
 * and list_content_jobs lists Autopilot runs beside content jobs, each row with its kind, filterable by kind.
 */
let t: TestApp;
let a: Tenant;
let other: Tenant;
let autopilotId: string;
let jobId: string;

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t, 'agency', { defaultTone: 'expert_detailed' });
  other = await tenant(t);
});
afterAll(async () => {
  await t?.close();
});

const base = () => ({ topic: PLUMBING, client_id: a.clientId, page_contract: 'commercial_service' });

describe('Autopilot writing inputs', () => {
  it('word_count_target, tone and custom_instructions are taken and kept on the run', async () => {
    const started = await startedAutopilot(t, a.key, {
      ...base(),
      word_count_target: 600,
      tone: 'friendly_simple',
      custom_instructions: 'Mention that water shut-off valves should be located first.',
    });
    autopilotId = started.job_id;
    const d = (await getJob(t, a.key, autopilotId)).body;
    expect(d).toMatchObject({
      kind: 'autopilot',
      word_count_target: 600,
      tone: 'friendly_simple',
      custom_instructions: 'Mention that water shut-off valves should be located first.',
    });
    expect(await settle(t, autopilotId)).toBe('completed');
    const review = (await getAutopilot(t, a.key, autopilotId)).body.review!;
    expect(review.word_count_target).toBe(600);
  });

  it("without them the defaults apply: the client's tone and the contract's word count", async () => {
    const started = await startedAutopilot(t, a.key, base());
    const d = (await getJob(t, a.key, started.job_id)).body;
    expect(d).toMatchObject({ tone: 'expert_detailed', custom_instructions: null, word_count_target: 800 });
  });

  it.each([
    ['word_count_target', { word_count_target: 99 }],
    ['word_count_target', { word_count_target: 10_001 }],
    ['word_count_target', { word_count_target: 500.5 }],
    ['tone', { tone: 'shouty' }],
    ['custom_instructions', { custom_instructions: 'x'.repeat(4_001) }],
  ])('%s out of its rules: 400 invalid_input naming the field, on REST and MCP alike', async (field, extra) => {
    const body = { ...base(), ...extra };
    const rest = await postAutopilot(t, a.key, body);
    const mcp = await tool(t, a.key, 'create_content_autopilot', body);
    expectSameError(mcp, rest, 400, 'invalid_input');
    expect(JSON.stringify(rest.body.error)).toContain(field);
  });
});

describe('list_content_jobs lists both kinds', () => {
  beforeAll(async () => {
    t.clock.advance(1_000);
    jobId = (await createdJob(t, a.key, { topic: PLUMBING, client_id: a.clientId, page_contract: 'article' })).job_id;
  });

  it('every row carries its kind; without a filter, content jobs and Autopilot runs are listed newest first', async () => {
    const all = await listJobs(t, a.key);
    expect(all.status).toBe(200);
    const rows = all.body.data as unknown as { job_id: string; kind: string }[];
    expect(rows[0]).toMatchObject({ job_id: jobId, kind: 'content_job' });
    expect(rows.find((r) => r.job_id === autopilotId)).toMatchObject({ kind: 'autopilot' });
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['content_job', 'autopilot']));
    expect(all.body.pagination.total).toBe(rows.length);
  });

  it('the kind filter keeps one kind; MCP answers the same list', async () => {
    const runs = await listJobs(t, a.key, { kind: 'autopilot' });
    expect(runs.body.data.length).toBe(2);
    expect(runs.body.data.every((r) => (r as unknown as { kind: string }).kind === 'autopilot')).toBe(true);
    const jobs = await listJobs(t, a.key, { kind: 'content_job' });
    expect(jobs.body.data.map((r) => r.job_id)).toEqual([jobId]);
    expect(structured(await tool(t, a.key, 'list_content_jobs', { kind: 'autopilot' }))).toEqual(runs.body);
  });

  it('a mode filter leaves Autopilot runs out (they have no mode)', async () => {
    const auto = await listJobs(t, a.key, { mode: 'auto' });
    expect(auto.body.data.map((r) => r.job_id)).toEqual([jobId]);
  });

  it('an unknown kind is 400 invalid_input naming kind; another organisation sees none of these', async () => {
    const rest = await listJobs(t, a.key, { kind: 'job' });
    const mcp = await tool(t, a.key, 'list_content_jobs', { kind: 'job' });
    expectSameError(mcp, rest, 400, 'invalid_input');
    expect(JSON.stringify(rest.body.error)).toContain('kind');
    expect((await listJobs(t, other.key)).body.data).toEqual([]);
  });
});
