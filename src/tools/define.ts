import type { z } from 'zod';
import type { ErrorCode } from '../errors.ts';
import type { Principal } from '../engine/accounts/auth.ts';
import type { Scope } from '../engine/accounts/scopes.ts';
import type { StoredResult } from '../engine/platform/idempotency.ts';
import type { EngineServices } from '../engine/engine.ts';
import type { ReadDb, TxDb } from '../store/db.ts';

/** Which family an operation belongs to: it decides the validation error code and the subscription answer. */
export type Family = 'copywriter' | 'autopilot' | 'optimize' | 'usage' | 'clients' | 'tracker' | 'prospector';

export interface ToolAnnotations<R extends boolean = boolean> {
  /** True for operations that only read: their handler gets the root connection and no transaction. */
  readOnlyHint: R;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Reports progress to a caller that asked for it (MCP progress notifications); absent otherwise. */
export type ProgressReporter = (progress: number, total: number | undefined, message: string) => Promise<void>;

/** What every step of an operation sees: the caller, the engine's services (never its root connection), the call. */
export interface CallContext {
  principal: Principal;
  engine: EngineServices;
  requestId: string;
  idempotencyKey: string | null;
  signal: AbortSignal;
  progress: ProgressReporter | null;
}

/** A reading handler's context, and what replays and follows get after a write committed: the root connection. */
export interface ReadContext extends CallContext {
  db: ReadDb;
}

/**
 * A writing handler's context: its only database is the operation's transaction, so it cannot query the root
 * connection (which would wait for the transaction it is inside: a deadlock).
 */
export interface WriteContext extends CallContext {
  db: TxDb;
  /** Runs after the operation's transaction committed (e.g. wake the runner). */
  afterCommit(fn: () => void): void;
}

/** The context of a handler: a write context unless the operation is read-only. */
export type HandlerContext<R extends boolean> = R extends true ? ReadContext : WriteContext;

/**
 * A document answered instead of JSON: its media type (with charset, as sent in Content-Type) and its text.
 */
export interface RenderedDocument {
  mediaType: string;
  text: string;
}

/**
 * An operation's answers besides JSON. The handler still answers the JSON body (validated, replayed and typed by
 * `output` as usual); `document` turns a body into the document it stands for, or null when the body is plain JSON.
 * REST sends the document as the response body with its media type; MCP sends it as the tool result's text content
 * and keeps the JSON body as structured content.
 */
export interface RenderSpec<B> {
  /** The media types `document` can answer (documented in OpenAPI next to application/json). */
  mediaTypes: readonly string[];
  document(body: B): RenderedDocument | null;
}

/** A handler answers its body, or a status and body when the status differs from the route's default. */
export type HandlerResult<O> = O | { status: number; body: O; resourceId?: string | null };

export interface OperationDef<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
  R extends boolean = boolean,
> {
  /** The MCP tool name (snake_case, verb first). */
  name: string;
  title: string;
  description: string;
  family: Family;
  http: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; status: number; replayStatus?: number };
  /** The scope the key needs; null means any valid key. */
  scope: Scope | null;
  /** The answer when the organisation has no active subscription; null when reads keep working. */
  subscription: null | 'plan_required' | 'subscription_required';
  idempotency: 'required' | 'optional' | 'none';
  input: I;
  output: O;
  /** The errors this operation can answer besides the ones every authenticated call can (documented in OpenAPI). */
  errors: readonly ErrorCode[];
  annotations: ToolAnnotations<R>;
  /**
   * Checks beyond the schema that need the engine (e.g. the SSRF URL check): field errors answer 400 before any
   * transaction, reservation or run exists.
   */
  validate?(ctx: CallContext, input: z.output<I>): { path: string; message: string }[];
  handler(ctx: HandlerContext<R>, input: z.output<I>): Promise<HandlerResult<z.input<O>>>;
  /** When the caller asked for progress (MCP progress token): follow the work after commit, answer the body then. */
  follow?(ctx: ReadContext, body: z.input<O>): Promise<z.input<O>>;
  /** On an idempotent replay, the body to answer (e.g. the resource's current state); default: the stored body. */
  replay?(ctx: ReadContext, stored: StoredResult): Promise<z.input<O>>;
  /**
   * MCP task support for long work: a task-augmented call creates the resource as usual and answers a task that
   * follows it (the resource's durable run is the task's work).
   */
  task?: { kind: 'optimization' | 'content_job' | 'autopilot'; idOf(body: z.input<O>): string };
  /** Answers other than JSON, chosen by the input (e.g. `format=markdown`) and carried in the body (optional). */
  render?: RenderSpec<z.input<O>>;
  /**
   * Arguments an MCP call gets when it leaves them out (optional). An assistant pays for every byte of an answer in
   * its context, so a tool may answer less by default over MCP than its REST route, whose default answer is the
   * contract REST clients were built on; the caller can still ask for the rest by naming the argument.
   */
  mcpDefaults?: Partial<z.input<I>>;
}

/** Declares an operation; the identity function gives type inference between schemas and handler. */
export function defineOperation<I extends z.ZodObject, O extends z.ZodType, R extends boolean>(
  def: OperationDef<I, O, R>,
): OperationDef<I, O, R> {
  return def;
}

/** Any operation, for the registry and the adapters. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = OperationDef<any, any, any>;

export function isHandlerEnvelope(v: unknown): v is { status: number; body: unknown; resourceId?: string | null } {
  return (
    typeof v === 'object' &&
    v !== null &&
    'status' in v &&
    'body' in v &&
    Object.keys(v).every((k) => ['status', 'body', 'resourceId'].includes(k))
  );
}
