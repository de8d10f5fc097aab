import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * Loopback listeners for SSRF tests. The canary records every TCP connection it accepts (and drops it), so a test
 * proves a guard held by asserting `canary.connections === 0`. The page server is a plain node:http server that
 * counts the requests it answers.
 */

export interface Canary {
  /** The port, the same on every host listened on. */
  readonly port: number;
  readonly hosts: readonly string[];
  /** Connections accepted so far, on any host. */
  readonly connections: number;
  /** `address:port` of the local side of each accepted connection: where the client connected to. */
  readonly targets: readonly string[];
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Starts a canary on `hosts` (default 127.0.0.1 and ::1), all on one port; `port` pins it (e.g. to share a port
 * number with a page server on another loopback address). With `reply`, each connection gets that text back after
 * its first bytes instead of being dropped (clients such as undici's ProxyAgent reconnect in a loop when dropped).
 */
export async function startCanary(
  options: { hosts?: readonly string[]; port?: number; reply?: string } = {},
): Promise<Canary> {
  const hosts = options.hosts ?? ['127.0.0.1', '::1'];
  const reply = options.reply;
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const onConnection = (socket: Socket) => {
    targets.push(`${socket.localAddress ?? '?'}:${socket.localPort ?? '?'}`);
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (reply === undefined) socket.destroy();
    else socket.once('data', () => socket.end(reply));
  };
  // Binding a second host on the first host's port can collide with another process; retry with a new port.
  for (let attempt = 0; attempt < 20; attempt++) {
    const servers: Server[] = [];
    try {
      let port = options.port ?? 0;
      for (const host of hosts) {
        const server = createServer(onConnection);
        servers.push(server);
        port = await listen(server, host, port);
      }
      return {
        port,
        hosts,
        get connections() {
          return targets.length;
        },
        targets,
        async close() {
          for (const s of sockets) s.destroy();
          await Promise.all(servers.map(closeServer));
        },
      };
    } catch (err) {
      await Promise.all(servers.filter((s) => s.listening).map(closeServer));
      if (options.port !== undefined || (err as { code?: string }).code !== 'EADDRINUSE') throw err;
    }
  }
  throw new Error('could not bind the canary');
}

export interface PageServer {
  readonly port: number;
  readonly host: string;
  /** `http://host:port` without a trailing slash. */
  readonly origin: string;
  /** Request paths in order of arrival. */
  readonly requests: string[];
  /** Request headers in order of arrival. */
  readonly headers: IncomingMessage['headers'][];
  close(): Promise<void>;
}

/** A node:http server on loopback (default 127.0.0.1, port 0) that records each request before `handler` answers. */
export async function startPageServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: { host?: string; port?: number } = {},
): Promise<PageServer> {
  const host = options.host ?? '127.0.0.1';
  const requests: string[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server = createHttpServer((req, res) => {
    requests.push(req.url ?? '');
    headers.push(req.headers);
    handler(req, res);
  });
  server.keepAliveTimeout = 1_000;
  const port = await listen(server, host, options.port ?? 0);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    port,
    host,
    origin,
    requests,
    headers,
    async close() {
      server.closeAllConnections();
      await closeServer(server);
    },
  };
}
