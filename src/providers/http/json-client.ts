import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { ProviderError } from '../types.ts';

/**
 * JSON over HTTP for provider APIs (search, LLM, answer engines) at operator-configured base URLs.
 * User-supplied URLs never come here: they go through the SSRF-safe fetcher.
 *
 * One attempt per call: a failure says whether another attempt may help (429, 5xx, network, timeout) and how long
 * the provider asked to wait. The durable runner is the only retry layer (docs/architecture.md §5), so a step sends
 * each provider request at most AGENT_API_MAX_ATTEMPTS times.
 *
 * Every answer is checked against the caller's zod schema: a body of another shape is a non-retryable ProviderError
 * that names the provider and the first mismatching path, never the body (it may echo keys or prompts).
 */
export interface JsonClientOptions {
  /** Provider name, for errors and logs. */
  provider: string;
  baseUrl: string;
  headers?: Record<string, string>;
  /** Whole-request time limit. */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
}

export interface JsonRequest {
  method?: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A request's idempotency key (sent as `Idempotency-Key`, so a retried call is not paid twice) and abort signal. */
export function callOptions(o: {
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}): Pick<JsonRequest, 'headers' | 'signal'> {
  return {
    ...(o.idempotencyKey ? { headers: { 'idempotency-key': o.idempotencyKey } } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  };
}

export interface JsonClient {
  /** One request; the JSON answer parsed with `schema` (loose object schemas keep fields the API adds). */
  call<S extends z.ZodType>(req: JsonRequest, schema: S): Promise<z.output<S>>;
}

/** Where and how an answer missed its schema: the first issue's path and expected type, no values from the body. */
export function shapeMismatch(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'at (root)';
  const at = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  return issue.code === 'invalid_type' ? `at ${at} (expected ${issue.expected})` : `at ${at} (${issue.code})`;
}

/** One shared dispatcher for provider APIs: keep-alive, no environment proxies. */
const sharedAgent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

/** Seconds or an HTTP date, as Retry-After allows; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export function createJsonClient(options: JsonClientOptions): JsonClient {
  const { provider, timeoutMs = 60_000, dispatcher = sharedAgent } = options;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function attempt<S extends z.ZodType>(req: JsonRequest, schema: S): Promise<z.output<S>> {
    const url = new URL(base + (req.path.startsWith('/') ? req.path : `/${req.path}`));
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const signals = [AbortSignal.timeout(timeoutMs), ...(req.signal ? [req.signal] : [])];
    try {
      const res = await request(url, {
        method: req.method ?? (req.body === undefined ? 'GET' : 'POST'),
        dispatcher,
        signal: AbortSignal.any(signals),
        headers: {
          accept: 'application/json',
          ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
          ...req.headers,
        },
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
      });
      const text = await res.body.text();
      if (res.statusCode === 429 || res.statusCode >= 500) {
        throw new ProviderError(provider, `${provider} answered HTTP ${res.statusCode}`, {
          retryable: true,
          status: res.statusCode,
          retryAfterMs: parseRetryAfter(res.headers['retry-after']) ?? undefined,
        });
      }
      if (res.statusCode >= 400) {
        throw new ProviderError(provider, `${provider} answered HTTP ${res.statusCode}: ${text.slice(0, 300)}`, {
          retryable: false,
          status: res.statusCode,
        });
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (cause) {
        throw new ProviderError(provider, `${provider} answered a body that is not JSON`, { retryable: false, cause });
      }
      const checked = schema.safeParse(parsed);
      // No `cause`: the zod error can carry values from the body into logs.
      if (!checked.success) {
        const where = shapeMismatch(checked.error);
        throw new ProviderError(provider, `${provider} answered JSON of an unexpected shape ${where}`, {
          retryable: false,
        });
      }
      return checked.data;
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (req.signal?.aborted) throw err;
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new ProviderError(
        provider,
        timedOut ? `${provider} timed out after ${timeoutMs} ms` : `${provider} could not be reached`,
        { retryable: true, cause: err },
      );
    }
  }

  return { call: attempt };
}
