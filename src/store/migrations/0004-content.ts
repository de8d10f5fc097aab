import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('content_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('job', 'autopilot')`))
    .addColumn('creation_source', 'text', (c) => c.notNull().check(sql`creation_source in ('agent_api', 'web_app')`))
    .addColumn('mode', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('usage_units', 'integer', (c) => c.notNull())
    .addColumn('usage_level', 'text', (c) => c.notNull())
    .addColumn('optimize_passes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('optimize_pass_cap', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'integer')
    .addColumn('completed_at', 'integer')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('content_jobs_org_kind_created')
    .on('content_jobs')
    .columns(['org_id', 'kind', 'created_at'])
    .execute();
  await db.schema
    .createIndex('content_jobs_org_client_created')
    .on('content_jobs')
    .columns(['org_id', 'client_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('content_artifacts')
    .addColumn('job_id', 'text', (c) => c.primaryKey().references('content_jobs.id').onDelete('cascade'))
    .addColumn('writer', 'text')
    .addColumn('research', 'text')
    .addColumn('outline', 'text')
    .addColumn('seo_metadata', 'text')
    .addColumn('entities', 'text')
    .addColumn('faqs', 'text')
    .addColumn('draft', 'text')
    .addColumn('citations', 'text')
    .addColumn('review', 'text')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('content_artifacts').execute();
  await db.schema.dropTable('content_jobs').execute();
}
