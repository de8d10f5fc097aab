import type { Context, Hono } from 'hono';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type Server,
} from '@modelcontextprotocol/server';
import { ApiError } from '../../errors.ts';
import type { Principal } from '../../engine/accounts/auth.ts';
import type { Engine } from '../../engine/engine.ts';
import type { AnyOperation } from '../../tools/define.ts';
import type { Toolset } from '../../tools/toolsets.ts';
import { buildMcpServer, type ToolExtra } from '../mcp/server.ts';
import { malformedCall, meterMessage, rateRefusal, refusalMessage, type RpcRefusal } from '../mcp/message-guard.ts';
import type { HttpEnv } from './guards.ts';
import { errorHeaders } from './headers.ts';
import { authenticateRequest, type FailedAuthLimiter } from './request-auth.ts';
import { MAX_BODY_BYTES } from './limits.ts';
import type { OAuthServices } from '../../engine/oauth/services.ts';

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** The key that created the session: only it may use the session (sessions are not authentication). */
  keyId: string;
  /** When a request last used the session (the engine's clock). */
  lastSeen: number;
}

/** Bounds on MCP sessions and messages (docs/reliability.md I.1-I.4). */
export interface McpHttpLimits {
  /** Live sessions per key; over it, the key's least recently used session is closed. */
  maxSessionsPerKey: number;
  /** Live sessions in all; over it, `initialize` answers 429 until one closes or idles out. */
  maxSessions: number;
  /** A session unused this long is closed. */
  idleMs: number;
  /** JSON-RPC messages in one batch. */
  maxBatch: number;
}

export const DEFAULT_MCP_LIMITS: McpHttpLimits = {
  maxSessionsPerKey: 16,
  maxSessions: 4096,
  idleMs: 10 * 60_000,
  maxBatch: 10,
};

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** JSON-RPC error answers to refused messages: one object, or an array for a batch. */
function refusals(status: number, list: RpcRefusal[], batch: boolean, headers: Record<string, string> = {}) {
  const body = list.map(refusalMessage);
  return new Response(JSON.stringify(batch ? body : body[0]), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** What mountMcpHttp serves MCP with. */
export interface McpHttpDeps {
  engine: Engine;
  operations: readonly AnyOperation[];
  version: string;
  failedAuth: FailedAuthLimiter;
  /** The toolsets served over MCP (AGENT_API_TOOLSETS); empty: every operation. */
  toolsets?: readonly Toolset[];
  /** A tool result's text (AGENT_API_MCP_TEXT). */
  textMode?: 'summary' | 'json';
  limits?: Partial<McpHttpLimits>;
  /** OAuth for remote MCP clients (docs/oauth.md); null: API keys only. */
  oauth?: OAuthServices | null;
}

/** The live 2025-11-25 sessions, bounded per key and in all, closed when idle. */
interface SessionTable {
  sessions: Map<string, Session>;
  /** Room for one more session of `keyId`: its least recently used sessions close past the per-key cap. */
  makeRoom(keyId: string): boolean;
  /** Stops the idle sweep. */
  stopSweep(): void;
  /** Closes every session. */
  closeAll(): Promise<void>;
}

/** A table of sessions whose idle ones a timer closes (and every new session's room check first). */
function createSessionTable(now: () => number, limits: McpHttpLimits): SessionTable {
  const sessions = new Map<string, Session>();
  const closeSession = (id: string) => {
    const s = sessions.get(id);
    sessions.delete(id);
    void s?.transport.close().catch(() => undefined);
  };
  /** Closes sessions idle past the limit; runs on a timer and before every new session. */
  const sweep = () => {
    const cutoff = now() - limits.idleMs;
    for (const [id, s] of sessions) if (s.lastSeen < cutoff) closeSession(id);
  };
  const timer = setInterval(sweep, Math.min(60_000, limits.idleMs));
  timer.unref();
  return {
    sessions,
    makeRoom(keyId) {
      sweep();
      const own = [...sessions].filter(([, s]) => s.keyId === keyId).sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
      for (let i = 0; i <= own.length - limits.maxSessionsPerKey; i++) closeSession(own[i]![0]);
      return sessions.size < limits.maxSessions;
    },
    stopSweep() {
      clearInterval(timer);
    },
    async closeAll() {
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
    },
  };
}

/** A check for the scope a tools/call message needs that the principal lacks (null when it has it). */
function scopeChecker(
  operations: readonly AnyOperation[],
): (m: Record<string, unknown>, principal: Principal) => string | null {
  const scopeOfTool = new Map(operations.map((op) => [op.name, op.scope]));
  return (m, principal) => {
    if (m.method !== 'tools/call') return null;
    const scope = scopeOfTool.get((m.params as { name?: unknown } | undefined)?.name as string);
    return scope && !principal.scopes.has(scope) ? scope : null;
  };
}

/** The MCP SDK's view of an authenticated request: its key, scopes and the signal of the exchange ending. */
function authInfo(principal: Principal, token: string, closed: AbortSignal): AuthInfo {
  return { token, clientId: principal.keyId, scopes: [...principal.scopes], extra: { principal, closed } };
}

/** The key a request was authenticated as (every HTTP request is, before it reaches an MCP server). */
function principalOf(info: AuthInfo | undefined): Principal {
  const p = info?.extra?.principal as Principal | undefined;
  if (!p) throw new ApiError('unauthorized');
  return p;
}

/** Aborts when the HTTP exchange ends (its response is done or the client went away). */
function exchangeClosed(c: Context<HttpEnv>): AbortSignal {
  const abort = new AbortController();
  const outgoing = (c.env as { outgoing?: { once(e: 'close', f: () => void): void } } | undefined)?.outgoing;
  outgoing?.once('close', () => abort.abort());
  return abort.signal;
}

/**
 * The 2026-07-28 era: stateless, one server per request, built for the key that request was authenticated as.
 * Nothing outlives the request, so any process of the installation can answer any request.
 */
function modernHandler(deps: McpHttpDeps, taskResultsPending: Map<string, number>) {
  return createMcpHandler(
    ({ authInfo: info }) => {
      const principal = principalOf(info);
      return buildMcpServer({
        engine: deps.engine,
        operations: deps.operations,
        version: deps.version,
        era: 'modern',
        toolsets: deps.toolsets,
        textMode: deps.textMode,
        resolvePrincipal: async () => principal,
        taskPrincipal: async () => principal,
        taskResultsPending,
      });
    },
    { legacy: 'reject', maxRequestBodySize: MAX_BODY_BYTES },
  );
}

/** A request's parsed body and its JSON-RPC messages (none for DELETE), or the error answer to a bad body. */
async function readMessages(
  c: Context<HttpEnv>,
  maxBatch: number,
): Promise<{ body: unknown; messages: Record<string, unknown>[] } | Response> {
  if (c.req.method !== 'POST') return { body: undefined, messages: [] };
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return rpcError(400, -32700, 'Parse error: the body is not valid JSON');
  }
  const list = Array.isArray(body) ? body : [body];
  if (list.length > maxBatch)
    return rpcError(400, -32600, `Invalid Request: a batch holds at most ${maxBatch} messages`);
  return { body, messages: list.filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null) };
}

/**
 * The answer refusing a request's messages (over the rate limit, malformed, or beyond an OAuth grant's scope), or
 * null when they may go on.
 */
async function refuseMessages(
  engine: Engine,
  principal: Principal,
  body: unknown,
  messages: Record<string, unknown>[],
  missingScope: (m: Record<string, unknown>, principal: Principal) => string | null,
): Promise<Response | null> {
  // Every message counts against the key's rate limit, the session-closing DELETE as one.
  const metered = messages.length ? messages : [{ method: 'session/close' }];
  for (const m of metered) {
    const over = await meterMessage(engine.services, principal, m);
    if (over) return refusals(429, [rateRefusal(m, over)], Array.isArray(body), errorHeaders(over));
  }
  const malformed = messages.map(malformedCall).filter((r): r is RpcRefusal => r !== null);
  if (malformed.length) return refusals(400, malformed, Array.isArray(body));
  // An OAuth client can ask for more scope (step-up), so a call its grant does not cover is the HTTP 403 of the
  // authorization profile, with the scope it needs; a key's call stays a tool error, as before.
  if (principal.via === 'oauth') {
    const lacking = messages.map((m) => missingScope(m, principal)).find((s) => s !== null);
    if (lacking) throw new ApiError('forbidden', `This grant lacks the scope ${lacking}.`, { required_scope: lacking });
  }
  return null;
}

/** Opens a 2025-11-25 session for an `initialize` request of `principal` and answers it. */
async function openSession(
  deps: McpHttpDeps,
  table: SessionTable,
  taskResultsPending: Map<string, number>,
  principal: Principal,
  c: Context<HttpEnv>,
  parsed: { body: unknown; messages: Record<string, unknown>[] },
  info: AuthInfo,
): Promise<Response> {
  const { engine } = deps;
  const { body, messages } = parsed;
  if (c.req.method !== 'POST' || !messages.some((m) => isInitializeRequest(m)))
    return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
  if (!table.makeRoom(principal.keyId)) {
    const busy = new ApiError('rate_limit_exceeded', 'The server holds as many MCP sessions as it may; retry later.', {
      retry_after_seconds: 60,
    });
    return refusals(429, [rateRefusal(messages[0]!, busy)], Array.isArray(body), { 'Retry-After': '60' });
  }
  const server = buildMcpServer({
    engine,
    operations: deps.operations,
    version: deps.version,
    era: 'legacy',
    toolsets: deps.toolsets,
    textMode: deps.textMode,
    resolvePrincipal: async (ctx: ToolExtra) => principalOf(ctx.http?.authInfo),
    // Every HTTP request is authenticated before it reaches the session, and a session is bound to one key.
    taskPrincipal: async () => principal,
    taskResultsPending,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    maxRequestBodySize: MAX_BODY_BYTES,
    onsessioninitialized: (id) => {
      table.sessions.set(id, { transport, server, keyId: principal.keyId, lastSeen: engine.clock.now() });
    },
    onsessionclosed: (id) => {
      table.sessions.delete(id);
    },
  });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw, { parsedBody: body, authInfo: info });
}

/**
 * MCP Streamable HTTP at `/mcp`, on the same server and keys as REST. Every request is authenticated with its Bearer
 * key; a session belongs to the key that initialised it, and another key (or an unknown session) gets 404. Every
 * JSON-RPC message counts against the key's rate limit (tool calls in the operation itself), batches are capped,
 * sessions are capped per key and in all and close when idle. There is no standalone server-to-client stream, so GET
 * answers 405; progress travels on each call's own response stream.
 */
export function mountMcpHttp(app: Hono<HttpEnv>, deps: McpHttpDeps) {
  const { engine } = deps;
  const limits = { ...DEFAULT_MCP_LIMITS, ...deps.limits };
  const missingScope = scopeChecker(deps.operations);
  const table = createSessionTable(() => engine.clock.now(), limits);
  /** tasks/result calls waiting per key, across all of the key's sessions. */
  const taskResultsPending = new Map<string, number>();
  const modern = modernHandler(deps, taskResultsPending);

  app.get('/mcp', () => new Response(null, { status: 405, headers: { Allow: 'POST, DELETE' } }));

  app.on(['POST', 'DELETE'], '/mcp', async (c) => {
    const principal = await authenticateRequest(engine, deps.failedAuth, c, deps.oauth ?? null);
    const token = (c.req.header('authorization') ?? '').replace(/^Bearer\s+/i, '');
    const sessionId = c.req.header('mcp-session-id');
    const session = sessionId ? table.sessions.get(sessionId) : undefined;
    if (sessionId && (!session || session.keyId !== principal.keyId)) return rpcError(404, -32001, 'Session not found');

    const parsed = await readMessages(c, limits.maxBatch);
    if (parsed instanceof Response) return parsed;
    const { body, messages } = parsed;
    const refused = await refuseMessages(engine, principal, body, messages, missingScope);
    if (refused) return refused;

    const info = authInfo(principal, token, exchangeClosed(c));
    // A request with the 2026-07-28 `_meta` envelope is the modern era's; everything else is a 2025-11-25 session's.
    if (!sessionId && c.req.method === 'POST' && !(await isLegacyRequest(c.req.raw, body)))
      return modern.fetch(c.req.raw, { parsedBody: body, authInfo: info });
    if (session) {
      session.lastSeen = engine.clock.now();
      return session.transport.handleRequest(c.req.raw, { parsedBody: body, authInfo: info });
    }
    return openSession(deps, table, taskResultsPending, principal, c, parsed, info);
  });

  return {
    sessionCount: () => table.sessions.size,
    async close(): Promise<void> {
      table.stopSweep();
      await modern.close();
      await table.closeAll();
    },
  };
}
