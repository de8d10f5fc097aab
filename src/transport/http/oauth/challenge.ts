/**
 * `WWW-Authenticate` challenges of the protected resource (RFC 6750 §3, RFC 9728 §5.1): a 401 from `/mcp` points to
 * the resource metadata, so an MCP client can discover how to get a token, and adds `error="invalid_token"` when a
 * token was sent but failed; REST's 401 keeps its plain `Bearer` challenge (its clients hold keys). A 403 for a
 * missing scope, on either, says `error="insufficient_scope"` with the scope needed.
 */
import type { Context } from 'hono';
import type { ApiError } from '../../../errors.ts';
import type { OAuthServices } from '../../../engine/oauth/services.ts';
import { baseUrlOf, resourceMetadataUrl } from './urls.ts';

const quoted = (v: string) => `"${v.replace(/["\\]/g, '')}"`;

/** The challenge header for an error answer, or null (OAuth off, or not an authentication or scope error). */
export function challengeFor(c: Context, oauth: OAuthServices | null, err: ApiError): string | null {
  if (!oauth || oauth.mode === 'off') return null;
  const params = [`resource_metadata=${quoted(resourceMetadataUrl(baseUrlOf(c, oauth), c.req.path))}`];
  if (err.code === 'unauthorized') {
    if (c.req.path !== '/mcp') return null;
    if (c.req.header('authorization')) params.push('error="invalid_token"');
  } else if (err.code === 'forbidden' && typeof err.details?.required_scope === 'string') {
    params.push('error="insufficient_scope"', `scope=${quoted(err.details.required_scope)}`);
  } else {
    return null;
  }
  return `Bearer ${params.join(', ')}`;
}
