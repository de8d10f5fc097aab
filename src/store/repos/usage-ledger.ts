import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { preparedQuery } from '../prepared.ts';
import type { UsageLedgerTable } from '../schema.ts';

export type LedgerRow = UsageLedgerTable;

export interface WindowSums {
  charged: number;
  reserved: number;
}

const HOUR_MS = 3_600_000;
const sums = [
  sql<number>`coalesce(sum(case when state = 'charged' then units else 0 end), 0)`.as('charged'),
  sql<number>`coalesce(sum(case when state = 'reserved' then units else 0 end), 0)`.as('reserved'),
];

/** Live units of the ledger accepted in (from, to]. */
const ledgerRange = preparedQuery((db: Db, orgId: string, from: number, to: number) =>
  db
    .selectFrom('usage_ledger')
    .select(sums)
    .where('org_id', '=', orgId)
    .where('created_at', '>', from)
    .where('created_at', '<=', to)
    .where('state', '!=', 'released'),
);

/** Hourly totals of the hours strictly between `fromHour` and `toHour`. */
const hourRange = preparedQuery((db: Db, orgId: string, fromHour: number, toHour: number) =>
  db
    .selectFrom('usage_hourly')
    .select([
      sql<number>`coalesce(sum(charged), 0)`.as('charged'),
      sql<number>`coalesce(sum(reserved), 0)`.as('reserved'),
    ])
    .where('org_id', '=', orgId)
    .where('hour', '>', fromHour)
    .where('hour', '<', toHour),
);

async function add(acc: WindowSums, rows: Promise<{ charged: number; reserved: number }[]>): Promise<WindowSums> {
  const r = (await rows)[0]!;
  return { charged: acc.charged + Number(r.charged), reserved: acc.reserved + Number(r.reserved) };
}

/**
 * Charged and reserved units accepted in (since, until]: exact. Whole hours come from the hourly totals (kept by
 * triggers in the same transactions as the ledger); the two partial hours at the edges come from the ledger.
 */
export async function windowSum(db: Db, orgId: string, since: number, until: number): Promise<WindowSums> {
  const first = Math.floor(since / HOUR_MS);
  const last = Math.floor(until / HOUR_MS);
  let acc: WindowSums = { charged: 0, reserved: 0 };
  if (last - first < 2) return add(acc, ledgerRange(db, orgId, since, until));
  acc = await add(acc, ledgerRange(db, orgId, since, (first + 1) * HOUR_MS - 1));
  acc = await add(acc, hourRange(db, orgId, first, last));
  return add(acc, ledgerRange(db, orgId, last * HOUR_MS - 1, until));
}

/** The loads of the two rolling windows ending at `until` (entries after `sinceShort` / `sinceLong`, exclusive). */
export async function windowSums(
  db: Db,
  orgId: string,
  sinceShort: number,
  sinceLong: number,
  until: number,
): Promise<{ short: WindowSums; long: WindowSums }> {
  return { short: await windowSum(db, orgId, sinceShort, until), long: await windowSum(db, orgId, sinceLong, until) };
}

/** Live (charged or reserved) entries after `since`, oldest first: used to find when a window recovers. */
export async function liveEntriesSince(
  db: Db,
  orgId: string,
  since: number,
): Promise<{ units: number; created_at: number }[]> {
  return db
    .selectFrom('usage_ledger')
    .select(['units', 'created_at'])
    .where('org_id', '=', orgId)
    .where('created_at', '>', since)
    .where('state', '!=', 'released')
    .orderBy('created_at')
    .execute();
}

export async function insertReservation(
  db: Db,
  input: { orgId: string; operation: string; resourceKind: string; resourceId: string; units: number },
  now: number,
): Promise<LedgerRow> {
  const row: LedgerRow = {
    id: randomUUID(),
    org_id: input.orgId,
    operation: input.operation,
    resource_kind: input.resourceKind,
    resource_id: input.resourceId,
    units: input.units,
    state: 'reserved',
    created_at: now,
    settled_at: null,
  };
  await db.insertInto('usage_ledger').values(row).execute();
  return row;
}

/** Moves a reservation from `reserved` to `to`; true only for the one call that made the move. */
export async function settleReservation(
  db: Db,
  resourceKind: string,
  resourceId: string,
  to: 'charged' | 'released',
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('usage_ledger')
    .set({ state: to, settled_at: now })
    .where('resource_kind', '=', resourceKind)
    .where('resource_id', '=', resourceId)
    .where('state', '=', 'reserved')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function getReservation(db: Db, resourceKind: string, resourceId: string): Promise<LedgerRow | undefined> {
  return db
    .selectFrom('usage_ledger')
    .selectAll()
    .where('resource_kind', '=', resourceKind)
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();
}

/**
 * Reservations still `reserved` older than `before`, with the state of their run (null when no run exists):
 * the reconciler's work list.
 */
export async function staleReservations(
  db: Db,
  before: number,
  limit: number,
): Promise<{ resource_kind: string; resource_id: string; run_state: string | null }[]> {
  return db
    .selectFrom('usage_ledger as l')
    .leftJoin('runs as r', (j) =>
      j.onRef('r.kind', '=', 'l.resource_kind').onRef('r.resource_id', '=', 'l.resource_id'),
    )
    .select(['l.resource_kind', 'l.resource_id', 'r.state as run_state'])
    .where('l.state', '=', 'reserved')
    .where('l.created_at', '<', before)
    .where((eb) => eb.or([eb('r.state', 'is', null), eb('r.state', 'in', ['done', 'failed'])]))
    .orderBy('l.created_at')
    .limit(limit)
    .execute();
}
