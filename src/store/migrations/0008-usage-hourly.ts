import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Hourly totals of the usage ledger per organisation, kept in the same transactions as the ledger. A rolling window
 * reads its whole hours here and only its two partial hours from the ledger, so the cost of a usage read no longer
 * grows with the organisation's activity. The ledger stays the source of truth (the totals can be rebuilt from it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_hourly')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('hour', 'integer', (c) => c.notNull())
    .addColumn('charged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reserved', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_hourly_pk', ['org_id', 'hour'])
    .execute();
  // Triggers keep the totals in the same transaction as every ledger write, whatever code path makes it.
  const add = (row: 'new' | 'old', sign: '+' | '-') => `
    insert into usage_hourly (org_id, hour, charged, reserved)
    values (${row}.org_id, ${row}.created_at / 3600000,
            ${sign}(case when ${row}.state = 'charged' then ${row}.units else 0 end),
            ${sign}(case when ${row}.state = 'reserved' then ${row}.units else 0 end))
    on conflict (org_id, hour) do update set charged = charged + excluded.charged, reserved = reserved + excluded.reserved;`;
  await sql
    .raw(`create trigger usage_hourly_on_insert after insert on usage_ledger begin ${add('new', '+')} end`)
    .execute(db);
  await sql
    .raw(
      `create trigger usage_hourly_on_update after update of state, units, created_at, org_id on usage_ledger begin ${add('old', '-')} ${add('new', '+')} end`,
    )
    .execute(db);
  await sql
    .raw(`create trigger usage_hourly_on_delete after delete on usage_ledger begin ${add('old', '-')} end`)
    .execute(db);
  await sql`insert into usage_hourly (org_id, hour, charged, reserved)
            select org_id, created_at / 3600000,
                   sum(case when state = 'charged' then units else 0 end),
                   sum(case when state = 'reserved' then units else 0 end)
              from usage_ledger where state != 'released' group by org_id, created_at / 3600000`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['usage_hourly_on_insert', 'usage_hourly_on_update', 'usage_hourly_on_delete'])
    await sql.raw(`drop trigger ${t}`).execute(db);
  await db.schema.dropTable('usage_hourly').execute();
}
