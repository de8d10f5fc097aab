import type { Plan } from '../../store/schema.ts';

import { PLANS } from './contract.ts';

export { PLANS };

export interface PlanLimits {
  /** Requests per minute per key. */
  ratePerMinute: number;
  /** Usage units in any rolling 24 hours. */
  units24h: number;
  /** Usage units in any rolling 7 days. */
  units7d: number;
}

/** Plan limits. The README's usage table documents them. */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: { ratePerMinute: 30, units24h: 100, units7d: 400 },
  pro: { ratePerMinute: 60, units24h: 400, units7d: 2_000 },
  agency: { ratePerMinute: 120, units24h: 1_500, units7d: 7_500 },
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
