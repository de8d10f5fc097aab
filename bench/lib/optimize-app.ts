/**
 * Shared by the optimize and content benches: a seeded tenant, the real app in a child process (so the bench's load
 * generator and loopback servers do not share its event loop, and its CPU time can be read from /proc), a small
 * REST client, and the machine's load average for the report.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createClient } from '../../src/store/repos/clients.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Tenant {
  orgId: string;
  clientId: string;
  /** All-scope keys: one per concurrent caller keeps the per-key rate limit out of the measurement. */
  keys: string[];
}

/** Creates the database at `dbPath` (migrations run) with one agency organisation, a client and `keys` keys. */
export async function seedTenant(
  dbPath: string,
  keys: number,
  client: { name: string; domain?: string } = { name: 'Bench client' },
): Promise<Tenant> {
  const app = await createApp({
    config: loadConfig({ AGENT_API_DB: dbPath, AGENT_API_LOG_LEVEL: 'silent' }),
    logger: createLogger('silent'),
  });
  try {
    const db = app.database.db;
    const now = Date.now();
    const org = await createOrganisation(db, { name: 'bench', plan: 'agency', subscription: 'active' }, now);
    const c = await createClient(db, { orgId: org.id, name: client.name, domain: client.domain ?? null }, now);
    const issued = [];
    for (let i = 0; i < keys; i++) issued.push((await issueApiKey(db, { orgId: org.id, scopes: SCOPES }, now)).apiKey);
    return { orgId: org.id, clientId: c.id, keys: issued };
  } finally {
    await app.close();
  }
}

export interface ChildApp {
  port: number;
  pid: number;
  /** User + system CPU ms the child has used so far (null where /proc is not available). */
  cpuMs(): number | null;
  stop(): Promise<void>;
}

/**
 * The app (bench/lib/app-server.ts: REST + MCP + runner) in a child process with `env` added to this one's.
 * BENCH_APP_NODE_ARGS adds Node flags to the child (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
 */
export async function spawnApp(env: Record<string, string>): Promise<ChildApp> {
  const nodeArgs = (process.env.BENCH_APP_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bench/lib/app-server.ts'], {
    cwd: ROOT,
    env: { ...process.env, AGENT_API_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => void (stderr = (stderr + String(d)).slice(-4_000)));
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += String(d);
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      try {
        resolve((JSON.parse(buf.slice(0, nl)) as { port: number }).port);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    child.once('exit', (code) => reject(new Error(`app-server exited with ${code}: ${stderr}`)));
  });
  child.stdout!.resume();
  const pid = child.pid!;
  return {
    port,
    pid,
    cpuMs: () => processCpuMs(pid),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** utime + stime of a process in ms, from /proc/<pid>/stat (clock ticks of 10 ms on Linux). */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after its closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

export interface Reply<T> {
  status: number;
  body: T;
}

/** A REST client for /api/agent/v1 on `port`; one fresh connection per request (see `call`). */
export function restClient(port: number) {
  // Connections are not reused: the app's scoring is long synchronous CPU, and a keep-alive socket picked up right
  // after such a pause can be closed by the server under the request.
  const dispatcher = new Agent({ pipelining: 0, connections: 256, headersTimeout: 120_000, bodyTimeout: 120_000 });
  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    key: string,
    opts: { body?: unknown; headers?: Record<string, string>; query?: Record<string, string | number> } = {},
  ): Promise<Reply<T>> {
    const url = new URL(`http://127.0.0.1:${port}/api/agent/v1${path}`);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
    const res = await request(url, {
      method,
      dispatcher,
      headers: {
        authorization: `Bearer ${key}`,
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...opts.headers,
      },
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: (text ? JSON.parse(text) : null) as T };
  }
  return { call, close: () => dispatcher.close() };
}

export type RestClient = ReturnType<typeof restClient>;

/**
 * Long-polls a resource (`path` answers `status`) until `done(status)`, `wait_seconds` at a time; answers the last
 * body and the performance.now() at which it arrived.
 */
export async function followUntil<T extends { status: string }>(
  rest: RestClient,
  path: string,
  key: string,
  done: (status: string) => boolean,
  deadline: number,
  query: Record<string, string | number> = {},
): Promise<{ body: T; at: number }> {
  for (;;) {
    const r = await rest.call<T>('GET', path, key, { query: { ...query, wait_seconds: 10 } });
    const at = performance.now();
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    if (done(r.body.status)) return { body: r.body, at };
    if (at > deadline) throw new Error(`GET ${path}: still ${r.body.status} at the deadline`);
  }
}

/** "load average 10.9 / 11.5 / 10.4 (2 CPUs)" for the report. */
export function loadLine(cpus: number): string {
  return `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} (${cpus} CPUs)`;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * The share of one core a busy thread gets right now (CPU s / wall s of a `ms` spin in this process, run while
 * nothing else of the bench is in flight): on a loaded machine, the ceiling for the app's one event loop.
 */
export function cpuShare(ms = 1_000): number {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let x = 0;
  while (performance.now() - t0 < ms) for (let i = 0; i < 10_000; i++) x += Math.sqrt(i + x);
  const c = process.cpuUsage(c0);
  return x < 0 ? 0 : (c.user + c.system) / 1000 / (performance.now() - t0);
}
