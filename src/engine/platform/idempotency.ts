import { createHash } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../clock.ts';
import type { Db, TxDb } from '../../store/db.ts';
import {
  deleteExpiredIdempotencyRecords,
  deleteIdempotencyRecord,
  getIdempotencyRecord,
  insertIdempotencyRecord,
} from '../../store/repos/idempotency.ts';

/**
 * Idempotency keys: 1-255 printable ASCII characters without spaces. A structured-field string (`"abc-123"`, RFC
 * 8941) is unquoted first, so `"abc-123"` and `abc-123` are the same key. More than one value (two headers) is
 * refused rather than guessed at.
 */
export function parseIdempotencyKey(
  values: readonly string[],
): { ok: true; key: string } | { ok: false; message: string } {
  if (values.length > 1) return { ok: false, message: 'Send exactly one Idempotency-Key.' };
  let key = values[0] ?? '';
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(key);
  if (quoted) key = quoted[1]!.replace(/\\(["\\])/g, '$1');
  if (key.length < 1 || key.length > 255) return { ok: false, message: 'Idempotency-Key must be 1 to 255 characters.' };
  if (!/^[\x21-\x7e]+$/.test(key)) {
    return { ok: false, message: 'Idempotency-Key must be printable ASCII without spaces or control characters.' };
  }
  return { ok: true, key };
}

/** JSON with object keys sorted at every depth: equal requests give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The request fingerprint: operation plus the validated input (defaults applied), canonicalised. */
export function requestHash(operation: string, input: unknown): string {
  return createHash('sha256').update(operation).update('\n').update(canonicalJson(input)).digest('hex');
}

export interface StoredResult {
  status: number;
  body: unknown;
  resourceId: string | null;
}

export interface IdempotentOutcome extends StoredResult {
  replayed: boolean;
}

/**
 * Exactly-once execution per (organisation, key). The check, the work and the record are one transaction (the
 * caller's `BEGIN IMMEDIATE`), so a concurrent duplicate waits for the lock and then sees the record: it gets the
 * replay, never a second execution. Failures roll back and store nothing, so a corrected retry with the same key is
 * processed. Records live `ttlMs` (at least 24 hours); an expired record is treated as absent.
 */
export function createIdempotencyService(deps: { clock: Clock; ttlMs: number }) {
  const { clock, ttlMs } = deps;
  return {
    async execute(
      trx: TxDb,
      scope: { orgId: string; key: string; operation: string; hash: string },
      work: () => Promise<StoredResult>,
    ): Promise<IdempotentOutcome> {
      const now = clock.now();
      const row = await getIdempotencyRecord(trx, scope.orgId, scope.key);
      if (row && row.expires_at > now) {
        if (row.operation !== scope.operation || row.request_hash !== scope.hash) {
          throw new ApiError(
            'idempotency_key_reused',
            row.operation !== scope.operation
              ? 'This Idempotency-Key was already used for a different operation.'
              : 'This Idempotency-Key was already used with a different request body.',
          );
        }
        return { status: row.status_code, body: JSON.parse(row.response), resourceId: row.resource_id, replayed: true };
      }
      if (row) await deleteIdempotencyRecord(trx, scope.orgId, scope.key);
      const result = await work();
      await insertIdempotencyRecord(trx, {
        org_id: scope.orgId,
        key: scope.key,
        operation: scope.operation,
        request_hash: scope.hash,
        status_code: result.status,
        response: JSON.stringify(result.body),
        resource_id: result.resourceId,
        created_at: now,
        expires_at: now + ttlMs,
      });
      return { ...result, replayed: false };
    },

    /** Deletes expired records; returns how many. */
    reap: (db: Db): Promise<number> => deleteExpiredIdempotencyRecords(db, clock.now()),
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
