import { ProtocolError, ProtocolErrorCode, type Result, type Task } from '@modelcontextprotocol/server';
import { iso } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import type { Principal } from '../../engine/accounts/auth.ts';
import type { Engine } from '../../engine/engine.ts';
import type { Scope } from '../../engine/accounts/scopes.ts';
import {
  cancelTask,
  getTaskRow,
  listTaskRows,
  resourceTaskState,
  type TaskResourceKind,
} from '../../engine/platform/tasks.ts';

const PAGE = 50;

/** How long one tasks/result call may wait for its task to finish. */
export const TASK_RESULT_WAIT_MS = 30_000;
/** tasks/result calls one key may have waiting at once. */
export const TASK_RESULT_PENDING_PER_KEY = 4;

const RUN_KIND: Record<TaskResourceKind, string> = {
  optimization: 'optimization',
  content_job: 'content_job',
  autopilot: 'autopilot',
};

/** JSON-RPC's request timeout code, which tasks/result answers when its wait runs out. */
const REQUEST_TIMEOUT = -32001;

/** The API's forbidden error as a JSON-RPC error: its body travels in `data`, as tool errors carry it. */
function forbidden(scope: string): ProtocolError {
  const err = new ApiError('forbidden', `This API key lacks the scope ${scope}.`, { required_scope: scope });
  return new ProtocolError(ProtocolErrorCode.InvalidParams, err.message, err.toBody());
}

const notFound = (taskId: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`);

const isTerminal = (status: Task['status']) => status === 'completed' || status === 'failed' || status === 'cancelled';

/**
 * MCP tasks (protocol 2025-11-25: tasks/get, tasks/result, tasks/list, tasks/cancel) over the database: a task is a
 * row pointing at a durable resource, and its status is read from that resource, so every method keeps working after
 * a restart. Tasks belong to the organisation of the key the session acts as (another organisation's task id is "not
 * found"), and obey that key's scopes: reading a task needs the read scope of the operation behind it, cancelling it
 * the run scope; tasks/list shows only readable tasks.
 */
export function createTaskProtocol(
  engine: Engine,
  principalOf: () => Promise<Principal>,
  /** tasks/result calls waiting per key, shared by every session of the process. */
  pending: Map<string, number>,
) {
  async function rowFor(taskId: string, need: 'read_scope' | 'run_scope') {
    const principal = await principalOf();
    const row = await getTaskRow(engine.db, principal.orgId, taskId);
    if (!row) return null;
    if (!principal.scopes.has(row[need] as Scope)) throw forbidden(row[need]);
    return { row, principal };
  }

  async function taskOf(taskId: string) {
    const found = await rowFor(taskId, 'read_scope');
    if (!found) return null;
    const { row, principal } = found;
    const state = await resourceTaskState(
      engine.db,
      principal.orgId,
      row.resource_kind as TaskResourceKind,
      row.resource_id,
    );
    if (!state) return null;
    const cancelled = row.cancelled_at !== null && state.status !== 'completed' && state.status !== 'failed';
    const task: Task = {
      taskId,
      status: cancelled ? 'cancelled' : state.status,
      ttl: row.ttl_ms,
      createdAt: iso(row.created_at),
      lastUpdatedAt: cancelled ? iso(row.cancelled_at!) : state.updatedAt,
      pollInterval: row.poll_ms,
      statusMessage: cancelled ? 'Cancelled by the client: the task stopped following the work.' : state.statusMessage,
    };
    return { task, body: state.body, row };
  }

  const resultOf = (t: NonNullable<Awaited<ReturnType<typeof taskOf>>>): Result => ({
    structuredContent: t.body,
    content: [{ type: 'text', text: JSON.stringify(t.body) }],
    ...(t.task.status === 'failed' ? { isError: true } : {}),
  });

  /** tasks/get: the task, or -32602 "not found". */
  async function get(taskId: string): Promise<Task> {
    const t = await taskOf(taskId);
    if (!t) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return t.task;
  }

  /** tasks/cancel: the task stops following its work (the work itself goes on); a finished task cannot be. */
  async function cancel(taskId: string): Promise<Task> {
    const before = await taskOf(taskId);
    if (!before) throw notFound(taskId);
    if (isTerminal(before.task.status))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task in terminal status: ${before.task.status}`,
      );
    const found = await rowFor(taskId, 'run_scope');
    if (!found) throw notFound(taskId);
    await cancelTask(engine.db, found.principal.orgId, taskId, engine.clock.now());
    const after = await taskOf(taskId);
    if (!after) throw notFound(taskId);
    return after.task;
  }

  /** tasks/list: the readable tasks of the key's organisation, newest first, a page at a time. */
  async function list(cursor: string | undefined): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const principal = await principalOf();
    const before = cursor && /^\d+$/.test(cursor) ? Number(cursor) : null;
    const rows = await listTaskRows(engine.db, principal.orgId, [...principal.scopes], before, PAGE + 1);
    const tasks: Task[] = [];
    for (const r of rows.slice(0, PAGE)) {
      const t = await taskOf(r.task_id);
      if (t) tasks.push(t.task);
    }
    return { tasks, ...(rows.length > PAGE ? { nextCursor: String(rows[PAGE - 1]!.created_at) } : {}) };
  }

  /**
   * tasks/result, bounded: a finished task answers its result; a task waiting for input answers at once with an
   * error that says what it needs; otherwise the call waits for the task to end for at most 30 s, and stops at once
   * when the client's request is cancelled or its HTTP exchange closes. A key may have only a few calls waiting.
   */
  async function taskResult(taskId: string, signals: readonly AbortSignal[]): Promise<Result> {
    const principal = await principalOf();
    const held = pending.get(principal.keyId) ?? 0;
    if (held >= TASK_RESULT_PENDING_PER_KEY)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `This key already has ${held} tasks/result calls waiting; poll tasks/get instead.`,
      );
    pending.set(principal.keyId, held + 1);
    const signal = AbortSignal.any([...signals]);
    try {
      const deadline = engine.clock.now() + TASK_RESULT_WAIT_MS;
      for (;;) {
        const t = await taskOf(taskId);
        if (!t) throw notFound(taskId);
        const status = t.task.status;
        if (isTerminal(status)) return resultOf(t);
        if (status === 'input_required')
          throw new ProtocolError(
            ProtocolErrorCode.InvalidRequest,
            `The task is waiting for input: ${t.task.statusMessage ?? ''}`.trim(),
          );
        const remaining = deadline - engine.clock.now();
        if (remaining <= 0 || signal.aborted)
          throw new ProtocolError(
            REQUEST_TIMEOUT,
            'The task is still working; call tasks/result again or poll tasks/get.',
          );
        await engine.changes.waitFor(
          RUN_KIND[t.row.resource_kind as TaskResourceKind],
          t.row.resource_id,
          async () => (await taskOf(taskId))?.task.status !== status,
          remaining,
          signal,
        );
      }
    } finally {
      const left = (pending.get(principal.keyId) ?? 1) - 1;
      if (left > 0) pending.set(principal.keyId, left);
      else pending.delete(principal.keyId);
    }
  }

  return { get, cancel, list, result: taskResult };
}
