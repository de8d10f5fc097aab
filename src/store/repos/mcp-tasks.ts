import type { Db } from '../db.ts';
import type { McpTasksTable } from '../schema.ts';

export type McpTaskRow = McpTasksTable;

export async function insertTaskRow(db: Db, row: McpTaskRow): Promise<void> {
  await db.insertInto('mcp_tasks').values(row).execute();
}

export async function getTaskRow(db: Db, orgId: string, taskId: string): Promise<McpTaskRow | undefined> {
  return db
    .selectFrom('mcp_tasks')
    .selectAll()
    .where('task_id', '=', taskId)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

/** The organisation's tasks readable with one of `readScopes`, newest first, created before `before` when given. */
export async function listTaskRows(
  db: Db,
  orgId: string,
  readScopes: readonly string[],
  before: number | null,
  limit: number,
): Promise<McpTaskRow[]> {
  if (readScopes.length === 0) return [];
  let q = db.selectFrom('mcp_tasks').selectAll().where('org_id', '=', orgId).where('read_scope', 'in', readScopes);
  if (before !== null) q = q.where('created_at', '<', before);
  return q.orderBy('created_at', 'desc').orderBy('task_id', 'desc').limit(limit).execute();
}

export async function markTaskCancelled(db: Db, orgId: string, taskId: string, now: number): Promise<void> {
  await db
    .updateTable('mcp_tasks')
    .set({ cancelled_at: now })
    .where('task_id', '=', taskId)
    .where('org_id', '=', orgId)
    .where('cancelled_at', 'is', null)
    .execute();
}
