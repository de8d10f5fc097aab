import { ProtocolErrorCode as ErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { ApiError } from '../../errors.ts';
import type { Principal } from '../../engine/accounts/auth.ts';
import type { EngineServices } from '../../engine/engine.ts';
import { takeRateLimit } from '../../tools/invoke.ts';

/** A JSON-RPC error answer to one message. */
export interface RpcRefusal {
  id: string | number | null;
  code: number;
  message: string;
  /** The API error body, when the refusal is an API error (rate limit). */
  data?: unknown;
}

type Message = Record<string, unknown>;

const isRequest = (m: Message) => typeof m.method === 'string' && m.id !== undefined;
const idOf = (m: Message): string | number | null =>
  typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;

/**
 * A malformed `tools/call`: the SDK's own validation answers -32603 with a validator dump; this answers -32602 with
 * one sentence, before the call reaches the server.
 */
export function malformedCall(m: Message): RpcRefusal | null {
  if (m.method !== 'tools/call' || !isRequest(m)) return null;
  const params = m.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return { id: idOf(m), code: ErrorCode.InvalidParams, message: 'Invalid params: tools/call needs a params object.' };
  const { name, arguments: args } = params as Message;
  if (typeof name !== 'string' || name.length === 0)
    return {
      id: idOf(m),
      code: ErrorCode.InvalidParams,
      message: 'Invalid params: name must be a tool name (a string).',
    };
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return { id: idOf(m), code: ErrorCode.InvalidParams, message: 'Invalid params: arguments must be an object.' };
  // The SDK rebuilds arguments into a fresh object and would drop this key silently: it is an unknown field.
  if (args !== undefined && Object.prototype.hasOwnProperty.call(args, '__proto__'))
    return {
      id: idOf(m),
      code: ErrorCode.InvalidParams,
      message: `Unknown argument(s) for ${name}: __proto__`,
      data: {
        error: {
          code: 'invalid_input',
          message: 'Invalid input: __proto__.',
          details: { fields: [{ path: '__proto__', message: 'Unknown field.' }] },
        },
      },
    };
  return null;
}

/**
 * Meters one message against the key's rate limit. Every message counts, `initialize`, lists, tasks and `ping`
 * included, except `tools/call`, which the operation invocation meters itself (and answers as a tool error, like REST).
 * Answers the API error when the key is over its limit.
 */
export async function meterMessage(
  engine: Pick<EngineServices, 'rateLimiter' | 'metrics'>,
  principal: Principal,
  m: Message,
): Promise<ApiError | null> {
  if (!isMetered(m)) return null;
  try {
    await takeRateLimit(engine, principal);
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

/** Whether a message counts against the key's limit here (a tool call is metered by its operation). */
export function isMetered(m: Message): boolean {
  return m.method !== 'tools/call';
}

/** A rate-limit refusal as a JSON-RPC error: the API error body travels in `data`. */
export function rateRefusal(m: Message, err: ApiError): RpcRefusal {
  return { id: idOf(m), code: -32000, message: err.message, data: err.toBody() };
}

export function refusalMessage(r: RpcRefusal): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id: r.id as string | number,
    error: { code: r.code, message: r.message, ...(r.data === undefined ? {} : { data: r.data }) },
  };
}

/**
 * A transport with checks in front of it: a message they refuse is answered (requests) or dropped (notifications)
 * without reaching the server. Used for stdio, where there is no HTTP layer to check first.
 */
export class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly inner: Transport,
    private readonly check: (m: Message) => RpcRefusal | null,
    /** Called when the connection closes, whoever serves it. */
    closed: () => void = () => undefined,
  ) {
    inner.onclose = () => {
      this.onclose?.();
      closed();
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const refused = this.check(message as unknown as Message);
      if (!refused) return this.onmessage?.(message, extra);
      if (isRequest(message as unknown as Message)) void inner.send(refusalMessage(refused)).catch(() => undefined);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }
  send(...args: Parameters<Transport['send']>): Promise<void> {
    return this.inner.send(...args);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
