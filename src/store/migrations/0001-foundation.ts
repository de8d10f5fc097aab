import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organisations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('starter', 'pro', 'agency')`))
    .addColumn('subscription_status', 'text', (c) =>
      c.notNull().check(sql`subscription_status in ('active', 'inactive')`),
    )
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domain', 'text')
    .addColumn('service_area', 'text')
    .addColumn('service_lat', 'real')
    .addColumn('service_lng', 'real')
    .addColumn('default_tone', 'text')
    .addColumn('brand_voice', 'text')
    .addColumn('knowledge_base', 'text')
    .addColumn('excluded_topics', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('clients_org_created').on('clients').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer')
    .addColumn('revoked_at', 'integer')
    .execute();
  await db.schema.createIndex('api_keys_org').on('api_keys').column('org_id').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['org_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('usage_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('resource_kind', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('units', 'integer', (c) => c.notNull().check(sql`units > 0`))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('reserved', 'charged', 'released')`))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('settled_at', 'integer')
    .addUniqueConstraint('usage_ledger_resource', ['resource_kind', 'resource_id'])
    .execute();
  await db.schema.createIndex('usage_ledger_org_time').on('usage_ledger').columns(['org_id', 'created_at']).execute();
  await db.schema.createIndex('usage_ledger_state_time').on('usage_ledger').columns(['state', 'created_at']).execute();

  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'waiting', 'done', 'failed')`))
    .addColumn('step', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_after', 'integer', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'integer')
    .addColumn('lease_token', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checkpoint', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('runs_kind_resource', ['kind', 'resource_id'])
    .execute();
  await db.schema.createIndex('runs_due').on('runs').columns(['state', 'run_after']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['runs', 'usage_ledger', 'idempotency_keys', 'api_keys', 'clients', 'organisations']) {
    await db.schema.dropTable(t).execute();
  }
}
