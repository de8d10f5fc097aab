import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import { iso, type Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import { withSavepoint, type Db, type TxDb } from '../../store/db.ts';
import type { Plan } from '../../store/schema.ts';
import {
  insertReservation,
  liveEntriesSince,
  settleReservation,
  staleReservations,
  windowSums,
} from '../../store/repos/usage-ledger.ts';
import type { Metrics } from './metrics.ts';
import { PLAN_LIMITS } from '../accounts/plans.ts';

/** The metered operations and their base units (README: usage table). */
export const METERED_OPERATIONS = ['content_job', 'autopilot', 'optimize_page', 'tracker_scan'] as const;
export type MeteredOperation = (typeof METERED_OPERATIONS)[number];

export const BASE_UNITS: Record<MeteredOperation, number> = {
  content_job: 10,
  autopilot: 25,
  optimize_page: 4,
  tracker_scan: 1,
};

export const WINDOWS = { '24h': 24 * 3_600_000, '7d': 7 * 24 * 3_600_000 } as const;
export type WindowName = keyof typeof WINDOWS;

export interface WindowView {
  limit: number;
  used: number;
  reserved: number;
  remaining_percent: number;
  recovers_at: string | null;
}

export interface UsageView {
  plan: Plan;
  rate_limit_per_minute: number;
  windows: Record<WindowName, WindowView>;
}

/** How much of the plan's daily pool one piece of work takes: under 5%, up to 15%, more. */
export const USAGE_LEVELS = ['low', 'standard', 'high'] as const;
export type UsageLevel = (typeof USAGE_LEVELS)[number];

/** What an accepted piece of work reports about its cost (`usage_impact`). */
export const UsageImpact = z.object({ level: z.enum(USAGE_LEVELS), included: z.boolean() });
export type UsageImpact = z.output<typeof UsageImpact>;

function limitOf(plan: Plan, w: WindowName): number {
  return w === '24h' ? PLAN_LIMITS[plan].units24h : PLAN_LIMITS[plan].units7d;
}

/** Relative weight of `units` against the plan's daily pool. */
export function impactLevel(plan: Plan, units: number): UsageImpact['level'] {
  const share = units / PLAN_LIMITS[plan].units24h;
  return share < 0.05 ? 'low' : share <= 0.15 ? 'standard' : 'high';
}

/** The time at which enough of the window's live units age out to fit `needed` more; null if never blocked. */
async function recoversAt(
  db: Db,
  orgId: string,
  plan: Plan,
  w: WindowName,
  needed: number,
  now: number,
): Promise<number | null> {
  const since = now - WINDOWS[w];
  const entries = await liveEntriesSince(db, orgId, since);
  let load = entries.reduce((a, e) => a + e.units, 0);
  const limit = limitOf(plan, w);
  if (load + needed <= limit) return null;
  if (needed > limit) return null;
  for (const e of entries) {
    load -= e.units;
    if (load + needed <= limit) return e.created_at + WINDOWS[w];
  }
  return null;
}

/** Both windows' loads in one read. */
async function loads(db: Db, orgId: string, now: number) {
  const s = await windowSums(db, orgId, now - WINDOWS['24h'], now - WINDOWS['7d'], now);
  return { '24h': s.short, '7d': s.long } as const;
}

/** The organisation's usage windows as of `now`. */
async function usageView(db: Db, orgId: string, plan: Plan, now: number): Promise<UsageView> {
  const windows = {} as Record<WindowName, WindowView>;
  const all = await loads(db, orgId, now);
  for (const w of Object.keys(WINDOWS) as WindowName[]) {
    const s = all[w];
    const limit = limitOf(plan, w);
    const free = Math.max(0, limit - s.charged - s.reserved);
    const recovers = free > 0 ? null : await recoversAt(db, orgId, plan, w, 1, now);
    windows[w] = {
      limit,
      used: s.charged,
      reserved: s.reserved,
      remaining_percent: Math.round((free / limit) * 10_000) / 100,
      recovers_at: recovers === null ? null : iso(recovers),
    };
  }
  return { plan, rate_limit_per_minute: PLAN_LIMITS[plan].ratePerMinute, windows };
}

/** The first window `units` would overflow, or null when it fits both. */
async function overflow(db: Db, orgId: string, plan: Plan, units: number, now: number) {
  let worst: { window: WindowName; limit: number; load: number; recovers: number | null } | null = null;
  const all = await loads(db, orgId, now);
  for (const w of Object.keys(WINDOWS) as WindowName[]) {
    const s = all[w];
    const limit = limitOf(plan, w);
    const load = s.charged + s.reserved;
    if (load + units <= limit) continue;
    const recovers = await recoversAt(db, orgId, plan, w, units, now);
    // Report the window that binds longest: the caller cannot proceed before it recovers.
    if (!worst || (recovers ?? Infinity) > (worst.recovers ?? Infinity)) worst = { window: w, limit, load, recovers };
  }
  return worst;
}

/**
 * The usage ledger: work reserves units when accepted (in the accepting transaction), is charged exactly once when
 * a usable result exists, and is released when it fails first. Windows are sums over the ledger at read time, so
 * they can be recomputed and audited; an entry counts in a window when it was accepted within the last 24 h / 7 d
 * (the boundary itself excluded).
 */
export function createUsageService(deps: { clock: Clock; logger: Logger; metrics?: Pick<Metrics, 'rejected'> }) {
  const { clock, logger } = deps;

  return {
    view: (db: Db, orgId: string, plan: Plan): Promise<UsageView> => usageView(db, orgId, plan, clock.now()),

    /** Reserves `units` for a resource inside the caller's transaction, or throws 429 `usage_limit_reached`. */
    async reserve(
      trx: TxDb,
      input: {
        orgId: string;
        plan: Plan;
        operation: MeteredOperation;
        units: number;
        resourceKind: string;
        resourceId: string;
      },
    ): Promise<void> {
      const now = clock.now();
      const over = await overflow(trx, input.orgId, input.plan, input.units, now);
      if (over) {
        deps.metrics?.rejected('usage_limit');
        throw new ApiError(
          'usage_limit_reached',
          `The ${over.window} usage window is at its limit; retry after it recovers.`,
          {
            window: over.window,
            limit: over.limit,
            in_use: over.load,
            requested: input.units,
            recovers_at: over.recovers === null ? null : iso(over.recovers),
          },
          over.recovers === null ? {} : { retryAfterSeconds: Math.max(1, Math.ceil((over.recovers - now) / 1000)) },
        );
      }
      await insertReservation(trx, input, now);
    },

    /** Charges the resource's reservation; true once, false (a logged no-op) on every later call. */
    async charge(db: Db, resourceKind: string, resourceId: string): Promise<boolean> {
      const moved = await settleReservation(db, resourceKind, resourceId, 'charged', clock.now());
      if (!moved) logger.info({ resourceKind, resourceId }, 'usage charge skipped: reservation is not reserved');
      return moved;
    },

    /**
     * Charges inside the caller's transaction behind a savepoint: when the charge write fails, only it is rolled back,
     * the caller's result still commits, and the reservation stays `reserved` for the reconciler to charge
     * (`reconciliation_pending`). Answers whether the charge happened now.
     */
    async chargeOrDefer(trx: TxDb, resourceKind: string, resourceId: string): Promise<'charged' | 'noop' | 'deferred'> {
      try {
        const moved = await withSavepoint(trx, 'usage_charge', () =>
          settleReservation(trx, resourceKind, resourceId, 'charged', clock.now()),
        );
        if (!moved) logger.info({ resourceKind, resourceId }, 'usage charge skipped: reservation is not reserved');
        return moved ? 'charged' : 'noop';
      } catch (err) {
        logger.error({ err, resourceKind, resourceId }, 'usage charge failed; the reconciler will retry it');
        return 'deferred';
      }
    },

    /** Releases the resource's reservation; true once, false (a logged no-op) on every later call. */
    async release(db: Db, resourceKind: string, resourceId: string): Promise<boolean> {
      const moved = await settleReservation(db, resourceKind, resourceId, 'released', clock.now());
      if (!moved) logger.info({ resourceKind, resourceId }, 'usage release skipped: reservation is not reserved');
      return moved;
    },

    /** Units, impact and whether it would be refused now. */
    async estimate(db: Db, orgId: string, plan: Plan, units: number) {
      const over = await overflow(db, orgId, plan, units, clock.now());
      return {
        units,
        usage_impact: { level: impactLevel(plan, units), included: over === null },
        would_exceed: over !== null,
      };
    },

    /**
     * Settles reservations left behind by crashes: a finished run's reservation is charged, a failed run's or an
     * orphan's (no run at all, older than `graceMs`) is released. Each move is conditional, so it happens once.
     */
    async reconcile(db: Db, graceMs: number): Promise<{ charged: number; released: number }> {
      const out = { charged: 0, released: 0 };
      const rows = await staleReservations(db, clock.now() - graceMs, 500);
      for (const r of rows) {
        const to = r.run_state === 'done' ? 'charged' : 'released';
        try {
          if (await settleReservation(db, r.resource_kind, r.resource_id, to, clock.now())) out[to]++;
        } catch (err) {
          // One row that cannot be settled now must not hold up the others; the next pass retries it.
          logger.error(
            { err, resourceKind: r.resource_kind, resourceId: r.resource_id },
            'usage reconciler could not settle a reservation',
          );
        }
      }
      if (out.charged || out.released) logger.warn(out, 'usage reconciler settled stale reservations');
      return out;
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
