import type { Hono } from 'hono';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ApiError } from '../../errors.ts';
import type { Principal } from '../../engine/auth.ts';
import type { Engine } from '../../engine/engine.ts';
import type { AnyOperation } from '../../tools/define.ts';
import { buildMcpServer } from '../mcp/server.ts';
import type { HttpEnv } from './guards.ts';
import { authenticateRequest, type FailedAuthLimiter } from './request-auth.ts';
import { MAX_BODY_BYTES } from './limits.ts';

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** The key that created the session: only it may use the session (sessions are not authentication). */
  keyId: string;
  lastSeen: number;
}

const SESSION_IDLE_MS = 60 * 60_000;

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * MCP Streamable HTTP at `/mcp`, on the same server and keys as REST. Every request is authenticated with its Bearer
 * key; a session belongs to the key that initialised it, and another key (or an unknown session) gets 404. There is
 * no standalone server-to-client stream, so GET answers 405; progress travels on each call's own response stream.
 */
export function mountMcpHttp(
  app: Hono<HttpEnv>,
  deps: { engine: Engine; operations: readonly AnyOperation[]; version: string; failedAuth: FailedAuthLimiter },
) {
  const { engine } = deps;
  const sessions = new Map<string, Session>();

  const sweep = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, s] of sessions)
      if (s.lastSeen < cutoff) void s.transport.close().finally(() => sessions.delete(id));
  }, 60_000);
  sweep.unref();

  const authInfo = (principal: Principal, token: string) => ({
    token,
    clientId: principal.keyId,
    scopes: [...principal.scopes],
    extra: { principal },
  });

  app.get('/mcp', () => new Response(null, { status: 405, headers: { Allow: 'POST, DELETE' } }));

  app.on(['POST', 'DELETE'], '/mcp', async (c) => {
    const principal = await authenticateRequest(engine, deps.failedAuth, c);
    const token = (c.req.header('authorization') ?? '').replace(/^Bearer\s+/i, '');
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session || session.keyId !== principal.keyId) return rpcError(404, -32001, 'Session not found');
      session.lastSeen = Date.now();
      return session.transport.handleRequest(c.req.raw, { authInfo: authInfo(principal, token) });
    }
    if (c.req.method !== 'POST') return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return rpcError(400, -32700, 'Parse error: the body is not valid JSON');
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const server = buildMcpServer({
      engine,
      operations: deps.operations,
      version: deps.version,
      resolvePrincipal: async (extra) => {
        const p = extra.authInfo?.extra?.principal as Principal | undefined;
        if (!p) throw new ApiError('unauthorized');
        return p;
      },
      // Every HTTP request is authenticated before it reaches the session, and a session is bound to one key.
      taskOrg: async () => principal.orgId,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, keyId: principal.keyId, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, { parsedBody: body, authInfo: authInfo(principal, token) });
  });

  return {
    sessionCount: () => sessions.size,
    async close(): Promise<void> {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
    },
  };
}
