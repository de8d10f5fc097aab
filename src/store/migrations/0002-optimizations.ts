import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('optimizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('set null'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('keyword', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'complete', 'failed')`))
    .addColumn('stage', 'text')
    .addColumn('error', 'text')
    .addColumn('score', 'real')
    .addColumn('source_word_count', 'integer')
    .addColumn('competitor_count', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('result', 'text')
    .addColumn('evidence', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'integer')
    .addColumn('completed_at', 'integer')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('optimizations_org_created')
    .on('optimizations')
    .columns(['org_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('optimizations_org_client_created')
    .on('optimizations')
    .columns(['org_id', 'client_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('optimizations_org_status_created')
    .on('optimizations')
    .columns(['org_id', 'status', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('optimizations').execute();
}
