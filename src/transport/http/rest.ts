import type { Context, Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { Engine } from '../../engine/engine.ts';
import type { AnyOperation } from '../../tools/define.ts';
import { invokeOperation, takeRateLimit, validationCode } from '../../tools/invoke.ts';
import { headerValues, type HttpEnv } from './guards.ts';
import { rateLimitHeaders } from './headers.ts';
import { authenticateRequest, type FailedAuthLimiter } from './request-auth.ts';
import type { OAuthServices } from '../../engine/oauth/services.ts';

export const API_BASE = '/api/agent/v1';

/**
 * Query parameters as the schema expects them: a repeated parameter becomes an array, a single one a string. Built
 * with own properties (`Object.fromEntries`), so `?__proto__=x` or `?constructor=x` is a key like any other, which
 * the schema refuses as an unknown field, instead of an assignment that sets the object's prototype or vanishes.
 */
function queryInput(c: Context<HttpEnv>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([k, values]) => [k, values.length === 1 ? values[0] : values]),
  );
}

/** Path parameters over the query or body fields, every key kept as an own property (no `__proto__` setter). */
function mergeInput(fields: Record<string, unknown>, params: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries([...Object.entries(fields), ...Object.entries(params)]);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON body as an object; an empty body is `{}`. Anything but a JSON object is a 400, and so are bytes that are
 * not UTF-8: they are refused rather than decoded to U+FFFD (a fatal decoder; a leading BOM is still skipped).
 * JSON.parse keeps `__proto__` as an own key, so the schema names it as an unknown field.
 */
async function bodyInput(c: Context<HttpEnv>, op: AnyOperation): Promise<Record<string, unknown>> {
  const code = validationCode(op.family);
  const bytes = await c.req.arrayBuffer();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError(code, 'The request body is not valid UTF-8.', {
      fields: [{ path: '(body)', message: 'Invalid UTF-8.' }],
    });
  }
  if (text.trim() === '') return {};
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new ApiError(code, 'Request bodies must be JSON with Content-Type: application/json.', {
      fields: [{ path: '(body)', message: 'Unsupported content type.' }],
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(code, 'The request body is not valid JSON.', {
      fields: [{ path: '(body)', message: 'Malformed JSON.' }],
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ApiError(code, 'The request body must be a JSON object.', {
      fields: [{ path: '(body)', message: 'Expected an object.' }],
    });
  }
  return parsed as Record<string, unknown>;
}

/**
 * An abort signal for a long-poll (`wait_seconds` > 0) that fires when the client goes away; other requests get
 * none, because building it means building the full Request object on every call.
 */
function waitSignal(c: Context<HttpEnv>, input: Record<string, unknown>): AbortSignal | undefined {
  if (!input.wait_seconds || input.wait_seconds === '0' || !c.env?.incoming) return undefined;
  const abort = new AbortController();
  c.env.incoming.once('close', () => abort.abort());
  return abort.signal;
}

/**
 * REST routes from the registry: authenticate, rate-limit, gather path + query (GET) or path + body (others), then
 * the shared invocation. Errors go to the app's error handler, which renders the error body with the rate headers.
 */
export function mountRest(
  app: Hono<HttpEnv>,
  engine: Engine,
  operations: readonly AnyOperation[],
  failedAuth: FailedAuthLimiter,
  oauth: OAuthServices | null = null,
): void {
  for (const op of operations) {
    app.on(op.http.method, API_BASE + op.http.path, async (c) => {
      const principal = await authenticateRequest(engine, failedAuth, c, oauth);
      const decision = await takeRateLimit(engine.services, principal);
      const rateHeaders = rateLimitHeaders(decision);
      c.set('rateHeaders', rateHeaders);
      const input = mergeInput(
        op.http.method === 'GET' ? queryInput(c) : await bodyInput(c, op),
        c.req.param() as Record<string, string>,
      );
      const keys = headerValues(c.env?.incoming, 'idempotency-key');
      if (keys.length === 0 && c.req.header('idempotency-key') !== undefined)
        keys.push(c.req.header('idempotency-key')!);
      const result = await invokeOperation(engine, op, {
        principal,
        input,
        idempotencyKeys: keys.length ? keys : null,
        requestId: c.get('requestId'),
        signal: waitSignal(c, input),
      });
      const headers = { ...rateHeaders, ...(result.replayed ? { 'Idempotent-Replayed': 'true' } : {}) };
      // An operation that renders documents (define.ts `render`) answers the document its body stands for.
      const document = op.render?.document(result.body) ?? null;
      if (document) {
        return c.body(document.text, result.status as 200, { ...headers, 'Content-Type': document.mediaType });
      }
      return c.json(result.body as object, result.status as 200, headers);
    });
  }
}
