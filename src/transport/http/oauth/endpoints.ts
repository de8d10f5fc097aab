/**
 * The built-in authorization server's machine endpoints: `POST /oauth/token` (RFC 6749 §3.2), `POST /oauth/register`
 * (RFC 7591) and `POST /oauth/revoke` (RFC 7009). Token and revocation requests are form-encoded; every answer is
 * JSON with `Cache-Control: no-store`, and every error is OAuth's `{error, error_description}`. Client authentication
 * failures count against the address's failed-authentication allowance; registrations are limited per address.
 */
import type { Context, Hono } from 'hono';
import { ApiError } from '../../../errors.ts';
import type { Engine } from '../../../engine/engine.ts';
import { registerClient, type OAuthClient } from '../../../engine/oauth/clients.ts';
import { OAuthError } from '../../../engine/oauth/errors.ts';
import type { OAuthServices } from '../../../engine/oauth/services.ts';
import { createRateLimiter, type RequestLimiter } from '../../../engine/platform/rate-limit.ts';
import type { HttpEnv } from '../guards.ts';
import type { FailedAuthLimiter } from '../request-auth.ts';

/** Registrations one client address may make per minute. */
const REGISTRATIONS_PER_MINUTE = 10;
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

type Form = Map<string, string>;

/** A form-encoded body; a repeated parameter is refused (RFC 6749 §3.2). */
async function readForm(c: Context<HttpEnv>): Promise<Form> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  const form: Form = new Map();
  for (const [k, v] of new URLSearchParams(await c.req.text())) {
    if (form.has(k)) throw new OAuthError('invalid_request', `${k} is repeated.`);
    form.set(k, v);
  }
  return form;
}

/** The client's credentials: HTTP Basic (RFC 6749 §2.3.1, form-encoded id and secret) or in the body, not both. */
function credentials(c: Context<HttpEnv>, form: Form): { clientId: string | null; secret: string | null } {
  const header = c.req.header('authorization');
  const basic = header ? /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(header) : null;
  if (header && !basic) throw new OAuthError('invalid_client', 'Only HTTP Basic client authentication is accepted.');
  if (basic) {
    if (form.has('client_secret'))
      throw new OAuthError('invalid_request', 'Send the client secret one way: Basic or the body, not both.');
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'The Basic credentials are malformed.');
    const id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    if (form.has('client_id') && form.get('client_id') !== id)
      throw new OAuthError('invalid_request', 'client_id differs from the Basic credentials.');
    return { clientId: id, secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
  }
  return { clientId: form.get('client_id') ?? null, secret: form.get('client_secret') ?? null };
}

export function mountTokenEndpoints(
  app: Hono<HttpEnv>,
  deps: { engine: Engine; oauth: OAuthServices; failedAuth: FailedAuthLimiter; registrationLimiter?: RequestLimiter },
): void {
  const { engine, failedAuth } = deps;
  const clients = deps.oauth.clients!;
  const tokens = deps.oauth.tokens!;
  const registrations = deps.registrationLimiter ?? createRateLimiter(engine.clock);

  const fail = (c: Context<HttpEnv>, err: unknown): Response => {
    if (!(err instanceof OAuthError)) throw err;
    const headers: Record<string, string> = { ...NO_STORE };
    if (err.error === 'invalid_client' && /^Basic/i.test(c.req.header('authorization') ?? ''))
      headers['www-authenticate'] = 'Basic realm="agent-api"';
    return c.json(err.toBody(), err.status as 400, headers);
  };

  /**
   * The authenticated client. As for keys, a client that authenticates is never refused by the limiter; a failure
   * counts against the address, and past its allowance the answer is 429.
   */
  const client = async (c: Context<HttpEnv>, form: Form): Promise<OAuthClient> => {
    const address = failedAuth.clientOf(c);
    try {
      return await clients.authenticate(credentials(c, form));
    } catch (err) {
      if (err instanceof OAuthError && err.error === 'invalid_client') {
        const over = await failedAuth.fail(address, new ApiError('unauthorized'));
        if (over.code === 'rate_limit_exceeded') throw new OAuthError('invalid_client', err.message, 429);
      }
      throw err;
    }
  };

  const optional = (form: Form, name: string) => form.get(name);

  app.post('/oauth/token', async (c) => {
    try {
      const form = await readForm(c);
      const grantType = form.get('grant_type');
      if (!grantType) throw new OAuthError('invalid_request', 'grant_type is missing.');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
        throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported.`);
      const who = await client(c, form);
      const answer =
        grantType === 'authorization_code'
          ? await tokens.exchangeCode(who, {
              code: optional(form, 'code'),
              redirectUri: optional(form, 'redirect_uri'),
              codeVerifier: optional(form, 'code_verifier'),
              resource: optional(form, 'resource'),
            })
          : await tokens.refresh(who, {
              refreshToken: optional(form, 'refresh_token'),
              scope: optional(form, 'scope'),
              resource: optional(form, 'resource'),
            });
      return c.json(answer, 200, NO_STORE);
    } catch (err) {
      return fail(c, err);
    }
  });

  app.post('/oauth/register', async (c) => {
    try {
      const decision = await registrations.take(failedAuth.clientOf(c), REGISTRATIONS_PER_MINUTE);
      if (!decision.allowed)
        return c.json(
          { error: 'too_many_requests', error_description: 'Too many registrations; wait a minute.' },
          429,
          {
            ...NO_STORE,
            'retry-after': String(decision.retryAfter),
          },
        );
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json')
        throw new OAuthError('invalid_client_metadata', 'The registration must be JSON (application/json).');
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        throw new OAuthError('invalid_client_metadata', 'The registration is not valid JSON.');
      }
      return c.json(await registerClient(engine.db, engine.clock, body), 201, NO_STORE);
    } catch (err) {
      return fail(c, err);
    }
  });

  app.post('/oauth/revoke', async (c) => {
    try {
      const form = await readForm(c);
      const who = await client(c, form);
      const token = form.get('token');
      if (!token) throw new OAuthError('invalid_request', 'token is missing.');
      await tokens.revoke(who, token);
      return c.body(null, 200, NO_STORE);
    } catch (err) {
      return fail(c, err);
    }
  });
}
