import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/store/db.ts';
import type { DB } from '../../src/store/schema.ts';

/**
 * Dialect-neutral reads for assertions: the same query on SQLite and PostgreSQL, through Kysely (parameters become
 * `?` or `$1` by dialect). Tests read the store through these rather than SQLite's raw handle.
 */

type Table = keyof DB & string;
/** Equality conditions on a table's columns (`null` means IS NULL). */
export type Where<T extends Table> = { [C in keyof DB[T] & string]?: unknown };

/** How many rows of `table` match every condition in `where` (all rows when it is empty). */
export async function countRows<T extends Table>(db: Db, table: T, where: Where<T> = {}): Promise<number> {
  const conditions = Object.entries(where).map(([column, value]) =>
    value === null ? sql`${sql.ref(column)} is null` : sql`${sql.ref(column)} = ${value}`,
  );
  const filter = conditions.length ? sql` where ${sql.join(conditions, sql` and `)}` : sql``;
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}${filter}`.execute(
    db,
  );
  return Number(rows[0]!.n);
}

/** The rows a raw query answers: `sqlRows(db, sql\`select ... where id = ${id}\`)`. */
export async function sqlRows<R>(db: Db, query: RawBuilder<R>): Promise<R[]> {
  return (await query.execute(db)).rows;
}

/** The first row a raw query answers, or undefined. */
export async function sqlRow<R>(db: Db, query: RawBuilder<R>): Promise<R | undefined> {
  return (await sqlRows(db, query))[0];
}
