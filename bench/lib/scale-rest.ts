/**
 * Part 2 of `npm run bench -- scale`: REST `GET /usage` req/s of two serve processes on one PostgreSQL database
 * against one of them alone, with the same load generator (autocannon in this process) and the same connection count:
 * alone, every connection goes to the first process; together, the connections are dealt round-robin over both.
 * The two sides alternate round by round (one warm-up round each first), through bench/lib/load.ts's `interleave`.
 *
 * On PostgreSQL every process counts requests against one shared limit per key (engine/platform/rate-limit-shared.ts), and no
 * plan lifts it (agency: 120 a minute, burst 120), so the load rotates over many keys of one organisation; 429s are
 * counted as errors and printed, never hidden.
 */
import { cannon, interleave, type Side, type SideView } from './load.ts';
import { spawnChild, type BenchChild } from './scale-procs.ts';
import { seedUsage } from './scale-seed.ts';

/** A side spreading `connections` round-robin over `ports` (one autocannon instance per process, run together). */
function spreadSide(name: string, servers: readonly BenchChild[], connections: number, key: () => string): Side {
  return {
    name,
    pid: servers.map((s) => s.pid),
    async round(ms) {
      const results = await Promise.all(
        servers.map((s, i) =>
          cannon(
            {
              url: `http://127.0.0.1:${Number(s.first.port)}/api/agent/v1/usage`,
              headers: () => ({ authorization: `Bearer ${key()}` }),
              // Connection k goes to process k mod n.
              connections: Math.floor(connections / servers.length) + (i < connections % servers.length ? 1 : 0),
            },
            ms / 1000,
          ),
        ),
      );
      return {
        ops: results.reduce((a, r) => a + r.requests.total, 0),
        p99: Math.max(...results.map((r) => r.latency.p99)),
        errors: results.reduce((a, r) => a + r.non2xx + r.errors + r.refused, 0),
      };
    },
  };
}

export interface RestScaleResult {
  one: SideView;
  two: SideView;
  keys: number;
  connections: number;
  poolSize: number;
}

export async function restScale(
  url: string,
  opts: { keys: number; connections: number; poolSize: number; rounds: number; roundMs: number; tmpDb: string },
): Promise<RestScaleResult> {
  const env = {
    AGENT_API_DB: opts.tmpDb,
    AGENT_API_DATABASE_URL: url,
    AGENT_API_DATABASE_POOL_SIZE: String(opts.poolSize),
  };
  const { apiKeys } = await seedUsage(env, opts.keys);
  const servers: BenchChild[] = [];
  try {
    const started = await Promise.allSettled(
      [1, 2].map((i) =>
        spawnChild(`serve process ${i}/2`, 'bench/lib/app-server.ts', { ...env, AGENT_API_LOG_LEVEL: 'info' }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
    const failure = started.find((s) => s.status === 'rejected');
    if (failure) throw failure.reason;
    let i = 0;
    const key = () => apiKeys[i++ % apiKeys.length]!;
    const [one, two] = await interleave(
      [
        spreadSide('one', servers.slice(0, 1), opts.connections, key),
        spreadSide('two', servers, opts.connections, key),
      ],
      opts.rounds,
      opts.roundMs,
    );
    return { one: one!, two: two!, keys: opts.keys, connections: opts.connections, poolSize: opts.poolSize };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}
