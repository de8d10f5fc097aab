import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../../errors.ts';
import type { HttpEnv } from './guards.ts';
import { errorResponse } from './respond.ts';

/** Largest request body accepted on any route (REST and MCP): 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * 413 `payload_too_large` for a body over the limit, by Content-Length or while streaming. The rest of the body is
 * not read, so the connection cannot be reused: `Connection: close` tells the client (otherwise its next request on
 * the kept-alive socket is reset instead of answered).
 */
export const bodyLimitMiddleware = (): MiddlewareHandler<HttpEnv> => {
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => errorResponse(c, new ApiError('payload_too_large'), { Connection: 'close' }),
  });
  // GET and HEAD carry no body; checking one would build the full Request object on every read. A request into an MCP
  // session that declares a length within the limit is passed on unwrapped: the SDK transport reads it with the same
  // cap. Anything else (no length, chunked, too long) is counted here and answered with our 413.
  const declaredFits = (c: Parameters<MiddlewareHandler<HttpEnv>>[0]) => {
    const length = c.req.header('content-length');
    return (
      length !== undefined &&
      /^\d+$/.test(length) &&
      Number(length) <= MAX_BODY_BYTES &&
      !c.req.header('transfer-encoding')
    );
  };
  return (c, next) =>
    c.req.method === 'GET' ||
    c.req.method === 'HEAD' ||
    (c.req.path === '/mcp' && c.req.header('mcp-session-id') && declaredFits(c))
      ? next()
      : limit(c, next);
};
