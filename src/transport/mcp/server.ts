import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  Server,
  type CallToolResult,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError, toApiError } from '../../errors.ts';
import type { Principal } from '../../engine/accounts/auth.ts';
import type { Engine } from '../../engine/engine.ts';
import type { AnyOperation, ProgressReporter } from '../../tools/define.ts';
import { invalidInput, invokeOperation, takeRateLimit } from '../../tools/invoke.ts';
import { insertTask } from '../../engine/platform/tasks.ts';
import { iso } from '../../clock.ts';
import { createTaskProtocol } from './tasks.ts';
import { compactInputSchema, compactOutputSchema } from './compact-schema.ts';
import { inToolsets, type Toolset } from '../../tools/toolsets.ts';
import { callLink, resourceLinksFor, serveResources } from './resources.ts';
import { describeCuts, fitToBudget } from './fit.ts';
import { appMetaFor } from './apps.ts';
import { summarize } from './summary.ts';
import { servePrompts } from './prompts.ts';

export type ToolExtra = ServerContext;

/**
 * The protocol era an instance serves: `legacy` is 2025-11-25 (initialize, sessions, MCP tasks), `modern` is
 * 2026-07-28 (stateless, a `_meta` envelope on every request).
 */
export type Era = 'legacy' | 'modern';

export interface McpServerDeps {
  /**
   * The engine, or its promise: stdio answers `initialize` and `tools/list` while the engine still loads (they need
   * only the operations and the key), and the first call that needs the engine waits for it.
   */
  engine: Engine | PromiseLike<Engine>;
  operations: readonly AnyOperation[];
  version: string;
  era: Era;
  /** Who is calling, resolved for every request (so revocation applies at once). */
  resolvePrincipal(extra: ToolExtra): Promise<Principal>;
  /** The key this connection acts as for MCP tasks: its organisation and scopes decide which tasks it sees. */
  taskPrincipal(): Promise<Principal>;
  /** tasks/result calls waiting per key, shared by every session of the process (a fresh map when omitted). */
  taskResultsPending?: Map<string, number>;
  /** The toolsets served (AGENT_API_TOOLSETS); empty or absent: every operation. */
  toolsets?: readonly Toolset[];
  /** A tool result's text: a summary of the body (default) or the body as JSON (AGENT_API_MCP_TEXT). */
  textMode?: 'summary' | 'json';
}

/** How often task-augmented callers are told to poll, and how long finished tasks stay listed by default. */
const TASK_POLL_MS = 2_000;

const inputSchemas = new WeakMap<AnyOperation, z.ZodObject>();

/** The tool's input: the operation's fields plus `idempotency_key` where the operation takes one (built once). */
export function toolInputSchema(op: AnyOperation): z.ZodObject {
  const cached = inputSchemas.get(op);
  if (cached) return cached;
  const key = z.string().describe('Reuse to retry: the first answer, no new work.');
  const schema: z.ZodObject =
    op.idempotency === 'none'
      ? op.input
      : op.input.extend({ idempotency_key: op.idempotency === 'required' ? key : key.optional() });
  inputSchemas.set(op, schema);
  return schema;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/**
 * Every tool's output schema: an open object (compact-schema.ts says why), so the error body of a failed call (its
 * structured content, as REST answers it) validates too: 2025-era clients check structured content against it.
 */
const OUTPUT_SCHEMA = compactOutputSchema() as Tool['outputSchema'];

/** The tool list: compact input and output schemas from the operations (compact-schema.ts). */
const definitionCache = new WeakMap<readonly AnyOperation[], Record<Era, Tool[]>>();

export function toolDefinitions(operations: readonly AnyOperation[], era: Era): Tool[] {
  const cached = definitionCache.get(operations)?.[era];
  if (cached) return cached;
  const tools = operations.map((op) => {
    const app = appMetaFor(op.name);
    return {
      name: op.name,
      title: op.title,
      description: op.description,
      inputSchema: compactInputSchema(jsonSchema(toolInputSchema(op), 'input')) as Tool['inputSchema'],
      outputSchema: OUTPUT_SCHEMA,
      annotations: op.annotations,
      ...(op.task && era === 'legacy' ? { execution: { taskSupport: 'optional' as const } } : {}),
      ...(app ? { _meta: app } : {}),
    };
  });
  // JSON Schema generation is the costly part of opening a session; every session of a process lists the same tools.
  definitionCache.set(operations, { ...definitionCache.get(operations)!, [era]: tools });
  return tools;
}

function progressReporter(ctx: ToolExtra): ProgressReporter | null {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return null;
  return async (progress, total, message) => {
    await ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message },
      })
      .catch(() => undefined);
  };
}

/**
 * One MCP call of one operation: the same rate limit, scopes, validation, idempotency and errors as REST.
 * A failure is an `isError` result carrying the REST error body as structured content.
 */
export async function callOperation(
  deps: McpServerDeps,
  op: AnyOperation,
  args: Record<string, unknown>,
  ctx: ToolExtra,
): Promise<CallToolResult> {
  const requestId = randomUUID();
  const engine = await deps.engine;
  try {
    const principal = await deps.resolvePrincipal(ctx);
    await takeRateLimit(engine.services, principal);
    const { idempotency_key: rawKey, ...given } = args;
    const input = { ...op.mcpDefaults, ...given };
    if (rawKey !== undefined && typeof rawKey !== 'string') {
      throw invalidInput(op.family, [{ path: 'idempotency_key', message: 'Expected a string.' }]);
    }
    const result = await invokeOperation(engine, op, {
      principal,
      input,
      idempotencyKeys: op.idempotency === 'none' || rawKey === undefined ? null : [rawKey],
      requestId,
      signal: ctx.mcpReq.signal,
      progress: progressReporter(ctx),
    });
    // A rendered document (define.ts `render`) is the text content; the JSON body stays the structured content.
    // Otherwise the text is a summary (summary.ts), and big documents are linked as resources (resources.ts). A body
    // too big for an assistant is cut to fit, and a read's full answer is linked (fit.ts).
    const document = op.render?.document(result.body) ?? null;
    const { body, cuts } = fitToBudget(result.body);
    const links = document ? [] : resourceLinksFor(body);
    if (cuts.length && op.annotations.readOnlyHint) links.push(callLink(op.name, input));
    const text = document
      ? document.text
      : deps.textMode === 'json'
        ? JSON.stringify(body)
        : summarize(
            op.title,
            body,
            links.map((l) => l.uri),
          );
    const meta = {
      // REST says Idempotent-Replayed: true; MCP results say it in _meta.
      ...(result.replayed ? { idempotent_replayed: true } : {}),
      ...(cuts.length ? { truncated: cuts } : {}),
    };
    return {
      structuredContent: body as Record<string, unknown>,
      content: [{ type: 'text', text: cuts.length ? `${text}\n${describeCuts(cuts)}` : text }, ...links],
      ...(Object.keys(meta).length ? { _meta: meta } : {}),
    };
  } catch (err) {
    const apiErr = toApiError(err);
    if (!(err instanceof ApiError)) engine.logger.error({ err, tool: op.name, requestId }, 'tool call failed');
    const body = apiErr.toBody();
    return {
      isError: true,
      structuredContent: body as unknown as Record<string, unknown>,
      content: [{ type: 'text', text: `${apiErr.code}: ${apiErr.message}` }],
    };
  }
}

/** How long a 2026-07-28 client may cache a list result of this server. */
const LIST_CACHE = { ttlMs: 5 * 60_000, cacheScope: 'private' as const };

const INSTRUCTIONS =
  'SEO content service: content jobs (research, brief, draft), Autopilot, Optimize (score a page against ranking competitors), a search and AI-answer visibility tracker, outreach lists and client workspaces. Long work is asynchronous: start it, then poll the status tool (it accepts wait_seconds). Writing tools take idempotency_key; reuse it when retrying. Big documents (reports, drafts, briefs) are resources linked from results.';

/** The task methods' parameters (2025-11-25); the SDK v2 no longer types them, so they are registered as schemas. */
const TaskIdParams = z.looseObject({ taskId: z.string() });
const ListTasksParams = z.looseObject({ cursor: z.string().optional() }).optional();
const AnyResult = z.looseObject({});

/**
 * An MCP server exposing every operation as a tool, for one protocol era. It is the SDK's low-level server with our
 * own `tools/list` and `tools/call` handlers: the SDK's high-level call path turns every error into text, while ours
 * keeps the API's error bodies and answers JSON-RPC -32602 for unknown tools and unknown argument names. In the
 * 2025-11-25 era it also serves MCP tasks over the durable runs (tasks.ts).
 */
export function buildMcpServer(deps: McpServerDeps): Server {
  const legacy = deps.era === 'legacy';
  const server = new Server(
    { name: 'agent-api', version: deps.version },
    {
      capabilities: {
        tools: {},
        ...(legacy ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      },
      instructions: INSTRUCTIONS,
      // 2026-07-28 list results say how long a client may keep them: the lists change only with the key's scopes or
      // a new release, and depend on the key (private). resources/read is live data: not cached.
      cacheHints: {
        'tools/list': LIST_CACHE,
        'prompts/list': LIST_CACHE,
        'resources/templates/list': LIST_CACHE,
        'resources/list': LIST_CACHE,
        'server/discover': LIST_CACHE,
      },
    },
  );
  const served = deps.operations.filter((op) => inToolsets(op.family, deps.toolsets ?? []));
  const byName = new Map(served.map((op) => [op.name, op]));
  const definitions = toolDefinitions(deps.operations, deps.era).filter((d) => byName.has(d.name));
  // A key sees the tools its scopes allow; calling another one is still the API's 403 forbidden.
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    const principal = await deps.resolvePrincipal(ctx);
    const allowed = (d: Tool) => {
      const scope = byName.get(d.name)!.scope;
      return scope === null || principal.scopes.has(scope);
    };
    return { tools: definitions.filter(allowed) };
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const op = byName.get(request.params.name);
    if (!op) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const allowed = toolInputSchema(op).shape;
    const unknown = Object.keys(args).filter((k) => !Object.prototype.hasOwnProperty.call(allowed, k));
    if (unknown.length > 0) {
      const fields = unknown.map((k) => ({ path: k, message: 'Unknown field.' }));
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown argument(s) for ${op.name}: ${unknown.join(', ')}`,
        invalidInput(op.family, fields).toBody(),
      );
    }
    const task = (request.params as { task?: { ttl?: number } }).task;
    if (legacy && task && op.task) return startTask(deps, op, args, ctx, task.ttl ?? null);
    return callOperation(deps, op, args, ctx);
  });
  serveResources(server, deps);
  servePrompts(server, { toolsets: deps.toolsets });
  if (legacy) serveTasks(server, deps);
  return server;
}

/** The 2025-11-25 task methods over the durable runs. */
function serveTasks(server: Server, deps: McpServerDeps): void {
  let protocol: ReturnType<typeof createTaskProtocol> | undefined;
  const pending = deps.taskResultsPending ?? new Map<string, number>();
  const tasks = async () => (protocol ??= createTaskProtocol(await deps.engine, deps.taskPrincipal, pending));
  const schemas = { params: TaskIdParams, result: AnyResult };
  // Per the protocol, tasks/get answers carry no related-task metadata: the taskId parameter is the source of truth.
  server.setRequestHandler('tasks/get', schemas, async ({ taskId }) => ({ ...(await (await tasks()).get(taskId)) }));
  server.setRequestHandler('tasks/cancel', schemas, async ({ taskId }) => ({
    _meta: {},
    ...(await (await tasks()).cancel(taskId)),
  }));
  server.setRequestHandler('tasks/list', { params: ListTasksParams, result: AnyResult }, async (params) => ({
    ...(await (await tasks()).list(params?.cursor)),
    _meta: {},
  }));
  // tasks/result, bounded in time and in calls per key, and stopped when the client goes away.
  server.setRequestHandler('tasks/result', schemas, async ({ taskId }, ctx) => {
    const closed = ctx.http?.authInfo?.extra?.closed as AbortSignal | undefined;
    const result = await (await tasks()).result(taskId, closed ? [ctx.mcpReq.signal, closed] : [ctx.mcpReq.signal]);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });
}

/**
 * A task-augmented call of a long-running tool: the resource is created exactly as a plain call creates it (same
 * limits, scopes, validation and idempotency) and the answer is a task that follows it. A call that fails before any
 * work exists is a JSON-RPC error carrying the API error body. The answer carries an empty `content` besides `task`
 * because SDK v2 checks every tools/call answer as a tool result (a 2025-11-25 client reads `task`).
 */
async function startTask(
  deps: McpServerDeps,
  op: AnyOperation,
  args: Record<string, unknown>,
  ctx: ToolExtra,
  ttl: number | null,
) {
  const result = await callOperation(deps, op, args, ctx);
  if (result.isError) {
    const body = result.structuredContent as { error: { message: string } };
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, body.error.message, body);
  }
  const principal = await deps.resolvePrincipal(ctx);
  const engine = await deps.engine;
  const now = engine.clock.now();
  const taskId = await insertTask(
    engine.db,
    {
      orgId: principal.orgId,
      tool: op.name,
      kind: op.task!.kind,
      resourceId: op.task!.idOf(result.structuredContent),
      ttlMs: ttl,
      pollMs: TASK_POLL_MS,
      runScope: op.scope!,
    },
    now,
  );
  return {
    content: [],
    task: { taskId, status: 'working', ttl, createdAt: iso(now), lastUpdatedAt: iso(now), pollInterval: TASK_POLL_MS },
  } as CallToolResult;
}
