/**
 * What the OAuth endpoints and the request authentication share (docs/oauth.md): the mode, the public URL, and the
 * parts of the mode in use. Built once by the composition root.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Db } from '../../store/db.ts';
import { getOrganisation } from '../../store/repos/organisations.ts';
import type { Principal } from '../accounts/auth.ts';
import { PLAN_LIMITS } from '../accounts/plans.ts';
import { expandScopes } from '../accounts/scopes.ts';
import type { ClientDirectory } from './clients.ts';
import type { ExternalClaims, ExternalIssuer } from './external-issuer.ts';
import type { TokenService } from './tokens.ts';

export type OAuthMode = 'builtin' | 'external' | 'off';

export interface OAuthServices {
  mode: OAuthMode;
  /** AGENT_API_PUBLIC_URL without a trailing slash, or null (then each request's Host names the server). */
  publicUrl: string | null;
  /** Built-in mode. */
  clients: ClientDirectory | null;
  tokens: TokenService | null;
  /** External mode: the provider's verifier and the audience its tokens must carry (null: the resource URL). */
  external: ExternalIssuer | null;
  externalAudience: string | null;
  close(): Promise<void>;
}

/**
 * The principal of a verified external token: the organisation its claim names (401 when there is none), the
 * organisation's plan, the token's scopes, and a rate-limit identity per subject and client (the grant).
 */
export async function externalPrincipal(db: Db, claims: ExternalClaims, issuer: string): Promise<Principal> {
  const org = await getOrganisation(db, claims.orgId);
  if (!org) throw new ApiError('unauthorized', 'The access token names an organisation this server does not have.');
  const grant = createHash('sha256')
    .update(`${issuer}\u0000${claims.subject}\u0000${claims.clientId ?? ''}`)
    .digest('base64url')
    .slice(0, 22);
  return {
    orgId: org.id,
    keyId: `ext_${grant}`,
    scopes: expandScopes(claims.scopes),
    plan: org.plan,
    subscriptionActive: org.subscription_status === 'active',
    ratePerMinute: PLAN_LIMITS[org.plan].ratePerMinute,
    via: 'oauth',
  };
}
