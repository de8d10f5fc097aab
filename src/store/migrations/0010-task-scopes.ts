import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Each MCP task remembers the scopes of the operation behind it: reading it (tasks/get, tasks/result, tasks/list)
 * needs the read scope, cancelling it the run scope. Existing tasks take them from the tool that created them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('mcp_tasks')
    .addColumn('read_scope', 'text', (c) => c.notNull().defaultTo('copywriter:read'))
    .execute();
  await db.schema
    .alterTable('mcp_tasks')
    .addColumn('run_scope', 'text', (c) => c.notNull().defaultTo('copywriter:run'))
    .execute();
  await sql`update mcp_tasks set read_scope = 'optimize:read', run_scope = 'optimize:run' where tool = 'start_optimization'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mcp_tasks').dropColumn('run_scope').execute();
  await db.schema.alterTable('mcp_tasks').dropColumn('read_scope').execute();
}
