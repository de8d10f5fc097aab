import type { CompiledQuery, Compilable } from 'kysely';
import { dialectOf, type Db, type Dialect } from './db.ts';

/**
 * A hot-path query compiled once. Kysely builds and compiles a query on every call; for the few queries every request
 * runs (key lookup, usage windows) the SQL never changes, so it is compiled once with placeholder values whose
 * positions are remembered, and later calls only swap in the real parameters. Compiled once per dialect (a process
 * may hold a SQLite and a PostgreSQL store, as the tests do), for any Db of it, inside or outside a transaction.
 */
export function preparedQuery<P extends readonly unknown[], R>(build: (db: Db, ...params: P) => Compilable<R>) {
  type Compiled = { query: CompiledQuery<R>; slots: Array<{ param: number } | { value: unknown }> };
  const byDialect = new Map<Dialect, Compiled>();
  return async (db: Db, ...params: P): Promise<R[]> => {
    const dialect = dialectOf(db);
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      const sentinels = params.map((_, i) => `\u0000param${i}\u0000`) as unknown as P;
      const query = build(db, ...sentinels).compile();
      const slots = query.parameters.map((v) => {
        const i = sentinels.indexOf(v as never);
        return i >= 0 ? { param: i } : { value: v };
      });
      compiled = { query, slots };
      byDialect.set(dialect, compiled);
    }
    const { query, slots } = compiled;
    const parameters = slots.map((s) => ('param' in s ? params[s.param] : s.value));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
