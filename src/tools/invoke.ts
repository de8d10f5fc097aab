import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { Principal } from '../engine/accounts/auth.ts';
import type { Engine, EngineServices } from '../engine/engine.ts';
import { parseIdempotencyKey, requestHash } from '../engine/platform/idempotency.ts';
import type { RateDecision } from '../engine/platform/rate-limit.ts';
import { immediate } from '../store/db.ts';
import {
  isHandlerEnvelope,
  type AnyOperation,
  type Family,
  type CallContext,
  type ReadContext,
  type WriteContext,
  type ProgressReporter,
} from './define.ts';

export interface Invocation {
  principal: Principal;
  /** Path, query and body fields merged (REST) or the tool arguments (MCP). */
  input: Record<string, unknown>;
  /** Every Idempotency-Key value the caller sent (REST headers, or the MCP field); null when none. */
  idempotencyKeys: readonly string[] | null;
  requestId: string;
  signal?: AbortSignal;
  progress?: ProgressReporter | null;
}

export interface InvocationResult {
  status: number;
  body: unknown;
  /** True when an idempotency key replayed the first result (REST says `Idempotent-Replayed: true`). */
  replayed: boolean;
}

/** The code a family answers for bad input (optimize keeps `validation_error`, docs/api.md §1.3). */
export function validationCode(family: Family): 'validation_error' | 'invalid_input' {
  return family === 'optimize' ? 'validation_error' : 'invalid_input';
}

/** Zod issues as the API's `details.fields`: one entry per bad field, named by its path. */
export function fieldErrors(error: z.ZodError): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: [...issue.path, key].join('.'), message: 'Unknown field.' });
    } else {
      out.push({ path: issue.path.length ? issue.path.join('.') : '(body)', message: issue.message });
    }
  }
  return out;
}

export function invalidInput(family: Family, fields: { path: string; message: string }[]): ApiError {
  const names = [...new Set(fields.map((f) => f.path))];
  return new ApiError(validationCode(family), `Invalid input: ${names.join(', ')}.`, { fields });
}

/** The 429 of a refused decision (carrying the decision a transport renders), or null when it passed. */
export function rateLimitError(d: RateDecision): ApiError | null {
  if (d.allowed) return null;
  return new ApiError(
    'rate_limit_exceeded',
    `Rate limit of ${d.limit} requests per minute exceeded; retry in ${d.retryAfter} s.`,
    { limit: d.limit, retry_after_seconds: d.retryAfter, reset_at: d.resetAt },
    { rate: d },
  );
}

/** Consumes one request from the key's allowance or throws 429 carrying the decision a transport renders. */
export async function takeRateLimit(
  engine: Pick<EngineServices, 'rateLimiter' | 'metrics'>,
  principal: Principal,
): Promise<RateDecision> {
  const d = await engine.rateLimiter.take(principal.keyId, principal.ratePerMinute);
  const refused = rateLimitError(d);
  if (refused) {
    engine.metrics.rejected('rate_limit');
    throw refused;
  }
  return d;
}

/**
 * Runs one operation for one authenticated, rate-limited caller, the same way for every transport: scope, then
 * subscription, then the idempotency key, then input validation, then the handler. Writing operations run in one
 * `BEGIN IMMEDIATE` transaction together with their idempotency record, so acceptance, reservation and record commit
 * together or not at all. Nothing is stored for a call that fails before or inside the handler.
 */
export async function invokeOperation(engine: Engine, op: AnyOperation, call: Invocation): Promise<InvocationResult> {
  const { principal } = call;
  if (op.scope && !principal.scopes.has(op.scope)) {
    throw new ApiError('forbidden', `This API key lacks the scope ${op.scope}.`, { required_scope: op.scope });
  }
  if (op.subscription && !principal.subscriptionActive) {
    throw new ApiError(op.subscription, 'This organisation has no active subscription; reads keep working.');
  }

  let key: string | null = null;
  if (op.idempotency !== 'none' && call.idempotencyKeys && call.idempotencyKeys.length > 0) {
    const parsed = parseIdempotencyKey(call.idempotencyKeys);
    if (!parsed.ok) throw invalidInput(op.family, [{ path: 'Idempotency-Key', message: parsed.message }]);
    key = parsed.key;
  }
  if (op.idempotency === 'required' && key === null) {
    throw new ApiError('idempotency_key_required', 'This operation requires an Idempotency-Key.');
  }

  const parsed = op.input.safeParse(call.input);
  if (!parsed.success) throw invalidInput(op.family, fieldErrors(parsed.error));
  const input = parsed.data as Record<string, unknown>;

  const base: CallContext = {
    principal,
    engine: engine.services,
    requestId: call.requestId,
    idempotencyKey: key,
    signal: call.signal ?? new AbortController().signal,
    progress: call.progress ?? null,
  };
  const extra = op.validate?.(base, input) ?? [];
  if (extra.length) throw invalidInput(op.family, extra);
  /** Reads, replays and follows use the root connection; writing handlers only ever see their transaction. */
  const readCtx: ReadContext = { ...base, db: engine.db };
  const defaultStatus = op.http.status;
  const unwrap = (r: unknown) =>
    isHandlerEnvelope(r)
      ? { status: r.status, body: r.body, resourceId: r.resourceId ?? null }
      : { status: defaultStatus, body: r, resourceId: null };

  if (op.annotations.readOnlyHint) {
    const r = unwrap(await op.handler(readCtx, input));
    return { status: r.status, body: r.body, replayed: false };
  }

  const afterCommit: Array<() => void> = [];
  const outcome = await immediate(engine.db, async (trx) => {
    const txCtx: WriteContext = { ...base, db: trx, afterCommit: (fn) => afterCommit.push(fn) };
    if (key === null) return { ...unwrap(await op.handler(txCtx, input)), replayed: false };
    return engine.idempotency.execute(
      trx,
      { orgId: principal.orgId, key, operation: op.name, hash: requestHash(op.name, input) },
      async () => unwrap(await op.handler(txCtx, input)),
    );
  });
  for (const fn of afterCommit) fn();
  let body = outcome.replayed && op.replay ? await op.replay(readCtx, outcome) : outcome.body;
  if (op.follow && base.progress) body = await op.follow(readCtx, body);
  if (!outcome.replayed) return { status: outcome.status, body, replayed: false };
  return { status: op.http.replayStatus ?? outcome.status, body, replayed: true };
}
