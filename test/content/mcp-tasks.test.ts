import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRESS_STAGES } from '../../src/engine/content/states.ts';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  McpError,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import {
  approve,
  createdJob,
  getJob,
  mcpClient,
  NO_MATCH,
  PLUMBING,
  run,
  settle,
  startContentApp,
  startedAutopilot,
  tenant,
  tool,
  getAutopilot,
  type JobCreated,
  type Tenant,
} from './helpers/harness.ts';

/**
 * MCP specifics of content work: the long-running tools advertise optional task support; a task-augmented call
 * answers a task that follows the durable job (working → input_required at brief_ready → completed), readable with
 * tasks/get, tasks/result and tasks/list, across a server restart, and only by the organisation that made it;
 * progress notifications by stage for a caller with a progress token; and wait_seconds long-polls on the status tools.
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

type Client = Awaited<ReturnType<typeof mcpClient>>['client'];

async function withClient<T>(key: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = await mcpClient(t, key);
  try {
    return await fn(c.client);
  } finally {
    await c.close();
  }
}

function callAsTask(c: Client, name: string, args: Record<string, unknown>) {
  return c.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
}

describe('tools/list: task support', () => {
  it('create_content_job, create_content_autopilot and start_optimization advertise execution.taskSupport optional; reads do not', async () => {
    const tools = await withClient(a.key, async (c) => (await c.listTools()).tools);
    const support = Object.fromEntries(
      tools.map((x) => [x.name, (x as { execution?: { taskSupport?: string } }).execution?.taskSupport ?? null]),
    );
    expect(support).toMatchObject({
      create_content_job: 'optional',
      create_content_autopilot: 'optional',
      start_optimization: 'optional',
    });
    for (const name of [
      'get_content_job',
      'get_content_artifacts',
      'approve_content_brief',
      'get_autopilot_status',
      'list_content_jobs',
    ])
      expect(support[name], name).toBeNull();
  });
});

describe('MCP tasks backed by durable content jobs', () => {
  let taskId: string;
  let jobId: string;
  let other: Tenant;

  it('a task-augmented create_content_job answers a task (working); the job exists as after a plain call', async () => {
    const created = await withClient(a.key, (c) =>
      callAsTask(c, 'create_content_job', {
        topic: PLUMBING,
        client_id: a.clientId,
        page_contract: 'article',
        mode: 'stepped',
        word_count_target: 300,
      }),
    );
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: expect.any(Number) });
    taskId = created.task.taskId;
    const row = await t.db.selectFrom('mcp_tasks').selectAll().where('task_id', '=', taskId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ org_id: a.orgId, tool: 'create_content_job', resource_kind: 'content_job' });
    jobId = row.resource_id;
    expect((await getJob(t, a.key, jobId)).body).toMatchObject({ status: 'queued', mode: 'stepped' });
    const task = await withClient(a.key, (c) => c.experimental.tasks.getTask(taskId));
    expect(task).toMatchObject({ taskId, status: 'working' });
  });

  it('tasks/get follows the job: input_required at brief_ready (the message says to approve), working after approval, then completed', async () => {
    expect(await settle(t, jobId)).toBe('brief_ready');
    const waiting = await withClient(a.key, (c) => c.experimental.tasks.getTask(taskId));
    expect(waiting.status).toBe('input_required');
    expect(waiting.statusMessage).toMatch(/approve_content_brief/);
    expect((await approve(t, a.key, jobId)).status).toBe(200);
    expect((await withClient(a.key, (c) => c.experimental.tasks.getTask(taskId))).status).toBe('working');
    expect(await settle(t, jobId)).toBe('completed');
    expect((await withClient(a.key, (c) => c.experimental.tasks.getTask(taskId))).status).toBe('completed');
  });

  it('tasks/result answers the job record', async () => {
    const result = await withClient(a.key, (c) => c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ job_id: jobId, status: 'completed', content_type: 'article' });
  });

  it('tasks/list lists the organisation’s tasks; another organisation sees neither the task nor its result', async () => {
    const pilot = await withClient(a.key, (c) =>
      callAsTask(c, 'create_content_autopilot', { topic: NO_MATCH, client_id: a.clientId, page_contract: 'article' }),
    );
    const listed = await withClient(a.key, (c) => c.experimental.tasks.listTasks());
    expect(listed.tasks.map((x) => x.taskId)).toEqual(expect.arrayContaining([taskId, pilot.task.taskId]));
    other = await tenant(t);
    const seen = await withClient(other.key, async (c) => {
      const list = await c.experimental.tasks.listTasks();
      const get = await c.experimental.tasks.getTask(taskId).then(
        () => null,
        (e: unknown) => e,
      );
      const result = await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema).then(
        () => null,
        (e: unknown) => e,
      );
      return { list, get, result };
    });
    expect(seen.list.tasks).toEqual([]);
    expect(seen.get).toBeInstanceOf(McpError);
    expect(seen.result).toBeInstanceOf(McpError);
  });

  it('an Autopilot task that cannot finish ends failed; its result is an error result carrying the record', async () => {
    const rows = await t.db
      .selectFrom('mcp_tasks')
      .selectAll()
      .where('tool', '=', 'create_content_autopilot')
      .where('org_id', '=', a.orgId)
      .execute();
    const [pilotTask] = rows;
    expect(await settle(t, pilotTask!.resource_id)).toBe('failed');
    const task = await withClient(a.key, (c) => c.experimental.tasks.getTask(pilotTask!.task_id));
    expect(task.status).toBe('failed');
    expect(task.statusMessage).toMatch(/no page about "zzqx/);
    const result = await withClient(a.key, (c) =>
      c.experimental.tasks.getTaskResult(pilotTask!.task_id, CallToolResultSchema),
    );
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      job_id: pilotTask!.resource_id,
      status: 'failed',
      stage: 'failed',
    });
  });

  it('tasks survive a restart of the server: tasks/get and tasks/result answer from the database', async () => {
    await t.stop();
    t = await startContentApp({ dbPath: t.dbPath, clock: t.clock });
    const after = await withClient(a.key, async (c) => ({
      task: await c.experimental.tasks.getTask(taskId),
      result: await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
    }));
    expect(after.task).toMatchObject({ taskId, status: 'completed' });
    expect(after.result.structuredContent).toMatchObject({ job_id: jobId, status: 'completed' });
    expect(
      await withClient(other.key, (c) =>
        c.experimental.tasks.getTask(taskId).then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    ).toBeInstanceOf(McpError);
  });

  it('a task-augmented call refused before any work exists is a JSON-RPC error carrying the API error body; no task', async () => {
    const before = await t.db.selectFrom('mcp_tasks').select('task_id').execute();
    const err = await withClient(a.key, (c) =>
      callAsTask(c, 'create_content_job', {
        topic: PLUMBING,
        client_id: a.clientId,
        page_contract: 'article',
        word_count_target: 99,
      }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).data).toMatchObject({
      error: { code: 'invalid_input', details: { fields: [{ path: 'word_count_target' }] } },
    });
    expect(await t.db.selectFrom('mcp_tasks').select('task_id').execute()).toHaveLength(before.length);
  });
});

describe('progress notifications and long-polls', () => {
  // The content state table's progress order: a new stage joins it there and here at once.
  const STAGES: readonly string[] = PROGRESS_STAGES;

  it('a create call with a progress token reports each stage it sees, in order, until the job completes (background runner)', async () => {
    const updates: Progress[] = [];
    await t.engine.runner.start();
    try {
      const result = await withClient(a.key, (c) =>
        c.callTool(
          {
            name: 'create_content_job',
            arguments: {
              topic: PLUMBING,
              client_id: a.clientId,
              draft_body: '# Mine\n\nWe fix pipes. We answer at night.\n',
            },
          },
          undefined,
          { onprogress: (p) => updates.push(p), timeout: 30_000 },
        ),
      );
      expect(structured<JobCreated>(result)).toMatchObject({ status: 'completed' });
    } finally {
      await t.engine.runner.stop(1_000);
    }
    expect(updates.length).toBeGreaterThanOrEqual(2);
    const stages = updates.map((u) => u.message!);
    expect(stages[0]).toBe('queued');
    expect(stages.at(-1)).toBe('completed');
    // A subsequence of the stage order, progress rising, out of the same total.
    const positions = stages.map((s) => STAGES.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
    for (const u of updates) expect(u.total).toBe(STAGES.length - 1);
    expect(updates.map((u) => u.progress)).toEqual(positions);
  });

  it('get_content_job with wait_seconds answers as soon as the status changes (REST), not before', async () => {
    const job = await createdJob(t, a.key, { topic: NO_MATCH, client_id: a.clientId, page_contract: 'article' });
    const waiting = new Promise<void>((resolve) => {
      const real = t.engine.changes.waitFor;
      t.engine.changes.waitFor = (kind, id, ...rest) => {
        if (id === job.job_id) {
          t.engine.changes.waitFor = real;
          resolve();
        }
        return real(kind, id, ...rest);
      };
    });
    // The wait runs on the app's clock: answered before its deadline there, whatever the machine's speed.
    const deadline = t.clock.now() + 30_000;
    let answeredAt = Infinity;
    const poll = getJob(t, a.key, job.job_id, { wait_seconds: 30 }).finally(() => (answeredAt = t.clock.now()));
    await waiting;
    await run(t);
    const answered = await poll;
    expect(answered.status).toBe(200);
    expect(answered.body.status).not.toBe('queued');
    expect(answeredAt).toBeLessThan(deadline);
  });

  it('wait_seconds times out with the unchanged job; a resting job answers at once; 31 is refused (REST and MCP)', async () => {
    const job = await createdJob(t, a.key, { topic: NO_MATCH, client_id: a.clientId, page_contract: 'article' });
    // The wait runs on the app's clock: it does not answer until that clock has moved past wait_seconds.
    const waiting = new Promise<void>((resolve) => {
      const real = t.engine.changes.waitFor;
      t.engine.changes.waitFor = (...args) => {
        t.engine.changes.waitFor = real;
        resolve();
        return real(...args);
      };
    });
    let answered = false;
    const call = tool(t, a.key, 'get_content_job', { job_id: job.job_id, wait_seconds: 1 }).finally(
      () => (answered = true),
    );
    await waiting;
    t.clock.advance(999);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    t.clock.advance(1);
    const same = await call;
    expect(structured<JobCreated>(same)).toMatchObject({ status: 'queued' });
    await settle(t, job.job_id);
    // Nothing moves the app's clock now: a wait would never end, so answering at all is answering at once.
    const quick = t.clock.now();
    expect((await getJob(t, a.key, job.job_id, { wait_seconds: 30 })).body.status).toBe('failed');
    expect(t.clock.now()).toBe(quick);
    const bad = await getJob(t, a.key, job.job_id, { wait_seconds: 31 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input', details: { fields: [{ path: 'wait_seconds' }] } });
    const mcpBad = await tool(t, a.key, 'get_autopilot_status', { job_id: job.job_id, wait_seconds: 31 });
    expect(mcpBad.isError).toBe(true);
  });

  it('get_autopilot_status with wait_seconds over MCP answers when the stage moves', async () => {
    const started = await startedAutopilot(t, a.key, {
      topic: NO_MATCH,
      client_id: a.clientId,
      page_contract: 'article',
    });
    const waiting = new Promise<void>((resolve) => {
      const real = t.engine.changes.waitFor;
      t.engine.changes.waitFor = (kind, id, ...rest) => {
        if (id === started.job_id) {
          t.engine.changes.waitFor = real;
          resolve();
        }
        return real(kind, id, ...rest);
      };
    });
    const poll = tool(t, a.key, 'get_autopilot_status', { job_id: started.job_id, wait_seconds: 30 });
    await waiting;
    await run(t);
    const answered = structured<{ stage: string }>(await poll);
    expect(answered.stage).not.toBe('queued');
    expect((await getAutopilot(t, a.key, started.job_id)).body.stage).toBe('failed');
  });
});
