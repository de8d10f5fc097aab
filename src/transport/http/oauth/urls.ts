/**
 * The URLs OAuth names this server by (docs/oauth.md "Public URL"): AGENT_API_PUBLIC_URL when set, else the request's
 * own origin (its Host header, which the Host guard has already checked). The server is one protected resource at two
 * URLs, `<base>/mcp` (what MCP clients ask for) and `<base>` (the whole API); tokens are accepted for either.
 */
import type { Context } from 'hono';
import type { OAuthServices } from '../../../engine/oauth/services.ts';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';

export function baseUrlOf(c: Context, oauth: OAuthServices): string {
  if (oauth.publicUrl) return oauth.publicUrl;
  const url = new URL(c.req.url);
  return `${url.protocol}//${url.host}`;
}

/** The resource URLs tokens may be issued for: the MCP endpoint first (the default), then the whole server. */
export function resourceUrls(base: string): [string, string] {
  return [`${base}/mcp`, base];
}

/** The protected resource metadata URL for a request path: MCP's own document for `/mcp`, the server's otherwise. */
export function resourceMetadataUrl(base: string, path: string): string {
  return `${base}${PROTECTED_RESOURCE_PATH}${path === '/mcp' ? '/mcp' : ''}`;
}
