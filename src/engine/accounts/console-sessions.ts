/**
 * Web console sessions (docs/console.md): the user signs in with an API key once; the console keeps only a random
 * session id in an HttpOnly cookie. The database stores the id's hash and the key's hash, so the session acts as the
 * key (its organisation and scopes, read fresh on every request) and ends when the key is revoked or expires, or
 * after SESSION_TTL_MS. The CSRF token of a form is derived from the session id, so it needs no storage.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../store/db.ts';
import {
  deleteConsoleSession,
  deleteExpiredConsoleSessions,
  findConsoleSession,
  insertConsoleSession,
} from '../../store/repos/console-sessions.ts';
import { ApiError } from '../../errors.ts';
import { hashApiKey } from './api-keys.ts';
import { authenticate, principalOfKeyHash, type Principal } from './auth.ts';

/** How long a console session lasts after sign-in. */
export const SESSION_TTL_MS = 8 * 3_600_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Signs in with an API key (401 when it is not a valid, active key); answers the new session's id. */
export async function startConsoleSession(db: Db, clock: Clock, apiKey: string) {
  await authenticate(db, clock, apiKey);
  const id = randomBytes(32).toString('base64url');
  const now = clock.now();
  await deleteExpiredConsoleSessions(db, now);
  await insertConsoleSession(db, {
    id_hash: sha256(id),
    key_hash: hashApiKey(apiKey),
    created_at: now,
    expires_at: now + SESSION_TTL_MS,
  });
  return { id, expiresAt: now + SESSION_TTL_MS };
}

/** The principal a session acts as; 401 when the session is unknown or expired, or its key no longer valid. */
export async function consolePrincipal(db: Db, clock: Clock, id: string | undefined): Promise<Principal> {
  if (!id || id.length > 100) throw new ApiError('unauthorized', 'Sign in with an API key.');
  const row = await findConsoleSession(db, sha256(id), clock.now());
  if (!row) throw new ApiError('unauthorized', 'The session has ended; sign in again.');
  return principalOfKeyHash(db, clock, row.key_hash);
}

export async function endConsoleSession(db: Db, id: string): Promise<void> {
  await deleteConsoleSession(db, sha256(id));
}

/** The CSRF token of a session's forms: not guessable without the session id, which only the cookie holds. */
export function csrfToken(sessionId: string): string {
  return sha256(`csrf\u0000${sessionId}`);
}

/** Whether a submitted token is the session's (compared in constant time). */
export function validCsrf(sessionId: string, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const expected = Buffer.from(csrfToken(sessionId));
  const got = Buffer.from(submitted);
  return got.length === expected.length && timingSafeEqual(got, expected);
}
