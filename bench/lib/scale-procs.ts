/**
 * Child processes of `npm run bench -- scale`: bench entry scripts run through tsx that speak one JSON object per
 * stdout line (the first one says they are up) and take commands as lines on stdin. Every child started here is
 * remembered until it exits, so an error or a signal anywhere ends all of them (`killAllChildren`, and synchronously on
 * process exit).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface BenchChild {
  name: string;
  pid: number;
  /** The first JSON line it printed (`{"ready":true}`, `{"port":…}`). */
  first: Record<string, unknown>;
  /** The next JSON line it prints (rejects if it exits first). */
  next(): Promise<Record<string, unknown>>;
  /** Writes one line to its stdin. */
  send(line: string): void;
  /** Its stderr so far (last 8 KiB), for error messages. */
  stderr(): string;
  /** Lines it has written to stderr (log lines: warnings and errors at the bench's log level). */
  stderrLines(): number;
  /** SIGTERM, and SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();

/** SIGKILLs every child still running (synchronous: safe in an 'exit' handler). */
export function killAllChildren(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}

/** Starts `script` (a path from the repository root) with `env` over this process's environment. */
export function spawnChild(
  name: string,
  script: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<BenchChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  let err = '';
  let errLines = 0;
  child.stderr!.on('data', (d: Buffer) => {
    const text = String(d);
    err = (err + text).slice(-8_192);
    for (const ch of text) if (ch === '\n') errLines++;
  });
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      live.delete(child);
      resolve();
    });
  });
  const queue: Record<string, unknown>[] = [];
  const waiting: Array<{ resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
  const gone = () => new Error(`${name} (${script}) exited (${child.exitCode ?? child.signalCode}):\n${err}`);
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // not one of ours
    }
    const w = waiting.shift();
    if (w) w.resolve(msg);
    else queue.push(msg);
  });
  void exited.then(() => waiting.splice(0).forEach((w) => w.reject(gone())));
  const next = () =>
    queue.length
      ? Promise.resolve(queue.shift()!)
      : child.exitCode !== null || child.signalCode !== null
        ? Promise.reject(gone())
        : new Promise<Record<string, unknown>>((resolve, reject) => waiting.push({ resolve, reject }));
  return new Promise<BenchChild>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} (${script}) did not start in ${timeoutMs} ms:\n${err}`));
    }, timeoutMs);
    next().then(
      (first) => {
        clearTimeout(timer);
        resolve({
          name,
          pid: child.pid!,
          first,
          next,
          send: (line) => void child.stdin!.write(`${line}\n`),
          stderr: () => err,
          stderrLines: () => errLines,
          async stop(graceMs = 5_000) {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill('SIGTERM');
            const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
            await exited;
            clearTimeout(t);
          },
        });
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** Stops every child given, at once. */
export async function stopAll(children: readonly BenchChild[]): Promise<void> {
  await Promise.all(children.map((c) => c.stop()));
}
