import { randomUUID } from 'node:crypto';
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import type { ErrorCode } from '../../errors.ts';

/** At shutdown, how long requests already in the sockets' buffers get to be read before idle connections close. */
const SHUTDOWN_SETTLE_MS = 50;
/** At shutdown, how long MCP requests get to answer by themselves (woken long-polls) before their streams are ended. */
const MCP_SETTLE_MS = 1_000;
/** How often the drain re-checks its requests and closes connections that became idle. */
const DRAIN_TICK_MS = 20;

/** The API's error body, for answers written before the Hono app runs (or instead of it). */
function errorJson(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/** A complete HTTP/1.1 error answer for a raw socket (the parser refused the request, or it timed out). */
function rawErrorResponse(status: number, code: ErrorCode, message: string): string {
  const body = errorJson(code, message);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Writes an error answer on a request Node parsed but the app does not see, and closes the connection after it. */
function answerError(res: ServerResponse, status: number, code: ErrorCode, message: string): void {
  const body = errorJson(code, message);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': randomUUID(),
    Connection: 'close',
  });
  res.end(body);
}

/** What Node's HTTP parser errors and timeouts answer (Node's own defaults, with the API's body). */
function clientErrorAnswer(err: NodeJS.ErrnoException): [number, ErrorCode, string] {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'invalid_input', 'The request headers or body were not received in time.'];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'invalid_input', 'The request line or headers are too large.'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'payload_too_large', 'The chunk extensions of the request body are too large.'];
    default:
      return [400, 'invalid_input', 'The HTTP request is malformed.'];
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for `promise`, at most `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Polls `done` every DRAIN_TICK_MS until it is true or `deadline` (Date.now() ms) passes; answers `done()`. */
async function until(done: () => boolean, deadline: number): Promise<boolean> {
  while (!done()) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await delay(Math.min(DRAIN_TICK_MS, left));
  }
  return true;
}

/** One turn of the event loop: resolves in the check phase after a whole poll phase (sockets read, one accept). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Accepts the connections waiting in the listen backlog before the listener closes. libuv accepts one connection per
 * event-loop turn, so on a busy process connections the kernel completed before the signal (their requests already
 * sent) can wait there for seconds; closing the listener would reset them. Turns repeat until one accepts nothing
 * (the backlog is empty and what the previous turns accepted has been read) or the grace period ends.
 */
async function acceptBacklog(s: HttpServer, deadline: number): Promise<void> {
  let accepted = 0;
  const count = () => void accepted++;
  s.on('connection', count);
  try {
    await nextTurn();
    for (let before = -1; before !== accepted && Date.now() < deadline;) {
      before = accepted;
      await nextTurn();
    }
  } finally {
    s.off('connection', count);
  }
}

/**
 * @hono/node-server's listener, with an error handler: a request whose Host or target URL it cannot turn into a URL
 * (`Host: bad host`, `GET http://[x/`, a backslash in the path) answers the API's error body, not a bare 400.
 */
function requestListener(fetch: (request: Request) => Response | Promise<Response>, host: string, logger: Logger) {
  return getRequestListener(fetch, {
    hostname: host,
    errorHandler: (err: unknown) => {
      const bad = err instanceof RequestError;
      if (!bad) logger.error({ err }, 'unhandled error outside the HTTP app');
      const [status, code, message]: [number, ErrorCode, string] = bad
        ? [400, 'invalid_input', 'The request target or Host header is malformed.']
        : [500, 'internal_error', 'An internal error occurred.'];
      return new Response(errorJson(code, message), {
        status,
        // A request this malformed ends its connection, as Node's own 400 does.
        headers: { 'Content-Type': 'application/json', 'X-Request-Id': randomUUID(), Connection: 'close' },
      });
    },
  });
}

/** Connections per client address: one address cannot take every connection slot. */
function limitConnectionsPerAddress(s: HttpServer, addressLimit: number): void {
  const perAddress = new Map<string, number>();
  s.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return;
    const open = perAddress.get(address) ?? 0;
    if (open >= addressLimit) return void socket.destroy();
    perAddress.set(address, open + 1);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
}

/**
 * Requests Node's HTTP parser refuses (control characters in headers, malformed lines, an unknown method, headers too
 * large) and requests that time out (headers or body too slow) get the API's error body and a request id; so do
 * CONNECT and an unmet Expect.
 */
function answerProtocolErrors(s: HttpServer): void {
  s.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!socket.writable || err.code === 'ECONNRESET' || current?.headersSent) return void socket.destroy();
    const [status, code, message] = clientErrorAnswer(err);
    socket.end(rawErrorResponse(status, code, message), () => socket.destroy());
    // A peer that never reads must not keep the socket: the answer is small, so this is a backstop.
    setTimeout(() => socket.destroy(), 1_000).unref();
  });
  // Without a listener Node drops CONNECT and answers an unmet Expect with a bare 417.
  s.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.end(rawErrorResponse(400, 'invalid_input', 'CONNECT is not supported.'), () => socket.destroy());
  });
  s.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
    answerError(res, 417, 'invalid_input', 'Only the Expect value 100-continue is supported.'),
  );
}

/** The server's limits, from the configuration. */
export type ServerConfig = Pick<
  Config,
  | 'AGENT_API_HEADERS_TIMEOUT_MS'
  | 'AGENT_API_REQUEST_TIMEOUT_MS'
  | 'AGENT_API_KEEP_ALIVE_TIMEOUT_MS'
  | 'AGENT_API_MAX_CONNECTIONS'
  | 'AGENT_API_MAX_CONNECTIONS_PER_ADDRESS'
>;

export interface HttpServerDeps {
  config: ServerConfig;
  logger: Logger;
}

/**
 * The raw Node HTTP server in front of the Hono app: its timeouts and connection limits, the API's error body for what
 * Node answers itself, and a graceful drain that tells MCP requests apart.
 */
export function createNodeHttpServer({ config, logger }: HttpServerDeps) {
  let server: HttpServer | undefined;
  /** Responses not yet finished (or their connection closed), each with whether it is an MCP request. */
  const inflight = new Map<ServerResponse, boolean>();
  let draining = false;

  /** Serves `fetch` on host:port; resolves with the bound port. */
  async function listen(
    host: string,
    port: number,
    fetch: (request: Request) => Response | Promise<Response>,
  ): Promise<number> {
    const handle = requestListener(fetch, host, logger);
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      inflight.set(res, (req.url ?? '').startsWith('/mcp'));
      res.once('close', () => inflight.delete(res));
      // While shutting down every answer closes its connection, so keep-alive clients do not send another request.
      if (draining) res.setHeader('Connection', 'close');
      // Node's own answer to an HTTP/1.1 request without Host is a bare 400 (requireHostHeader is off for this).
      if (req.httpVersion === '1.1' && req.headers.host === undefined) {
        return answerError(res, 400, 'invalid_input', 'An HTTP/1.1 request needs a Host header.');
      }
      handle(req, res).catch((err: unknown) => logger.error({ err }, 'HTTP response failed'));
    };
    const headersTimeout = config.AGENT_API_HEADERS_TIMEOUT_MS;
    const requestTimeout = config.AGENT_API_REQUEST_TIMEOUT_MS;
    const keepAliveTimeout = config.AGENT_API_KEEP_ALIVE_TIMEOUT_MS;
    const s = createServer(
      {
        headersTimeout,
        requestTimeout,
        keepAliveTimeout,
        // Timeouts are enforced by a periodic sweep; it must run often enough to drop a slow sender on time.
        connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 2))),
        requireHostHeader: false,
      },
      onRequest,
    );
    s.headersTimeout = headersTimeout;
    s.requestTimeout = requestTimeout;
    s.keepAliveTimeout = keepAliveTimeout;
    s.maxConnections = config.AGENT_API_MAX_CONNECTIONS;
    limitConnectionsPerAddress(s, config.AGENT_API_MAX_CONNECTIONS_PER_ADDRESS);
    answerProtocolErrors(s);
    let boundPort = 0;
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, host, () => {
        s.off('error', reject);
        boundPort = (s.address() as AddressInfo).port;
        resolve();
      });
    });
    server = s;
    return boundPort;
  }

  /**
   * Graceful HTTP stop: accept the connections already waiting, stop accepting, answer every request already received (each with `Connection: close`), close
   * keep-alive connections once idle, end MCP streams (`closeMcp`), then close whatever is left when the grace period
   * is over.
   */
  async function drain(s: HttpServer, graceMs: number, closeMcp: () => Promise<void>): Promise<void> {
    const started = Date.now();
    const deadline = started + graceMs;
    draining = true;
    for (const res of inflight.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
    await acceptBacklog(s, deadline);
    const received = inflight.size;
    // http.Server#close() stops accepting and at once closes every connection without a request in progress. A
    // keep-alive connection whose next request is already in the socket buffer (sent before the signal, not yet read)
    // counts as idle too and would be reset, so idle connections are closed a moment later, once such requests are
    // parsed and in flight.
    s.closeIdleConnections = () => undefined;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    Reflect.deleteProperty(s, 'closeIdleConnections');
    if (graceMs > 0) await delay(Math.min(SHUTDOWN_SETTLE_MS, graceMs));
    // A starved process runs expired timers before it reads its sockets: let one poll phase read the requests that
    // arrived meanwhile (setImmediate runs after it) before deciding which connections are idle.
    await nextTurn();
    s.closeIdleConnections();
    // Connections whose answer was already under way when the stop began stay open after it: close them once idle.
    const idle = setInterval(() => s.closeIdleConnections(), DRAIN_TICK_MS * 5);
    try {
      // MCP follows run until their streams end, so once only MCP requests remain they get a short while, then
      // their sessions are closed; every other request is awaited up to the grace period.
      const mcpDeadline = Math.min(deadline, Date.now() + MCP_SETTLE_MS);
      await until(
        () => inflight.size === 0 || (Date.now() >= mcpDeadline && [...inflight.values()].every(Boolean)),
        deadline,
      );
      await closeMcp();
      await until(() => inflight.size === 0, deadline);
    } finally {
      clearInterval(idle);
    }
    const cut = inflight.size;
    s.closeAllConnections();
    await within(closed, 1_000);
    logger.info({ received, cut, ms: Date.now() - started }, 'HTTP server stopped');
  }

  return {
    listen,
    /**
     * Drains the server when it listens (answers true), ending MCP streams with `closeMcp` on the way; answers false
     * when it never listened.
     */
    async close(graceMs: number, closeMcp: () => Promise<void>): Promise<boolean> {
      if (!server) return false;
      await drain(server, graceMs, closeMcp);
      return true;
    },
  };
}
