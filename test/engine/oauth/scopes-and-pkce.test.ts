import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseScopes } from '../../../src/engine/oauth/authorization.ts';
import { OAuthError } from '../../../src/engine/oauth/errors.ts';
import { isValidChallenge, pkceMatches } from '../../../src/engine/oauth/secrets.ts';
import { isMetadataDocumentId, redirectUriProblem } from '../../../src/engine/oauth/clients.ts';

describe('OAuth request rules (docs/oauth.md)', () => {
  it('scopes: ours are kept, OpenID ones ignored, anything else is invalid_scope', () => {
    expect(parseScopes(undefined)).toBeNull();
    expect(parseScopes('openid offline_access')).toBeNull();
    expect(parseScopes('optimize:read  openid optimize:read clients:write')).toEqual([
      'optimize:read',
      'clients:write',
    ]);
    expect(() => parseScopes('optimize:read admin')).toThrow(OAuthError);
    try {
      parseScopes('admin');
    } catch (err) {
      expect((err as OAuthError).error).toBe('invalid_scope');
    }
  });

  it('PKCE: S256 of the verifier only; a short, long or foreign verifier fails', () => {
    const verifier = 'a'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    expect(isValidChallenge(challenge)).toBe(true);
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches('b'.repeat(43), challenge)).toBe(false);
    expect(pkceMatches('a'.repeat(42), createHash('sha256').update('a'.repeat(42)).digest('base64url'))).toBe(false);
    expect(pkceMatches('a'.repeat(129), createHash('sha256').update('a'.repeat(129)).digest('base64url'))).toBe(false);
    // `plain` would send the verifier itself as the challenge: it never matches.
    expect(pkceMatches(verifier, verifier)).toBe(false);
    expect(isValidChallenge(verifier + '!')).toBe(false);
  });

  it('redirect URIs: https, loopback http or a reverse-domain scheme; no fragment, credentials or web schemes', () => {
    expect(redirectUriProblem('https://claude.ai/api/mcp/auth_callback')).toBeNull();
    expect(redirectUriProblem('http://127.0.0.1:33418/callback')).toBeNull();
    expect(redirectUriProblem('http://localhost/cb')).toBeNull();
    expect(redirectUriProblem('com.example.app:/callback')).toBeNull();
    expect(redirectUriProblem('http://example.com/cb')).toMatch(/loopback/);
    expect(redirectUriProblem('https://example.com/cb#x')).toMatch(/fragment/);
    expect(redirectUriProblem('https://u:p@example.com/cb')).toMatch(/credentials/);
    expect(redirectUriProblem('javascript:alert(1)')).toMatch(/scheme/);
    expect(redirectUriProblem('data:text/html,x')).toMatch(/scheme/);
    expect(redirectUriProblem('/relative')).toMatch(/absolute/);
  });

  it('client ID metadata document ids: https with a path, no fragment, credentials or dot segments', () => {
    expect(isMetadataDocumentId('https://app.example.com/oauth/client.json')).toBe(true);
    expect(isMetadataDocumentId('https://app.example.com/')).toBe(false);
    expect(isMetadataDocumentId('http://app.example.com/client.json')).toBe(false);
    expect(isMetadataDocumentId('https://app.example.com/a/../client.json')).toBe(false);
    expect(isMetadataDocumentId('https://u:p@app.example.com/client.json')).toBe(false);
    expect(isMetadataDocumentId('https://app.example.com/client.json#x')).toBe(false);
    expect(isMetadataDocumentId('mcp_abc')).toBe(false);
  });
});
