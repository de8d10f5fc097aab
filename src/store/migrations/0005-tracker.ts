import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one. Value lists are spelled out here on purpose, so a
// later change to the code's enums cannot change what this migration created.

const PLATFORM = sql`('organic', 'chatgpt', 'perplexity', 'claude', 'google_ai_overview')`;
const RESULT_STATUS = sql`('complete', 'partial', 'failed')`;

/**
 * Tracker projects, scans, raw per-query results, one summary row per (scan, platform) written when that platform
 * finishes, and a pointer to each project's newest usable summary per platform. Reads (results, trends, summaries)
 * touch only summaries, pointers and one scan's raw rows, so they stay bounded however much history a project has.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tracker_projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('brand_names', 'text', (c) => c.notNull())
    .addColumn('query_kind', 'text', (c) => c.notNull().check(sql`query_kind in ('keywords', 'prompts')`))
    .addColumn('queries', 'text', (c) => c.notNull())
    .addColumn('query_count', 'integer', (c) => c.notNull().check(sql`query_count > 0`))
    .addColumn('platforms', 'text', (c) => c.notNull())
    .addColumn('location', 'text')
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tracker_projects_org_created')
    .on('tracker_projects')
    .columns(['org_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('tracker_projects_org_client_created')
    .on('tracker_projects')
    .columns(['org_id', 'client_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('tracker_scans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('tracker_projects.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('queued', 'running', 'complete', 'partial', 'failed')`),
    )
    .addColumn('platforms', 'text', (c) => c.notNull())
    .addColumn('missing_platforms', 'text', (c) => c.notNull())
    .addColumn('query_count', 'integer', (c) => c.notNull())
    .addColumn('units', 'integer', (c) => c.notNull())
    .addColumn('spi', 'real')
    .addColumn('platform_scores', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'integer')
    .addColumn('completed_at', 'integer')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tracker_scans_project_created')
    .on('tracker_scans')
    .columns(['project_id', 'created_at', 'id'])
    .execute();
  // Trends: the scans that finished in a window (completed_at is null until then, so in-flight scans are skipped).
  await db.schema
    .createIndex('tracker_scans_project_completed')
    .on('tracker_scans')
    .columns(['project_id', 'completed_at', 'id'])
    .execute();

  await db.schema
    .createTable('tracker_results')
    .addColumn('run_id', 'text', (c) => c.notNull().references('tracker_scans.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ${PLATFORM}`))
    .addColumn('query_index', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ${RESULT_STATUS}`))
    .addColumn('position', 'integer')
    .addColumn('brand_mentioned', 'integer', (c) => c.notNull())
    .addColumn('brand_cited', 'integer', (c) => c.notNull())
    .addColumn('cited_urls', 'text', (c) => c.notNull())
    .addColumn('measured_at', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('tracker_results_pk', ['run_id', 'platform', 'query_index'])
    .execute();

  await db.schema
    .createTable('tracker_platform_summaries')
    .addColumn('run_id', 'text', (c) => c.notNull().references('tracker_scans.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ${PLATFORM}`))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ${RESULT_STATUS}`))
    .addColumn('provider', 'text')
    .addColumn('queries_total', 'integer', (c) => c.notNull())
    .addColumn('measured', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('present', 'integer', (c) => c.notNull())
    .addColumn('mentioned', 'integer', (c) => c.notNull())
    .addColumn('cited', 'integer', (c) => c.notNull())
    .addColumn('ranked', 'integer', (c) => c.notNull())
    .addColumn('position_sum', 'integer', (c) => c.notNull())
    .addColumn('weight_sum', 'real', (c) => c.notNull())
    .addColumn('spi', 'real')
    .addColumn('top_cited', 'text', (c) => c.notNull())
    .addColumn('measured_at', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('tracker_platform_summaries_pk', ['run_id', 'platform'])
    .execute();

  // Advanced only by finalized scans with a usable platform result, and only forward in time.
  await db.schema
    .createTable('tracker_latest')
    .addColumn('project_id', 'text', (c) => c.notNull().references('tracker_projects.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ${PLATFORM}`))
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('measured_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('tracker_latest_pk', ['project_id', 'platform'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tracker_latest').execute();
  await db.schema.dropTable('tracker_platform_summaries').execute();
  await db.schema.dropTable('tracker_results').execute();
  await db.schema.dropTable('tracker_scans').execute();
  await db.schema.dropTable('tracker_projects').execute();
}
