import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { createNodeHttpServer } from '../../src/transport/http/server.ts';
import { tempDir } from '../helpers/temp.ts';

/**
 * Graceful stop with connections still in the listen backlog. libuv accepts one connection per event-loop turn, so a
 * busy server can leave connections the kernel already completed (their requests written) waiting to be accepted.
 * Closing the listener would reset them; the drain accepts them first and answers their requests.
 */

const CONNECTIONS = 30;

/**
 * A client in its own process: opens CONNECTIONS connections to the port, writes one request on each, touches `flag`
 * once every request is written, then prints one JSON line per connection (the status line, or the socket error).
 */
const CLIENT = `
const net = require('node:net');
const fs = require('node:fs');
const [port, count, flag] = process.argv.slice(1);
let written = 0;
const results = [];
for (let i = 0; i < Number(count); i++) {
  const s = net.connect(Number(port), '127.0.0.1');
  let raw = '';
  let error = null;
  s.write('GET /x HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n', () => {
    if (++written === Number(count)) fs.writeFileSync(flag, 'written');
  });
  s.setEncoding('utf8');
  s.on('data', (d) => (raw += d));
  s.on('error', (e) => (error = e.code || e.message));
  s.on('close', () => {
    results.push({ status: raw.split('\\r\\n')[0] || null, error });
    if (results.length === Number(count)) console.log(JSON.stringify(results));
  });
  s.setTimeout(20000, () => s.destroy(new Error('client time limit')));
}
`;

describe('graceful stop: connections waiting in the listen backlog', () => {
  it('requests written on connections the server has not accepted yet are answered, none reset', async () => {
    const tmp = tempDir();
    const flag = path.join(tmp.dir, 'written');
    const server = createNodeHttpServer({
      config: {
        AGENT_API_HEADERS_TIMEOUT_MS: 10_000,
        AGENT_API_REQUEST_TIMEOUT_MS: 30_000,
        AGENT_API_KEEP_ALIVE_TIMEOUT_MS: 5_000,
        AGENT_API_MAX_CONNECTIONS: 1_000,
        AGENT_API_MAX_CONNECTIONS_PER_ADDRESS: 1_000,
      },
      logger: createLogger('silent'),
    });
    const port = await server.listen('127.0.0.1', 0, () => new Response('ok'));
    const child = spawn(process.execPath, ['-e', CLIENT, String(port), String(CONNECTIONS), flag], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      // This process does not run its event loop until every request is written: all the connections wait in the
      // backlog (the kernel completes them), as they do behind a busy event loop. The stop begins in the same turn.
      const until = Date.now() + 20_000;
      while (!existsSync(flag) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      expect(existsSync(flag)).toBe(true);
      await server.close(5_000, async () => undefined);
      await exited;
      const results = JSON.parse(out) as { status: string | null; error: string | null }[];
      expect(results).toHaveLength(CONNECTIONS);
      expect(results.filter((r) => r.error !== null)).toEqual([]);
      expect(results.every((r) => r.status === 'HTTP/1.1 200 OK')).toBe(true);
    } finally {
      child.kill();
      tmp.cleanup();
    }
  }, 60_000);
});
