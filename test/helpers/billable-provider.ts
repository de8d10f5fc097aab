import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake paid provider on loopback. It dedupes by Idempotency-Key like real billing APIs: `runs` counts distinct
 * executions (billable work), `calls` counts every request per key. It can fail the next N calls or hold answers.
 */
export async function startBillableProvider() {
  const calls = new Map<string, number>();
  const results = new Map<string, unknown>();
  let failNext = 0;
  let delayMs = 0;
  let runs = 0;
  const held: Array<() => void> = [];
  let hold = false;

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? '');
      calls.set(key, (calls.get(key) ?? 0) + 1);
      const answer = () => {
        if (failNext > 0) {
          failNext--;
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"upstream failure"}');
          return;
        }
        if (!results.has(key)) {
          runs++;
          results.set(key, { echoed: JSON.parse(body || '{}'), execution: runs });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(results.get(key)));
      };
      if (hold) held.push(answer);
      else if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    /** Distinct billable executions. */
    runs: () => runs,
    callsFor: (prefix: string) =>
      [...calls.entries()].filter(([k]) => k.startsWith(prefix)).reduce((a, [, n]) => a + n, 0),
    failNext: (n: number) => void (failNext = n),
    setDelay: (ms: number) => void (delayMs = ms),
    /** Hold answers until release() (to crash a server while a call is in flight). */
    setHold: (on: boolean) => void (hold = on),
    release: () => held.splice(0).forEach((f) => f()),
    heldCount: () => held.length,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

export type BillableProvider = Awaited<ReturnType<typeof startBillableProvider>>;
