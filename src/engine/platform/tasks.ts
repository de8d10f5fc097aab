import { randomUUID } from 'node:crypto';
import { iso } from '../../clock.ts';
import type { Db } from '../../store/db.ts';
import { getContentJob } from '../../store/repos/content.ts';
import { getOptimization } from '../../store/repos/optimizations.ts';
import { getTaskRow, insertTaskRow, listTaskRows, markTaskCancelled } from '../../store/repos/mcp-tasks.ts';
import { taskStatusOf, type TaskStatus } from '../content/states.ts';
import { optimizationTaskStatus } from '../optimize/states.ts';
import { readScopeOf, type Scope } from '../accounts/scopes.ts';
import { autopilotStarted, jobCreated } from '../content/views.ts';
import { optimizationView } from '../optimize/views.ts';

/** The kinds of durable work an MCP task can follow. */
export type TaskResourceKind = 'optimization' | 'content_job' | 'autopilot';
export type { TaskStatus };

export interface TaskState {
  status: TaskStatus;
  statusMessage: string;
  updatedAt: string;
  /** The record the tool answers for this resource now (its final answer once the task is terminal). */
  body: Record<string, unknown>;
}

/**
 * A task's state read from the resource it follows: queued and running work is `working`, a stepped job waiting for
 * approval is `input_required`, and finished work is `completed` or `failed` (the content state table maps each
 * status). Nothing is stored twice.
 */
export async function resourceTaskState(
  db: Db,
  orgId: string,
  kind: TaskResourceKind,
  id: string,
): Promise<TaskState | null> {
  if (kind === 'optimization') {
    const row = await getOptimization(db, orgId, id);
    if (!row) return null;
    const status = optimizationTaskStatus(row.status);
    return {
      status,
      statusMessage: row.error ?? row.stage ?? row.status,
      updatedAt: iso(row.updated_at),
      body: optimizationView(row, 'summary'),
    };
  }
  const row = await getContentJob(db, orgId, id, kind === 'content_job' ? 'job' : 'autopilot');
  if (!row) return null;
  const message =
    row.status === 'brief_ready'
      ? 'The brief is ready: approve it with approve_content_brief.'
      : (row.error ?? row.stage);
  return {
    status: taskStatusOf(row.status),
    statusMessage: message,
    updatedAt: iso(row.updated_at),
    body: kind === 'content_job' ? jobCreated(row) : autopilotStarted(row),
  };
}

export async function insertTask(
  db: Db,
  t: {
    orgId: string;
    tool: string;
    kind: TaskResourceKind;
    resourceId: string;
    ttlMs: number | null;
    pollMs: number;
    /** The scope of the operation behind the task: cancelling needs it, reading needs its read scope. */
    runScope: Scope;
  },
  now: number,
): Promise<string> {
  const taskId = `task_${randomUUID()}`;
  await insertTaskRow(db, {
    task_id: taskId,
    org_id: t.orgId,
    tool: t.tool,
    resource_kind: t.kind,
    resource_id: t.resourceId,
    cancelled_at: null,
    ttl_ms: t.ttlMs,
    poll_ms: t.pollMs,
    read_scope: readScopeOf(t.runScope),
    run_scope: t.runScope,
    created_at: now,
  });
  return taskId;
}

export { getTaskRow, listTaskRows, markTaskCancelled as cancelTask };
