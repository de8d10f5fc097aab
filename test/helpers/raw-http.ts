import net from 'node:net';

/** One HTTP/1.1 answer read off a raw socket. */
export interface RawAnswer {
  /** Everything the server sent before closing (or before the time limit). */
  raw: string;
  status: number | null;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or null. */
  json: unknown;
  /** The server closed the connection (rather than the time limit ending the exchange). */
  closedByServer: boolean;
  /** Milliseconds from the first byte written to the close (or the time limit). */
  ms: number;
  /** A socket error (ECONNRESET, ...), if there was one. */
  error: string | null;
}

/** Splits a raw HTTP/1.1 answer into status, headers and body (Content-Length bodies; enough for error answers). */
export function parseRawAnswer(raw: string): Pick<RawAnswer, 'status' | 'headers' | 'body' | 'json'> {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let json: unknown = null;
  try {
    json = body ? JSON.parse(body) : null;
  } catch {
    json = null;
  }
  return { status: m ? Number(m[1]) : null, headers, body, json };
}

/**
 * Opens a TCP connection to 127.0.0.1:`port` (from `localAddress` when given), writes `data` (a string, or chunks
 * written `gapMs` apart) and reads until the server closes or `timeoutMs` passes.
 */
export function rawExchange(
  port: number,
  data: string | string[],
  options: { localAddress?: string; timeoutMs?: number; gapMs?: number } = {},
): Promise<RawAnswer> {
  const { timeoutMs = 5_000, gapMs = 0 } = options;
  return new Promise((resolve) => {
    const chunks = typeof data === 'string' ? [data] : data;
    let raw = '';
    let error: string | null = null;
    let started = 0;
    let timers: NodeJS.Timeout[] = [];
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: options.localAddress }, () => {
      started = performance.now();
      chunks.forEach((chunk, i) => {
        if (!gapMs || i === 0) return void socket.write(chunk);
        timers.push(setTimeout(() => socket.writable && socket.write(chunk), i * gapMs));
      });
    });
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (raw += d));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    const finish = (closedByServer: boolean) => {
      clearTimeout(limit);
      timers.forEach(clearTimeout);
      timers = [];
      const ms = started ? performance.now() - started : 0;
      socket.destroy();
      resolve({ raw, ...parseRawAnswer(raw), closedByServer, ms, error });
    };
    socket.once('close', () => finish(true));
    const limit = setTimeout(() => {
      socket.removeAllListeners('close');
      finish(false);
    }, timeoutMs);
  });
}

/** A connection from `localAddress` that sent one keep-alive request and got its answer; stays open until closed. */
export async function openKeptConnection(
  port: number,
  hostHeader: string,
  localAddress: string,
  timeoutMs = 5_000,
): Promise<{ socket: net.Socket; status: number | null; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    let raw = '';
    let closed = false;
    const socket = net.connect({ host: '127.0.0.1', port, localAddress }, () =>
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`),
    );
    socket.setEncoding('latin1');
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${localAddress} in ${timeoutMs} ms: ${JSON.stringify(raw)}`));
    }, timeoutMs);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      clearTimeout(limit);
      resolve({ socket, status: parseRawAnswer(raw).status, closed: () => closed });
    });
    socket.on('data', (d: string) => {
      raw += d;
      const answer = parseRawAnswer(raw);
      const length = Number(answer.headers['content-length'] ?? NaN);
      if (answer.status !== null && Buffer.byteLength(answer.body) >= length) {
        clearTimeout(limit);
        resolve({ socket, status: answer.status, closed: () => closed });
      }
    });
  });
}
