import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { iso } from '../../clock.ts';
import type { Engine } from '../../engine/engine.ts';
import { cancelTask, getTaskRow, listTaskRows, resourceTaskState, type TaskResourceKind } from '../../engine/tasks.ts';

const PAGE = 50;

/**
 * The SDK's TaskStore over the database: a task is a row pointing at a durable resource, and its status is read from
 * that resource, so tasks/get and tasks/result keep working after a restart. Tasks belong to the organisation of the
 * key the session acts as; another organisation's task id is "not found".
 */
export function createTaskStore(engine: Engine, orgId: () => Promise<string>): TaskStore {
  async function taskOf(taskId: string): Promise<{ task: Task; body: Record<string, unknown> } | null> {
    const org = await orgId();
    const row = await getTaskRow(engine.db, org, taskId);
    if (!row) return null;
    const state = await resourceTaskState(engine.db, org, row.resource_kind as TaskResourceKind, row.resource_id);
    if (!state) return null;
    const cancelled = row.cancelled_at !== null && state.status !== 'completed' && state.status !== 'failed';
    return {
      task: {
        taskId,
        status: cancelled ? 'cancelled' : state.status,
        ttl: row.ttl_ms,
        createdAt: iso(row.created_at),
        lastUpdatedAt: cancelled ? iso(row.cancelled_at!) : state.updatedAt,
        pollInterval: row.poll_ms,
        statusMessage: cancelled
          ? 'Cancelled by the client: the task stopped following the work.'
          : state.statusMessage,
      },
      body: state.body,
    };
  }
  return {
    async createTask() {
      throw new Error(
        'Tasks are created by the task-capable tools (create_content_job, create_content_autopilot, start_optimization).',
      );
    },
    async getTask(taskId) {
      return (await taskOf(taskId))?.task ?? null;
    },
    async storeTaskResult() {
      // Results are read from the resource the task follows; nothing to store.
    },
    async getTaskResult(taskId): Promise<Result> {
      const t = await taskOf(taskId);
      if (!t) throw new Error(`Task not found: ${taskId}`);
      return {
        structuredContent: t.body,
        content: [{ type: 'text', text: JSON.stringify(t.body) }],
        ...(t.task.status === 'failed' ? { isError: true } : {}),
      };
    },
    async updateTaskStatus(taskId, status) {
      if (status === 'cancelled') await cancelTask(engine.db, await orgId(), taskId, engine.clock.now());
    },
    async listTasks(cursor) {
      const org = await orgId();
      const after = cursor && /^\d+$/.test(cursor) ? Number(cursor) : null;
      const rows = await listTaskRows(engine.db, org, after, PAGE + 1);
      const tasks: Task[] = [];
      for (const r of rows.slice(0, PAGE)) {
        const t = await taskOf(r.task_id);
        if (t) tasks.push(t.task);
      }
      return { tasks, ...(rows.length > PAGE ? { nextCursor: String(rows[PAGE - 1]!.created_at) } : {}) };
    },
  };
}
