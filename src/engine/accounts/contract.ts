/**
 * The accounts state table: an organisation's plans and subscription statuses, and the states an API key reads as.
 * The store's column types (src/store/schema.ts), the CHECK constraints' values (checked by
 * test/contract/state-tables.test.ts) and the tools' zod enums are made from these tuples.
 */

/** The plans, smallest first (limits: src/engine/accounts/plans.ts). */
export const PLANS = ['starter', 'pro', 'agency'] as const;
export type Plan = (typeof PLANS)[number];

/** An organisation's subscription: `active` runs paid work, `inactive` does not (subscription_required). */
export const SUBSCRIPTION_STATUSES = ['active', 'inactive'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * A usage reservation's states (usage_ledger.state): `reserved` when paid work is accepted, then `charged` once when it
 * produced its asset or `released` when it did not. Both ends are final.
 */
export const LEDGER_STATES = ['reserved', 'charged', 'released'] as const;
export type LedgerState = (typeof LEDGER_STATES)[number];

/**
 * The `billing_status` a paid resource reports, read from its ledger row and not stored twice: charged is
 * `finalized`, released is `released`, and a reservation still open on a usable result is `reconciliation_pending`
 * (the charge write failed; the reconciler retries it).
 */
export const BILLING_STATUSES = ['reserved', 'finalized', 'released', 'reconciliation_pending'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

/** The billing status of a resource whose reservation is in `ledger` (null: none yet) and whose result is `usable`. */
export function billingStatus(ledger: LedgerState | null, usable: boolean): BillingStatus {
  switch (ledger) {
    case 'charged':
      return 'finalized';
    case 'released':
      return 'released';
    case 'reserved':
    case null:
      return usable ? 'reconciliation_pending' : 'reserved';
  }
}

/**
 * The states an API key reads as. Nothing stores them: `revoked` when `revoked_at` is set, `expired` when
 * `expires_at` has passed, `active` otherwise. Only `active` authenticates; `revoked` never moves again.
 */
export const API_KEY_STATES = {
  active: { terminal: false, authenticates: true, next: ['revoked', 'expired'] },
  expired: { terminal: false, authenticates: false, next: ['revoked'] },
  revoked: { terminal: true, authenticates: false, next: [] },
} as const satisfies Record<string, { terminal: boolean; authenticates: boolean; next: readonly string[] }>;
export type ApiKeyState = keyof typeof API_KEY_STATES;
export const API_KEY_STATE_VALUES = Object.keys(API_KEY_STATES) as [ApiKeyState, ...ApiKeyState[]];

/** The state of a key at `now`, read from its row. */
export function apiKeyState(row: { revoked_at: number | null; expires_at: number | null }, now: number): ApiKeyState {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}
