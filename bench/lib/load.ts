/**
 * Load helpers shared by the HTTP benches: autocannon rounds, and side-by-side interleaving of several servers so that
 * load from elsewhere on the machine hits them alike.
 */
import autocannon from 'autocannon';
import { median, processCpuMs } from './harness.ts';

/** One thing under load: a server (pid for its CPU time; several when it is several processes) and how to drive it. */
export interface Side {
  name: string;
  pid: number | readonly number[];
  /** One measured round of `ms`; answers the operations done. */
  round(ms: number): Promise<{ ops: number; p99: number; errors: number }>;
}

/** A side's figures over all measured rounds. */
export interface SideView {
  perSecond: number;
  /** Median of the rounds' p99 latencies, ms. */
  p99: number;
  cpuUsPerOp: number;
  errors: number;
}

/**
 * Runs one warm-up round per side (JIT, statement caches, keep-alive sockets), then `rounds` measured rounds of each
 * side, the order rotating every round, and reads each server's CPU time from /proc around its rounds: throughput,
 * median p99 and server CPU per operation, in the order of `sides`.
 */
export async function interleave(sides: readonly Side[], rounds: number, roundMs: number): Promise<SideView[]> {
  const cpu = (side: Side) => [side.pid].flat().reduce((a, pid) => a + processCpuMs(pid), 0);
  const totals = sides.map(() => ({ ops: 0, cpuMs: 0, p99: [] as number[], errors: 0 }));
  for (const side of sides) await side.round(roundMs);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (r + k) % sides.length;
      const side = sides[i]!;
      const t = totals[i]!;
      const cpu0 = cpu(side);
      const res = await side.round(roundMs);
      t.cpuMs += cpu(side) - cpu0;
      t.ops += res.ops;
      t.errors += res.errors;
      t.p99.push(res.p99);
    }
  }
  return totals.map((t) => ({
    perSecond: t.ops / ((rounds * roundMs) / 1000),
    p99: median(t.p99),
    cpuUsPerOp: (t.cpuMs * 1000) / Math.max(1, t.ops),
    errors: t.errors,
  }));
}

/** What one autocannon run sends; headers are asked for each request (to rotate keys or sessions). */
export interface CannonRequest {
  url: string;
  headers: () => Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** Concurrent connections (default 16). */
  connections?: number;
  /** A 2xx answer whose body this refuses counts as an error (e.g. a tool error inside a 200). */
  accept?: (body: string) => boolean;
}

/** One autocannon run of `seconds`; answers autocannon's result and the answers `accept` refused. */
export function cannon(req: CannonRequest, seconds: number): Promise<autocannon.Result & { refused: number }> {
  let refused = 0;
  const { accept } = req;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: req.url,
        connections: req.connections ?? 16,
        duration: seconds,
        requests: [
          {
            ...(req.method ? { method: req.method } : {}),
            ...(req.body !== undefined ? { body: req.body } : {}),
            setupRequest: (r: Record<string, unknown>) => ({
              ...r,
              headers: { ...(r.headers as object), ...req.headers() },
            }),
            ...(accept
              ? {
                  onResponse: (status: number, body: string) => {
                    if (status >= 200 && status < 300 && !accept(body)) refused++;
                  },
                }
              : {}),
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve({ ...res, refused })),
    );
  });
}

/** A side driven by autocannon: operations are requests, errors are non-2xx answers, failures and refused bodies. */
export function httpSide(name: string, pid: number, req: CannonRequest): Side {
  return {
    name,
    pid,
    async round(ms) {
      const r = await cannon(req, ms / 1000);
      return { ops: r.requests.total, p99: r.latency.p99, errors: r.non2xx + r.errors + r.refused };
    },
  };
}
