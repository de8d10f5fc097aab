import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../errors.ts';
import { errorResponse } from './respond.ts';

export type HttpBindings = { incoming: IncomingMessage };
export type HttpVariables = { requestId: string; rateHeaders?: Record<string, string> };
export type HttpEnv = { Bindings: HttpBindings; Variables: HttpVariables };

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-Id: the caller's when it is a sane token, otherwise a new UUID. */
export function requestIdMiddleware(): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const given = c.req.header('x-request-id');
    const id = given && REQUEST_ID_RE.test(given) ? given : crypto.randomUUID();
    c.set('requestId', id);
    await next();
    c.res.headers.set('X-Request-Id', id);
  };
}

/** All values of a header as sent (Node joins repeated headers; rawHeaders keeps them apart). */
export function headerValues(incoming: IncomingMessage | undefined, name: string): string[] {
  if (!incoming) return [];
  const out: string[] = [];
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) out.push(raw[i + 1]!);
  return out;
}

export interface OriginPolicy {
  /** Allowed Host header values (lower-case host:port); null disables the Host check. */
  allowedHosts(): ReadonlySet<string> | null;
  /** Allowed Origin values; a request without Origin (not a browser) passes. */
  allowedOrigins(): ReadonlySet<string>;
}

/**
 * DNS-rebinding and cross-site protection, before anything else (auth, MCP version checks): a Host that is not this
 * server's, or any Origin header that is not allowed (every one of them, when several are sent), answers 403.
 * `openPath` names paths any origin may call (OAuth discovery and machine endpoints): only their Host is checked.
 */
export function originGuard(
  policy: OriginPolicy,
  openPath: (path: string) => boolean = () => false,
): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const hosts = policy.allowedHosts();
    if (hosts) {
      const host = (c.req.header('host') ?? '').toLowerCase();
      if (!hosts.has(host))
        return errorResponse(c, new ApiError('forbidden', 'The Host header does not name this server.'));
    }
    if (openPath(c.req.path)) return next();
    const origins = headerValues(c.env?.incoming, 'origin');
    if (origins.length === 0 && c.req.header('origin')) origins.push(c.req.header('origin')!);
    const allowed = policy.allowedOrigins();
    for (const o of origins.flatMap((v) => v.split(',').map((s) => s.trim()))) {
      if (!allowed.has(o.toLowerCase()))
        return errorResponse(c, new ApiError('forbidden', 'Requests from this Origin are not allowed.'));
    }
    await next();
  };
}

/** The loopback Host and Origin values a server bound to `host:port` answers to. */
export function loopbackNames(host: string, port: number): { hosts: string[]; origins: string[] } {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  if (!names.includes(host) && host !== '::1') names.push(host.includes(':') ? `[${host}]` : host);
  const hosts = names.flatMap((n) => [`${n}:${port}`, ...(port === 80 ? [n] : [])]);
  const origins = names.flatMap((n) => [`http://${n}:${port}`, `https://${n}:${port}`]);
  return { hosts, origins };
}

export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');
}
