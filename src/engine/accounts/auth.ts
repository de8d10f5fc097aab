import { ApiError } from '../../errors.ts';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../store/db.ts';
import type { Plan } from '../../store/schema.ts';
import { findKeyByHash } from '../../store/repos/api-keys.ts';
import { hashApiKey, isWellFormedApiKey } from './api-keys.ts';
import { API_KEY_STATES, apiKeyState } from './contract.ts';
import { PLAN_LIMITS } from './plans.ts';
import { expandScopes, type Scope } from './scopes.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

/** Who is calling: resolved from the key on every request. */
export interface Principal {
  orgId: string;
  keyId: string;
  scopes: ReadonlySet<Scope>;
  plan: Plan;
  subscriptionActive: boolean;
  ratePerMinute: number;
  /** How the caller authenticated: an API key (absent) or an OAuth access token (docs/oauth.md). */
  via?: 'oauth';
}

const unauthorized = () => new ApiError('unauthorized', 'A valid API key is required.');

/** The token of an `Authorization: Bearer <token>` header, or null. The query string is never read for keys. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1]! : null;
}

/**
 * Resolves a key to its principal or throws 401. Malformed keys (prefix, length, checksum) are rejected before any
 * database read; revocation and expiry are read fresh each time, so they take effect on the next request.
 */
export async function authenticate(db: Db, clock: Clock, token: string | null): Promise<Principal> {
  if (!token || !isWellFormedApiKey(token)) throw unauthorized();
  return principalOfKeyHash(db, clock, hashApiKey(token));
}

/** The principal of the key with this hash, or 401 when there is none or it is revoked or expired (read fresh). */
export async function principalOfKeyHash(db: Db, clock: Clock, keyHash: string): Promise<Principal> {
  const row = await findKeyByHash(db, keyHash);
  const now = clock.now();
  if (!row || !API_KEY_STATES[apiKeyState(row, now)].authenticates) throw unauthorized();
  return {
    orgId: row.org_id,
    keyId: row.id,
    scopes: expandScopes(JSON_COLUMNS.api_keys.scopes.read(row.scopes)),
    plan: row.plan,
    subscriptionActive: row.subscription_status === 'active',
    ratePerMinute: PLAN_LIMITS[row.plan].ratePerMinute,
  };
}
