import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/** MCP tasks: each task follows one durable resource (its run is the work), so a task survives a restart. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mcp_tasks')
    .addColumn('task_id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('resource_kind', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('cancelled_at', 'integer')
    .addColumn('ttl_ms', 'integer')
    .addColumn('poll_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_tasks_org_created').on('mcp_tasks').columns(['org_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mcp_tasks').execute();
}
