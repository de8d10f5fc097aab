import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import {
  call,
  createdJob,
  getArtifacts,
  getAutopilot,
  getJob,
  ledgerOf,
  RAPIDFLOW_EMERGENCY,
  settle,
  startContentApp,
  startedAutopilot,
  tenant,
  tool,
  type Tenant,
} from './helpers/harness.ts';

/**
 * The relevance gate: research keeps only pages about the topic (Optimize's relevance test); with fewer than two, a
 * content job or Autopilot run fails with error_code insufficient_research, a message naming the topic and the fix,
 * and its usage released: the windows are back where they were and nothing is charged.
 */
let t: TestApp;
let a: Tenant;

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t);
});
afterAll(async () => {
  await t?.close();
});

/** The sample archive has nothing on running shoes; its search still answers pages about other things. */
const OFF_TOPIC = 'best running shoes for flat feet';

interface Window {
  used: number;
  reserved: number;
}
const usage = async () =>
  (await call<{ windows: { '24h': Window; '7d': Window } }>(t, 'GET', '/usage', { key: a.key })).body.windows;

function expectInsufficient(error: string | null, errorCode: string | null) {
  expect(errorCode).toBe('insufficient_research');
  expect(error).toContain(`"${OFF_TOPIC}"`);
  expect(error).toMatch(/at least 2 are needed/);
  expect(error).toMatch(/SERP_PROVIDER/);
  expect(error).toMatch(/archive add/);
  expect(error).toMatch(/archive import/);
}

describe('an off-topic request fails cleanly and costs nothing', () => {
  it('content job (REST): failed, insufficient_research, usage back to where it was, no brief or draft', async () => {
    const before = await usage();
    const job = await createdJob(t, a.key, { topic: OFF_TOPIC, client_id: a.clientId, page_contract: 'article' });
    expect((await usage())['24h'].reserved).toBeGreaterThan(before['24h'].reserved);
    expect(await settle(t, job.job_id)).toBe('failed');
    const d = (await getJob(t, a.key, job.job_id)).body;
    expect(d).toMatchObject({ status: 'failed', billing: { charged: false, released: true } });
    expectInsufficient(d.error, d.error_code);
    expect(await usage()).toEqual(before);
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'released', units: 10 }]);
    const art = (await getArtifacts(t, a.key, job.job_id)).body;
    expect([art.outline, art.draft]).toEqual([null, null]);
  });

  it('content job (MCP): the same failure on get_content_job', async () => {
    const created = structured<{ job_id: string }>(
      await tool(t, a.key, 'create_content_job', {
        topic: OFF_TOPIC,
        client_id: a.clientId,
        page_contract: 'article',
        mode: 'stepped',
      }),
    );
    expect(await settle(t, created.job_id)).toBe('failed');
    const d = structured<{ status: string; error: string; error_code: string }>(
      await tool(t, a.key, 'get_content_job', { job_id: created.job_id }),
    );
    expect(d.status).toBe('failed');
    expectInsufficient(d.error, d.error_code);
  });

  it('Autopilot: failed, insufficient_research on its status, released, nothing charged', async () => {
    const before = await usage();
    const run = await startedAutopilot(t, a.key, { topic: OFF_TOPIC, client_id: a.clientId, page_contract: 'article' });
    expect(await settle(t, run.job_id)).toBe('failed');
    const s = (await getAutopilot(t, a.key, run.job_id)).body;
    expect(s).toMatchObject({ status: 'failed', charged: false, released: true, review: null });
    expectInsufficient(s.error, (s as unknown as { error_code: string }).error_code);
    expect(await usage()).toEqual(before);
  });

  it("project_mode optimize: the client's own page is not research; off-topic competitors fail the same way", async () => {
    const job = await createdJob(t, a.key, {
      topic: OFF_TOPIC,
      client_id: a.clientId,
      page_contract: 'article',
      project_mode: 'optimize',
      source_url: RAPIDFLOW_EMERGENCY,
    });
    expect(await settle(t, job.job_id)).toBe('failed');
    const d = (await getJob(t, a.key, job.job_id)).body;
    expectInsufficient(d.error, d.error_code);
    expect(d.billing).toEqual({ charged: false, released: true });
  });

  it('an on-topic job keeps only pages about its topic: every source passes, off-topic pages are listed as skipped', async () => {
    const job = await createdJob(t, a.key, {
      topic: 'heat pump vs furnace',
      client_id: a.clientId,
      page_contract: 'article',
      mode: 'stepped',
    });
    expect(await settle(t, job.job_id)).toBe('brief_ready');
    const art = (await getArtifacts(t, a.key, job.job_id)).body;
    expect(art.sources!.length).toBeGreaterThanOrEqual(2);
    for (const s of art.sources!) expect(s.url).not.toMatch(/solar|espresso|sourdough/);
  });
});
