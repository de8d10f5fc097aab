/**
 * The random values of the authorization server and how they are checked: codes and tokens carry a recognisable
 * prefix (`aac_` code, `aat_` access token, `art_` refresh token, `acs_` client secret) and 256 random bits; only
 * their SHA-256 is stored. PKCE is S256 only (RFC 7636 §4.2): the challenge is base64url(SHA-256(verifier)).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const CODE_PREFIX = 'aac_';
export const ACCESS_PREFIX = 'aat_';
export const REFRESH_PREFIX = 'art_';
export const SECRET_PREFIX = 'acs_';

export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function hashSecret(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time equality of a presented secret with a stored hash. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** RFC 7636 §4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is a base64url SHA-256: 43 characters. */
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

export function isValidChallenge(challenge: string): boolean {
  return CHALLENGE_RE.test(challenge);
}

/** Whether `verifier` is well formed and hashes to `challenge` (compared in constant time). */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER_RE.test(verifier)) return false;
  const a = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
