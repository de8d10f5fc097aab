import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type pgTypes from 'pg';

/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, `pg_ctl start` on a free loopback port,
 * trust authentication for the `postgres` superuser, durability switched off (the data is thrown away). Started by the
 * tests themselves from Debian's `postgresql` package (`.ci/run` installs it); when no binary can be found the
 * PostgreSQL suites are skipped with one loud line on stderr.
 */
export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<dbName>`. */
  url(dbName: string): string;
  /** Creates a database (`t_<random>` unless named) and answers its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Drops a database, closing its connections first (`with (force)`). */
  dropDatabase(name: string): Promise<void>;
  /** Immediate stop, then removes the temporary folder. Idempotent. */
  stop(): Promise<void>;
  port: number;
  /** The server's `server_version`, e.g. `15.14 (Debian 15.14-0+deb12u1)`. */
  version: string;
  /** The temporary folder holding `data/`, `log` and the Unix socket. */
  dir: string;
}

const BINARIES = ['initdb', 'pg_ctl', 'postgres'] as const;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function holdsBinaries(dir: string): boolean {
  return BINARIES.every((b) => isExecutable(join(dir, b)));
}

/**
 * The folder holding `initdb`, `pg_ctl` and `postgres`: `AGENT_API_TEST_PG_BIN` if set, else the newest
 * `/usr/lib/postgresql/<major>/bin` (Debian's layout), else the folder `initdb` on PATH resolves to (symlinks
 * followed, so `/usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb` answers the real folder). null when none.
 */
export function findPostgresBin(): string | null {
  const fromEnv = process.env.AGENT_API_TEST_PG_BIN;
  if (fromEnv) return holdsBinaries(fromEnv) ? fromEnv : null;
  const debian = '/usr/lib/postgresql';
  let majors: string[] = [];
  try {
    majors = readdirSync(debian).filter((d) => /^\d+(\.\d+)?$/.test(d));
  } catch {
    // not Debian's layout
  }
  majors.sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const dir = join(debian, major, 'bin');
    if (holdsBinaries(dir)) return dir;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const initdb = join(dir, 'initdb');
    if (!isExecutable(initdb)) continue;
    const real = dirname(realpathSync(initdb));
    if (holdsBinaries(real)) return real;
    if (holdsBinaries(dir)) return dir;
  }
  return null;
}

/** Whether the PostgreSQL suites can run here: `describe.skipIf(!PG_AVAILABLE)`. */
export const PG_AVAILABLE: boolean = findPostgresBin() !== null;

export const SKIP_LINE =
  "*** SKIPPING PostgreSQL suites: no PostgreSQL binaries (install Debian's postgresql, or set AGENT_API_TEST_PG_BIN) ***";

let skipAnnounced = false;

/** Prints the skip line to stderr, once per process. */
export function announcePostgresSkip(): void {
  if (skipAnnounced) return;
  skipAnnounced = true;
  const fromEnv = process.env.AGENT_API_TEST_PG_BIN;
  const why = fromEnv ? `(AGENT_API_TEST_PG_BIN=${fromEnv} does not hold ${BINARIES.join(', ')})\n` : '';
  process.stderr.write(`\n${SKIP_LINE}\n${why}\n`);
}

/** The user the server runs as: PostgreSQL refuses root, so under root the `postgres` system user, else `nobody`. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL as');
}

function logTail(logFile: string, lines = 30): string {
  try {
    const text = readFileSync(logFile, 'utf8').trimEnd().split('\n');
    return text.slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

/** A cluster failure, with the server log's tail in its message. */
export class PgClusterError extends Error {
  constructor(message: string, logFile: string, cause?: unknown) {
    super(`${message}\n--- ${logFile} (tail) ---\n${logTail(logFile)}`, cause === undefined ? undefined : { cause });
    this.name = 'PgClusterError';
  }
}

function withLog(message: string, logFile: string, cause?: unknown): Error {
  return new PgClusterError(message, logFile, cause);
}

interface RunResult {
  code: number | null;
  output: string;
}

function run(bin: string, args: string[], options: SpawnOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += String(d)));
    child.stderr!.on('data', (d: Buffer) => (output += String(d)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// ---------------------------------------------------------------------------------------------------------------------
// Leaving nothing behind. The postmaster is a session leader of its own (pg_ctl setsid()s it), so neither Ctrl-C nor a
// dying test process takes it down: every live cluster is stopped synchronously on 'exit' and on SIGTERM/SIGINT/SIGHUP
// (vitest ends a forks-pool worker with SIGTERM, and SIGKILL 500 ms later, and a signal's default action skips 'exit').
// A SIGKILLed process runs no code at all, so each cluster also has a watchdog shell that stops it and removes its
// folder once the process that started it is gone.
// ---------------------------------------------------------------------------------------------------------------------

interface LiveCluster {
  dir: string;
  dataDir: string;
  watchdogPid: number | undefined;
}

const live = new Set<LiveCluster>();
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
let handlersInstalled = false;

/** Immediate shutdown (SIGQUIT to the postmaster, which is what `pg_ctl -m immediate stop` sends), then rm -rf. */
function killNow(cluster: LiveCluster, waitMs: number): void {
  live.delete(cluster);
  if (cluster.watchdogPid !== undefined) {
    try {
      process.kill(cluster.watchdogPid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const pidFile = join(cluster.dataDir, 'postmaster.pid');
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (pid > 0) process.kill(pid, 'SIGQUIT');
    // The postmaster removes its pid file as it exits (its pid may linger as a zombie where nothing reaps orphans).
    const deadline = Date.now() + waitMs;
    while (existsSync(pidFile) && Date.now() < deadline) sleepSync(10);
  } catch {
    // not running
  }
  rmSync(cluster.dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 });
}

function onExit(): void {
  for (const cluster of [...live]) killNow(cluster, 2_000);
}

function onSignal(signal: NodeJS.Signals): void {
  // Well inside the 500 ms vitest allows before its SIGKILL; the watchdog finishes anything left.
  for (const cluster of [...live]) killNow(cluster, 300);
  uninstallHandlers();
  // Re-raise, so the process ends as the signal would have ended it (unless someone else handles that signal).
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', onExit);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function uninstallHandlers(): void {
  if (!handlersInstalled) return;
  handlersInstalled = false;
  process.off('exit', onExit);
  for (const s of SIGNALS) process.off(s, onSignal);
}

function startWatchdog(dir: string, dataDir: string): number | undefined {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const pidFile = q(join(dataDir, 'postmaster.pid'));
  const script =
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
    `if [ -f ${pidFile} ]; then kill -QUIT "$(head -n1 ${pidFile})" 2>/dev/null; ` +
    `i=0; while [ -f ${pidFile} ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; fi; ` +
    `rm -rf ${q(dir)}`;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.on('error', () => {});
  child.unref();
  return child.pid;
}

// ---------------------------------------------------------------------------------------------------------------------

async function loadPg(): Promise<typeof pgTypes> {
  return (await import('pg')).default;
}

const SERVER_SETTINGS = [
  '-c listen_addresses=127.0.0.1',
  '-c fsync=off',
  '-c synchronous_commit=off',
  '-c full_page_writes=off',
  '-c max_connections=200',
  '-c shared_buffers=64MB',
];

/** A fresh cluster in a temporary folder; stop() it (or let process exit do it). */
export async function startPostgresCluster(): Promise<PgCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(SKIP_LINE);
  const pg = await loadPg();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'agent-api-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'log');
  const cluster: LiveCluster = { dir, dataDir, watchdogPid: undefined };
  live.add(cluster);
  installHandlers();
  cluster.watchdogPid = startWatchdog(dir, dataDir);
  const options: SpawnOptions = {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' },
    ...(user ?? {}),
  };
  const pgCtl = join(bin, 'pg_ctl');
  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    killNow(cluster, 2_000);
    if (live.size === 0) uninstallHandlers();
  };

  try {
    if (user) chownSync(dir, user.uid, user.gid);
    const init = await run(
      join(bin, 'initdb'),
      ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'],
      options,
    );
    if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}):\n${init.output}`);

    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const opts = [`-p ${port}`, `-k ${dir}`, ...SERVER_SETTINGS].join(' ');
      const start = await run(pgCtl, ['-D', dataDir, '-o', opts, '-l', logFile, '-w', 'start'], options);
      if (start.code === 0) break;
      const portTaken = /could not bind|address already in use|could not create any TCP\/IP sockets/i.test(
        logTail(logFile, 60),
      );
      if (!portTaken || attempt >= 3) {
        throw withLog(`pg_ctl start failed (exit ${start.code}, port ${port}):\n${start.output}`, logFile);
      }
    }

    const url = (dbName: string) => `postgres://postgres@127.0.0.1:${port}/${dbName}`;
    const admin = async <T>(fn: (client: pgTypes.Client) => Promise<T>, what: string): Promise<T> => {
      const client = new pg.Client({ connectionString: url('postgres') });
      client.on('error', () => {}); // an immediate stop under an open client must not crash the process
      try {
        await client.connect();
        return await fn(client);
      } catch (err) {
        throw withLog(`${what}: ${(err as Error).message}`, logFile, err);
      } finally {
        await client.end().catch(() => {});
      }
    };
    const ident = (name: string) => {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${JSON.stringify(name)}`);
      return `"${name}"`;
    };

    const version = await admin(
      async (c) => (await c.query<{ server_version: string }>('show server_version')).rows[0]!.server_version,
      'connecting to the new cluster',
    );

    return {
      port,
      version,
      dir,
      url,
      async createDatabase(name = `t_${Math.random().toString(36).slice(2, 12)}`) {
        await admin((c) => c.query(`create database ${ident(name)}`), `create database ${name}`);
        return url(name);
      },
      async dropDatabase(name) {
        await admin((c) => c.query(`drop database if exists ${ident(name)} with (force)`), `drop database ${name}`);
      },
      async stop() {
        if (stopped) return;
        const result = await run(pgCtl, ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], options).catch(
          (err: Error) => ({ code: null, output: err.message }),
        );
        // Whatever pg_ctl said, nothing may be left running or on disk.
        stopSync();
        if (result.code !== 0 && !/no server running|PID file .* does not exist/i.test(result.output)) {
          throw new Error(`pg_ctl stop failed (exit ${result.code}):\n${result.output}`);
        }
      },
    };
  } catch (err) {
    const wrapped = err instanceof PgClusterError ? err : withLog(String(err), logFile, err);
    stopSync();
    throw wrapped;
  }
}

let shared: Promise<PgCluster> | undefined;

/**
 * This process's cluster (one per vitest worker), started on first use and stopped when the process exits; null, after
 * the loud skip line (once per process), when no PostgreSQL binary can be found. A failed start is memoised too (every
 * suite sees the same error, with the log's tail); stopping the cluster lets the next call start a new one.
 */
export async function sharedPostgres(): Promise<PgCluster | null> {
  if (!PG_AVAILABLE) {
    announcePostgresSkip();
    return null;
  }
  if (!shared) {
    const starting = startPostgresCluster().then((cluster) => ({
      ...cluster,
      async stop() {
        if (shared === starting) shared = undefined;
        await cluster.stop();
      },
    }));
    shared = starting;
  }
  return shared;
}
