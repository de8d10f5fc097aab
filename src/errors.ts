/**
 * The one error class and the one catalogue: every code the service answers, with its HTTP status and a default
 * human sentence. Transports turn an ApiError into `{error: {code, message, details}}` with this status.
 */
export const ERROR_CATALOGUE = {
  invalid_input: { status: 400, message: 'The request is not valid.' },
  validation_error: { status: 400, message: 'The request is not valid.' },
  idempotency_key_required: { status: 400, message: 'This operation requires an Idempotency-Key.' },
  unauthorized: { status: 401, message: 'A valid API key is required.' },
  subscription_required: { status: 402, message: 'An active subscription is required for this operation.' },
  plan_required: { status: 403, message: 'An active subscription plan is required for this operation.' },
  forbidden: { status: 403, message: 'The API key lacks the scope this operation needs.' },
  not_found: { status: 404, message: 'The resource was not found.' },
  location_conflict: { status: 409, message: 'The requested location differs from the saved service area.' },
  invalid_state: { status: 409, message: 'The operation does not fit the resource state.' },
  idempotency_key_in_use: { status: 409, message: 'A request with this Idempotency-Key is still being processed.' },
  confirmation_mismatch: { status: 409, message: 'The confirmation does not match the current value.' },
  payload_too_large: { status: 413, message: 'The request body is larger than 1 MiB.' },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was already used for a different request.' },
  rate_limit_exceeded: { status: 429, message: 'Too many requests; wait and retry.' },
  usage_limit_reached: { status: 429, message: 'The pooled usage window is at its limit.' },
  internal_error: { status: 500, message: 'An internal error occurred.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable; retry with backoff.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** A rate limiter's decision, as values: transports render them as headers (REST) or leave them out (MCP). */
export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the key is back to its full allowance. */
  resetAt: number;
  /** Whole seconds to wait before the next request can pass (0 when allowed). */
  retryAfter: number;
}

/** What a transport needs besides the body to answer an error: values, never rendered headers. */
export interface ErrorHints {
  /** Whole seconds after which a retry can succeed (HTTP renders `Retry-After`). */
  retryAfterSeconds?: number;
  /** The rate-limit decision that refused the call (HTTP renders the `X-RateLimit-*` headers). */
  rate?: RateLimitState;
}

/** An error meant for the client: code from the catalogue, a trusted message, optional details and hints. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly hints: ErrorHints;

  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>, hints: ErrorHints = {}) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.details = details;
    this.hints = hints;
  }

  toBody(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }
}

/** Any thrown value as an ApiError; unknown errors become `internal_error` without leaking their text. */
export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError('internal_error');
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}
