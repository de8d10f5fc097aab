import { Agent, request, type Dispatcher } from 'undici';
import { ProviderError } from '../types.ts';

/**
 * JSON over HTTP for provider APIs (search, LLM, answer engines) at operator-configured base URLs.
 * User-supplied URLs never come here: they go through the SSRF-safe fetcher.
 *
 * One attempt per call: a failure says whether another attempt may help (429, 5xx, network, timeout) and how long
 * the provider asked to wait. The durable runner is the only retry layer (docs/architecture.md §5), so a step sends
 * each provider request at most AGENT_API_MAX_ATTEMPTS times.
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

export interface JsonClient {
  call<T = unknown>(req: JsonRequest): Promise<T>;
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

  async function attempt<T>(req: JsonRequest): Promise<T> {
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
      try {
        return JSON.parse(text) as T;
      } catch (cause) {
        throw new ProviderError(provider, `${provider} answered a body that is not JSON`, { retryable: false, cause });
      }
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
