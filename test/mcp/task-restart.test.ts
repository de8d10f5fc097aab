import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from '../helpers/app.ts';
import { connectHttpClient } from '../helpers/mcp.ts';
import { ESPRESSO, run, startContentApp, tenant, type Tenant } from '../content/helpers/harness.ts';

/**
 * A 2025-11-25 client runs an MCP task to completion across a server restart: the task is created, the server stops
 * before any work ran, a new server on the same database does the work, and the same client follows the task to
 * `completed` and reads its result. Tasks are rows pointing at durable runs, so nothing is lost.
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

describe('MCP tasks across a restart (2025-11-25)', () => {
  it('a task created before the restart runs after it and ends completed, with its result', async () => {
    const c = await connectHttpClient(t.url, a.key);
    const created = await c.client.request(
      {
        method: 'tools/call',
        params: {
          name: 'create_content_job',
          arguments: {
            topic: ESPRESSO,
            client_id: a.clientId,
            page_contract: 'article',
            idempotency_key: 'task-restart',
          },
          task: { ttl: 600_000 },
        },
      },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    expect(await c.client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'working' });
    await c.close();

    // The server stops with the job queued (its runner was held: nothing ran), and a new one starts on the database.
    const before = await t.db.selectFrom('runs').select(['state']).execute();
    expect(before.map((r) => r.state)).toContain('pending');
    await t.stop();
    t = await startContentApp({ dbPath: t.dbPath, clock: t.clock });
    await run(t);

    const again = await connectHttpClient(t.url, a.key);
    try {
      expect(await again.client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
      const result = await again.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({ status: 'completed', job_id: expect.any(String) });
      const listed = await again.client.experimental.tasks.listTasks();
      expect(listed.tasks.map((x) => x.taskId)).toContain(taskId);
    } finally {
      await again.close();
    }
  }, 60_000);
});
