import { sql } from 'kysely';
import type { Db } from '../db.ts';

/** A key's limiter state after a request: whether it passed, and the state it left (PostgreSQL only). */
export interface RateSlot {
  allowed: boolean;
  tat: number;
  interval: number;
}

/**
 * Takes one request for `id` in one statement (GCRA, engine/platform/rate-limit.ts has the rule): the state is read and
 * written under the row's lock, so requests to any process of the installation are counted exactly once. The
 * current arrival time is the stored one, rescaled when the key's limit changed, or now when it has passed; the
 * request passes when one more interval from it stays within the period.
 */
export async function takeRateSlot(db: Db, id: string, interval: number, now: number, periodMs: number) {
  const current = sql<number>`(case when r.tat <= ${now} then ${now}::float8
    when r.interval_ms = ${interval} then r.tat
    else ${now}::float8 + least((r.tat - ${now}) / r.interval_ms * ${interval}, ${periodMs}) end)`;
  const passes = sql<boolean>`(${current} + ${interval} - ${now} <= ${periodMs})`;
  const r = await sql<RateSlot>`insert into rate_limits as r (id, tat, interval_ms, allowed)
    values (${id}, ${now + interval}, ${interval}, true)
    on conflict (id) do update set
      tat = case when ${passes} then ${current} + ${interval} else r.tat end,
      interval_ms = case when ${passes} then ${interval}::float8 else r.interval_ms end,
      allowed = ${passes}
    returning allowed, tat, interval_ms as interval`.execute(db);
  return r.rows[0]!;
}

/** A key's stored state, or undefined (no request in memory). */
export async function readRateSlot(db: Db, id: string): Promise<{ tat: number; interval: number } | undefined> {
  const r = await sql<{ tat: number; interval: number }>`select tat, interval_ms as interval from rate_limits
    where id = ${id}`.execute(db);
  return r.rows[0];
}

/** Forgets keys whose arrival time has passed (their state is the same as none). */
export async function pruneRateSlots(db: Db, now: number): Promise<void> {
  await sql`delete from rate_limits where tat <= ${now}`.execute(db);
}
