import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one. Value lists are spelled out here on purpose, so a
// later change to the code's enums cannot change what this migration created.

const STATUSES = sql`('identified', 'contacted', 'in_discussion', 'won', 'passed')`;
const OPPORTUNITY_TYPES = sql`('guest_post', 'link_insertion', 'resource_page', 'broken_link', 'unlinked_mention', 'digital_pr', 'partnership', 'other')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  let lists = db.schema
    .createTable('prospect_lists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('opportunity_type', 'text', (c) =>
      c.check(sql`opportunity_type is null or opportunity_type in ${OPPORTUNITY_TYPES}`),
    );
  // Per-status item counts, maintained in the transaction that changes an item: status_breakdown is O(1).
  for (const status of ['identified', 'contacted', 'in_discussion', 'won', 'passed']) {
    const column = `count_${status}`;
    lists = lists.addColumn(column, 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`${sql.ref(column)} >= 0`),
    );
  }
  await lists
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('prospect_lists_client_updated')
    .on('prospect_lists')
    .columns(['org_id', 'client_id', 'updated_at', 'id'])
    .execute();

  await db.schema
    .createTable('prospect_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('list_id', 'text', (c) => c.notNull().references('prospect_lists.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('target_name', 'text')
    .addColumn('opportunity_type', 'text', (c) =>
      c.check(sql`opportunity_type is null or opportunity_type in ${OPPORTUNITY_TYPES}`),
    )
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ${STATUSES}`))
    .addColumn('notes', 'text')
    .addColumn('contact_path', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('prospect_items_list_dedupe', ['list_id', 'dedupe_key'])
    .execute();
  await db.schema
    .createIndex('prospect_items_list_created')
    .on('prospect_items')
    .columns(['list_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('prospect_items_list_status_created')
    .on('prospect_items')
    .columns(['list_id', 'status', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('prospect_items').execute();
  await db.schema.dropTable('prospect_lists').execute();
}
