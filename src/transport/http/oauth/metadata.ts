/**
 * Discovery documents: the protected resource metadata (RFC 9728) at the server's root and for `/mcp`, naming the
 * authorization server (this server, or the external issuer), and in built-in mode the authorization server's
 * metadata (RFC 8414). They are public and cacheable, and readable from any origin (browser-based MCP clients).
 */
import type { Hono } from 'hono';
import { SCOPES } from '../../../engine/accounts/scopes.ts';
import type { OAuthServices } from '../../../engine/oauth/services.ts';
import { AUTH_METHODS } from '../../../engine/oauth/clients.ts';
import type { HttpEnv } from '../guards.ts';
import { AUTHORIZATION_SERVER_PATH, baseUrlOf, PROTECTED_RESOURCE_PATH, resourceUrls } from './urls.ts';

const PUBLIC = { 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' };

export function mountMetadata(app: Hono<HttpEnv>, oauth: OAuthServices, version: string): void {
  const resourceDocument = (base: string, resource: string) => ({
    resource,
    authorization_servers: [oauth.external ? oauth.external.issuer : base],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'agent-api',
    resource_documentation: `${base}/openapi.json`,
  });

  app.get(PROTECTED_RESOURCE_PATH, (c) => {
    const base = baseUrlOf(c, oauth);
    return c.json(resourceDocument(base, resourceUrls(base)[1]), 200, PUBLIC);
  });
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, (c) => {
    const base = baseUrlOf(c, oauth);
    return c.json(resourceDocument(base, resourceUrls(base)[0]), 200, PUBLIC);
  });
  if (oauth.mode !== 'builtin') return;
  app.get(AUTHORIZATION_SERVER_PATH, (c) => {
    const base = baseUrlOf(c, oauth);
    return c.json(
      {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: [...AUTH_METHODS],
        revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
        scopes_supported: [...SCOPES],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
        service_documentation: `${base}/openapi.json`,
        agent_api_version: version,
      },
      200,
      PUBLIC,
    );
  });
}
