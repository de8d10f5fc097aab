/**
 * `GET /oauth/authorize` shows the consent page for a checked authorization request; `POST /oauth/authorize` is the
 * person's decision. Approval needs an API key of the organisation, refused and limited per address exactly like the
 * console's sign-in. The answer goes back to the client's registered redirect URI with `code` (or `error`), the
 * client's `state` and this server's `iss` (RFC 9207).
 */
import type { Context, Hono } from 'hono';
import { ApiError } from '../../../errors.ts';
import { authenticate, type Principal } from '../../../engine/accounts/auth.ts';
import { isWellFormedApiKey } from '../../../engine/accounts/api-keys.ts';
import type { Engine } from '../../../engine/engine.ts';
import {
  AUTHORIZATION_PARAMS,
  checkAuthorizationRequest,
  grantableScopes,
  issueCode,
  type AuthorizationCheck,
  type AuthorizationRequest,
} from '../../../engine/oauth/authorization.ts';
import { OAuthError } from '../../../engine/oauth/errors.ts';
import type { OAuthServices } from '../../../engine/oauth/services.ts';
import type { HttpEnv } from '../guards.ts';
import type { FailedAuthLimiter } from '../request-auth.ts';
import type { Html } from '../console/layout.ts';
import { authorizationErrorPage, consentPage } from './consent-page.ts';
import { baseUrlOf, resourceUrls } from './urls.ts';

/** The page's security headers: the console's, with the form allowed to land on the client's redirect URI. */
function securityHeaders(redirectUri: string | null): Record<string, string> {
  let target = '';
  if (redirectUri) {
    const url = new URL(redirectUri);
    target = ` ${url.host ? url.origin : url.protocol}`;
  }
  return {
    'content-security-policy': `default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'${target}; frame-ancestors 'none'; base-uri 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}

export function mountAuthorize(
  app: Hono<HttpEnv>,
  deps: { engine: Engine; oauth: OAuthServices; failedAuth: FailedAuthLimiter },
): void {
  const { engine, oauth, failedAuth } = deps;
  const clients = oauth.clients!;

  const render = (c: Context<HttpEnv>, body: Html, status: 200 | 400 | 401 | 429, redirectUri: string | null) =>
    c.html(body as Parameters<typeof c.html>[0], status, securityHeaders(redirectUri));

  /** 303 to the client's redirect URI with the answer's parameters, its state and our issuer. */
  const back = (c: Context<HttpEnv>, redirectUri: string, state: string | null, answer: Record<string, string>) => {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(answer)) url.searchParams.set(k, v);
    if (state !== null) url.searchParams.set('state', state);
    url.searchParams.set('iss', baseUrlOf(c, oauth));
    return c.redirect(url.toString(), 303);
  };

  const check = (c: Context<HttpEnv>, params: Record<string, readonly string[]>) =>
    checkAuthorizationRequest(clients, params, resourceUrls(baseUrlOf(c, oauth)));

  /** Answers a check that failed: the error page, or the error sent back to the client. */
  const refuse = (c: Context<HttpEnv>, checked: Exclude<AuthorizationCheck, { ok: unknown }>) =>
    'fatal' in checked
      ? render(c, authorizationErrorPage(checked.fatal.message), 400, null)
      : back(c, checked.redirect.redirectUri, checked.redirect.state, checked.redirect.error.toBody());

  app.get('/oauth/authorize', async (c) => {
    const checked = await check(c, c.req.queries());
    if (!('ok' in checked)) return refuse(c, checked);
    return render(c, consentPage(checked.ok, null), 200, checked.ok.redirectUri);
  });

  app.post('/oauth/authorize', async (c) => {
    const form = await c.req.parseBody({ all: true });
    const values = (name: string): string[] => {
      const v = form[name];
      return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string');
    };
    const params = Object.fromEntries(
      AUTHORIZATION_PARAMS.map((n) => [n, values(n)] as const).filter(([, v]) => v.length > 0),
    );
    const checked = await check(c, params);
    if (!('ok' in checked)) return refuse(c, checked);
    const request = checked.ok;
    const decision = values('decision')[0];
    if (decision === 'deny')
      return back(c, request.redirectUri, request.state, {
        error: 'access_denied',
        error_description: 'The person denied the request.',
      });
    if (decision !== 'approve')
      return render(c, consentPage(request, 'Choose Approve or Deny.'), 400, request.redirectUri);

    const apiKey = (values('api_key')[0] ?? '').trim();
    const approved = await approvingKey(c, request, apiKey);
    if (!('principal' in approved)) return approved.response;
    const scopes = grantableScopes(request, approved.principal);
    if (scopes.length === 0) {
      const none = new OAuthError('invalid_scope', 'The API key that approved holds none of the requested scopes.');
      return back(c, request.redirectUri, request.state, none.toBody());
    }
    const code = await issueCode(engine.db, engine.clock, request, { apiKey, principal: approved.principal, scopes });
    return back(c, request.redirectUri, request.state, { code });
  });

  /** The key that approves: a valid, active key of the organisation, limited per address like the sign-in. */
  async function approvingKey(
    c: Context<HttpEnv>,
    request: AuthorizationRequest,
    apiKey: string,
  ): Promise<{ principal: Principal } | { response: Response | Promise<Response> }> {
    const address = failedAuth.clientOf(c);
    const again = (message: string, status: 401 | 429) => ({
      response: render(c, consentPage(request, message), status, request.redirectUri),
    });
    if (!isWellFormedApiKey(apiKey) && !(await failedAuth.allows(address)))
      return again('Too many failed attempts; wait a minute.', 429);
    try {
      return { principal: await authenticate(engine.db, engine.clock, apiKey) };
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'unauthorized')) throw err;
      return (await failedAuth.fail(address, err)).code === 'rate_limit_exceeded'
        ? again('Too many failed attempts; wait a minute.', 429)
        : again('That is not a valid, active API key.', 401);
    }
  }
}
