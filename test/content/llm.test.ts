import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { languageName } from '../../src/engine/content/llm/index.ts';
import { TONE_GUIDANCE } from '../../src/engine/content/llm/guidance.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { tempDir } from '../helpers/temp.ts';
import {
  createdJob,
  getArtifacts,
  getAutopilot,
  getJob,
  ledgerOf,
  PLUMBING,
  run,
  settle,
  startContentApp,
  startedAutopilot,
  tenant,
  type Tenant,
} from './helpers/harness.ts';
import { llmEnv, startHoldingProxy, startModel, systemOf } from './helpers/llm.ts';

/**
 * Content jobs with the LLM writer (LLM_PROVIDER=openai) against the loopback OpenAI fake: the job completes with
 * the provider as its writer, the requests the provider received carry the client's voice, the tone wording, the
 * custom instructions verbatim and the language name, every call has an idempotency key stable across retries, and a
 * provider that keeps answering 500 fails the job after the maximum attempts with its usage released (G.78), and a
 * stalled worker's late answer is discarded by the fencing check while another worker finishes the run (G.77).
 */

let fake: FakeOpenAi;
let t: TestApp;
let a: Tenant;
const VOICE = 'Calm, neighbourly and exact, like a master plumber explaining things at the kitchen table.';
const INSTRUCTIONS = 'Open with our "Night Line" (512) 555-0199;\n  never say \'cheap\' — say <b>fair</b> & honest.';

beforeAll(async () => {
  fake = await startModel();
  t = await startContentApp({ env: { ...llmEnv(fake.baseUrl), AGENT_API_MAX_ATTEMPTS: '2' } });
  a = await tenant(t, 'agency', {
    name: 'Lone Oak Plumbing',
    domain: 'loneoak.example',
    brandVoice: VOICE,
    serviceArea: 'Austin, TX',
    excludedTopics: ['sewer'],
  });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('an auto job written by the model', () => {
  let id: string;
  beforeAll(async () => {
    fake.reset();
    const job = await createdJob(t, a.key, {
      topic: PLUMBING,
      client_id: a.clientId,
      page_contract: 'commercial_service',
      tone: 'expert_detailed',
      language: 'en-GB',
      custom_instructions: INSTRUCTIONS,
      word_count_target: 400,
    });
    id = job.job_id;
    expect(await settle(t, id)).toBe('completed');
  });

  it('completes with writer = the provider name; the draft is the model page within 15 percent of the target; usage charged', async () => {
    const art = (await getArtifacts(t, a.key, id)).body;
    expect(art.writer).toBe('openai-compatible');
    expect(art.draft).toMatchObject({ word_count_target: 400, within_tolerance: true });
    expect(art.draft!.content).toContain('The team checks each pipe and valve before work starts');
    expect(art.outline!.map((s) => s.heading)).toContain('How the work is done');
    expect(art.seo_metadata).toMatchObject({ primaryKeyword: PLUMBING });
    expect((await getJob(t, a.key, id)).body).toMatchObject({
      status: 'completed',
      billing: { charged: true, released: false },
    });
    expect(await ledgerOf(t, id)).toEqual([{ state: 'charged', units: 10 }]);
  });

  it("the provider received the client's brand voice, the tone wording, the custom instructions verbatim and the language name", () => {
    const bodies = fake.bodies();
    // One brief call (structured output) and one draft call, nothing else: the page was in its length window.
    expect(bodies).toHaveLength(2);
    expect(bodies[0]!.response_format?.type).toBe('json_schema');
    for (const b of bodies) {
      const system = systemOf(b);
      expect(b.model).toBe('gpt-4o-mini');
      expect(system).toContain(`Brand voice: ${VOICE}`);
      expect(system).toContain(TONE_GUIDANCE.expert_detailed.text);
      expect(system).toContain(`"""\n${INSTRUCTIONS.trim()}\n"""`);
      expect(system).toContain(`Write everything in ${languageName('en-GB')} (en-GB)`);
      expect(languageName('en-GB')).toBe('English (United Kingdom)');
      expect(system).toContain('Lone Oak Plumbing (loneoak.example)');
      expect(system).toContain('Never mention "sewer"');
    }
  });

  it('every provider call carries the Bearer key and an Idempotency-Key derived from the run and step', async () => {
    const run = await t.db.selectFrom('runs').select('id').where('resource_id', '=', id).executeTakeFirstOrThrow();
    expect(fake.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      `${run.id}:brief:brief`,
      `${run.id}:draft:draft`,
    ]);
    for (const r of fake.requests) expect(r.headers.authorization).toBe('Bearer sk-fake-openai');
    for (const r of fake.requests) expect(fake.runsFor(r.key!)).toBe(1);
  });
});

describe('Autopilot written by the model', () => {
  it('carries the Autopilot context verbatim; optimization passes are revise calls with their own keys; the review names the writer', async () => {
    fake.reset();
    const context = 'Spring campaign for landlords with older homes in East Austin.';
    const started = await startedAutopilot(t, a.key, {
      topic: PLUMBING,
      client_id: a.clientId,
      page_contract: 'commercial_service',
      context,
    });
    expect(await settle(t, started.job_id)).toBe('completed');
    const s = (await getAutopilot(t, a.key, started.job_id)).body;
    expect(s).toMatchObject({
      status: 'completed',
      stage: 'complete',
      charged: true,
      released: false,
      review: { writer: 'openai-compatible' },
    });
    for (const b of fake.bodies()) expect(systemOf(b)).toContain(`"""\n${context}\n"""`);
    const keys = fake.requests.map((r) => r.headers['idempotency-key']!);
    expect(new Set(keys).size).toBe(keys.length);
    const revisions = keys.filter((k) => /:optimize_\d:revise$/.test(k));
    expect(revisions.length).toBeLessThanOrEqual(s.optimize_pass_cap);
    expect(s.optimize_passes).toBeLessThanOrEqual(revisions.length);
  });
});

describe('a provider that answers 500 every time', () => {
  it('G.78 the job fails after the maximum attempts (2 here), every retry with the same idempotency key; usage released', async () => {
    fake.reset();
    // One retry layer: the adapter makes one request per attempt and the runner gives the step 2 attempts. A third
    // request would succeed, so a third attempt would show as a completed job.
    fake.failNext(500, 3, { retryAfter: '0' });
    const job = await createdJob(t, a.key, {
      topic: PLUMBING,
      client_id: a.clientId,
      page_contract: 'article',
      word_count_target: 300,
    });
    expect(await settle(t, job.job_id)).toBe('failed');
    const d = (await getJob(t, a.key, job.job_id)).body;
    expect(d).toMatchObject({
      status: 'failed',
      progress: { stage: 'failed' },
      billing: { charged: false, released: true },
    });
    expect(d.error).toMatch(/HTTP 500/);
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'released', units: 10 }]);
    const run = await t.db
      .selectFrom('runs')
      .select(['id', 'state', 'attempts'])
      .where('resource_id', '=', job.job_id)
      .executeTakeFirstOrThrow();
    expect(run).toMatchObject({ state: 'failed', attempts: 2 });
    expect(fake.requests).toHaveLength(2);
    expect(new Set(fake.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([`${run.id}:brief:brief`]));
    // Nothing retries a failed run.
    t.clock.advance(3_600_000);
    await settle(t, job.job_id);
    expect(fake.requests).toHaveLength(2);
    fake.reset();
  });
});

describe('G.77 a stalled worker on the same database', () => {
  it("G.77 another worker takes the run over once the lease has expired; the stale worker's late write-back is rejected by the fencing check; one billable run, one charge", async () => {
    const proxy = await startHoldingProxy(fake.origin);
    const tmp = tempDir();
    const clock = createFakeClock();
    const env = { ...llmEnv(proxy.baseUrl), AGENT_API_LEASE_MS: '60000' };
    const w1 = await startContentApp({ env, clock, dbPath: tmp.dbPath, runnerOwner: 'worker-1' });
    const w2 = await startContentApp({ env, clock, dbPath: tmp.dbPath, runnerOwner: 'worker-2' });
    try {
      fake.reset();
      const s = await tenant(w1);
      proxy.setPolicy((k) => (k?.endsWith(':brief:brief') ? 'before' : 'pass'));
      const job = await createdJob(w1, s.key, {
        topic: PLUMBING,
        client_id: s.clientId,
        page_contract: 'article',
        word_count_target: 300,
      });
      // Worker 1 researches, then stalls in its provider call (held before the provider sees it).
      await w1.engine.runner.start();
      await proxy.waitForHeld(1);
      const held = await w1.db
        .selectFrom('runs')
        .selectAll()
        .where('resource_id', '=', job.job_id)
        .executeTakeFirstOrThrow();
      expect(held).toMatchObject({ lease_owner: 'worker-1', step: 1 });
      proxy.setPolicy(() => 'pass');
      // The stall outlasts the lease: worker 2 claims the run and finishes it.
      clock.advance(61_000);
      await run(w2);
      expect((await getJob(w2, s.key, job.job_id)).body).toMatchObject({
        status: 'completed',
        billing: { charged: true, released: false },
      });
      const taken = await w2.db
        .selectFrom('runs')
        .selectAll()
        .where('resource_id', '=', job.job_id)
        .executeTakeFirstOrThrow();
      expect(taken).toMatchObject({ state: 'done', lease_owner: null });
      expect(taken.lease_token).toBeGreaterThan(held.lease_token);
      // Worker 1 wakes up: its answer (the provider replays it for the same key) is discarded.
      proxy.release();
      await w1.engine.runner.stop(10_000);
      expect(w1.logs!.text()).toContain('lease lost');
      const briefKey = `${held.id}:brief:brief`;
      expect(fake.callsFor(briefKey)).toBe(2);
      expect(fake.runsFor(briefKey)).toBe(1);
      expect(await ledgerOf(w2, job.job_id)).toEqual([{ state: 'charged', units: 10 }]);
      const after = await w2.db
        .selectFrom('runs')
        .selectAll()
        .where('resource_id', '=', job.job_id)
        .executeTakeFirstOrThrow();
      expect(after).toMatchObject({ state: 'done', lease_owner: null, lease_token: taken.lease_token });
      expect((await getArtifacts(w2, s.key, job.job_id)).body.draft).not.toBeNull();
    } finally {
      await w1.stop();
      await w2.stop();
      await proxy.close();
      tmp.cleanup();
    }
  });
});
