import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format: `aapi_` + 30 random base62 characters + 6 base62 characters of CRC-32 over the random part.
 * The prefix makes keys recognisable (and findable by secret scanners); the checksum lets a malformed or mistyped
 * key be rejected without reading the database. Only the SHA-256 of the whole key is stored.
 */
export const KEY_PREFIX = 'aapi_';
const BODY_LEN = 30;
const CHECK_LEN = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_RE = new RegExp(`^${KEY_PREFIX}([0-9A-Za-z]{${BODY_LEN}})([0-9A-Za-z]{${CHECK_LEN}})$`);

function base62(n: number, width: number): string {
  let out = '';
  let v = n >>> 0;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECK_LEN);
}

/** A new random key (about 178 bits of randomness). */
export function generateApiKey(): string {
  const bytes = randomBytes(BODY_LEN * 2);
  let body = '';
  // Rejection sampling keeps the characters uniform over the 62-letter alphabet.
  for (const b of bytes) {
    if (b < 248) body += ALPHABET[b % 62];
    if (body.length === BODY_LEN) break;
  }
  while (body.length < BODY_LEN) body += ALPHABET[randomBytes(1)[0]! % 62];
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** True when the key has the right prefix, length, alphabet and checksum. Pure; no I/O. */
export function isWellFormedApiKey(key: string): boolean {
  const m = KEY_RE.exec(key);
  return !!m && checksum(m[1]!) === m[2];
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The part shown in listings: prefix and the first four characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 4);
}
