import { sql } from 'kysely';
import { dialectOf, type Db } from '../../src/store/db.ts';

/**
 * Test-only triggers on the store, on either dialect. SQLite's are `temp` triggers on the app's own connection;
 * PostgreSQL has no temporary triggers on ordinary tables, so there they are ordinary triggers (each test app has its
 * own database) that the returned function drops again.
 */

/**
 * Makes every UPDATE of `table` whose new row matches `when` (an SQL condition on `new`, spelled the same on both
 * dialects, such as `new.state = 'charged'`) fail with `message`, as a store refusing a write would. Answers a
 * function that removes the trigger.
 */
export async function refuseUpdates(
  db: Db,
  options: { name: string; table: string; when: string; message: string },
): Promise<() => Promise<void>> {
  const { name, table, when, message } = options;
  const fn = sql.id(name);
  if (dialectOf(db) === 'postgres') {
    await sql`create function ${fn}() returns trigger language plpgsql as ${sql.lit(
      `begin raise exception '%', ${quote(message)}; end`,
    )}`.execute(db);
    await sql`create trigger ${fn} before update on ${sql.table(table)} for each row when (${sql.raw(
      when,
    )}) execute function ${fn}()`.execute(db);
    return async () => {
      await sql`drop trigger if exists ${fn} on ${sql.table(table)}`.execute(db);
      await sql`drop function if exists ${fn}()`.execute(db);
    };
  }
  await sql`create temp trigger ${fn} before update on ${sql.table(table)} when ${sql.raw(when)} begin select raise(abort, ${sql.lit(message)}); end`.execute(
    db,
  );
  return async () => {
    await sql`drop trigger if exists temp.${fn}`.execute(db);
  };
}

/** A string literal in SQL. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
