import { InvalidArgumentError } from 'commander';
import { TONES } from '../engine/content/types.ts';
import { isPlan, PLANS } from '../engine/accounts/plans.ts';
import type { Plan, SubscriptionStatus } from '../store/schema.ts';
import { SUBSCRIPTION_STATUSES } from '../engine/accounts/contract.ts';

/**
 * Option-argument parsers shared by the commands. Each throws commander's InvalidArgumentError, so the message
 * names the option: `option '--port <port>' argument 'abc' is invalid. expected an integer from 0 to 65535`.
 */

export function port(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected an integer from 0 to 65535 (0 picks a free port)');
  return n;
}

export function host(v: string): string {
  if (v.trim() === '') throw new InvalidArgumentError('expected an address or host name, e.g. 127.0.0.1');
  return v.trim();
}

export function plan(v: string): Plan {
  if (!isPlan(v)) throw new InvalidArgumentError(`expected one of ${PLANS.join(', ')}`);
  return v;
}

const isSubscription = (v: string): v is SubscriptionStatus => (SUBSCRIPTION_STATUSES as readonly string[]).includes(v);

export function subscription(v: string): SubscriptionStatus {
  if (!isSubscription(v)) throw new InvalidArgumentError(`expected one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
  return v;
}

export function tone(v: string): string {
  if (!(TONES as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${TONES.join(', ')}`);
  return v;
}

export function number(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('expected a number');
  return n;
}

export function instant(v: string): number {
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new InvalidArgumentError('expected an ISO 8601 date-time');
  return t;
}

/** A comma-separated list, items trimmed, empty items dropped. */
export function list(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
