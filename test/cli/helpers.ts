import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { BIN } from '../helpers/mcp.ts';
import { runBin, type Ran } from '../helpers/run-bin.ts';
import { tempDir } from '../helpers/temp.ts';

/** Shared by the command-line tests: run the real launcher and check what it printed. */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** What a finished command printed. */
export type CliResult = Ran;

/** A fresh database path in its own temporary folder; `cleanups` collects the removals for afterAll. */
export function newDb(cleanups: Array<() => void>): string {
  const tmp = tempDir('agent-api-cli-');
  cleanups.push(tmp.cleanup);
  return tmp.dbPath;
}

/** The clean environment every spawned command runs with: PATH, HOME and the database. */
export function cliEnv(db: string, env: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', AGENT_API_DB: db, ...env };
}

/** Runs `node bin/agent-api.js ...args` to completion. */
export function cli(db: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runBin(BIN, args, ROOT, cliEnv(db, env));
}

/** `--json` output: exactly one JSON object on one line of stdout, and nothing else there. */
export function oneJson<T = Record<string, unknown>>(r: CliResult): T {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.endsWith('\n')).toBe(true);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  expect(lines, r.stdout).toHaveLength(1);
  expect(r.stdout).toBe(`${lines[0]}\n`);
  const value: unknown = JSON.parse(lines[0]!);
  expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  return value as T;
}

/** Human output: exit 0, some text on stdout, and no JSON object there. */
export function human(r: CliResult): string {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.trim()).not.toBe('');
  expect(r.stdout.trimStart().startsWith('{')).toBe(false);
  return r.stdout;
}

/** A failed command: non-zero exit, a message on stderr, nothing on stdout. */
export function failed(r: CliResult, message: RegExp): void {
  expect(r.code, r.stdout + r.stderr).not.toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at .*\.ts:\d+/); // a sentence, not a stack trace
}

/** Resolves with the output so far once `pattern` appears on stderr; rejects on exit or after `timeoutMs`. */
export function waitForStderr(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const done = (fn: () => void) => {
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      fn();
    };
    const onData = (d: Buffer) => {
      seen += String(d);
      const m = pattern.exec(seen);
      if (m) done(() => resolve(m));
    };
    const onExit = (code: number | null) =>
      done(() => reject(new Error(`exited with ${code} before ${pattern}:\n${seen}`)));
    const timer = setTimeout(
      () => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${seen}`))),
      timeoutMs,
    );
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** SIGTERM and wait for the exit code (SIGKILL if it has not exited within `timeoutMs`). */
export function terminate(child: ChildProcess, timeoutMs = 30_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/** Opens the database file straight from the test (migrated), runs `work`, and closes it. */
export async function withDb<T>(path: string, work: (s: ReturnType<typeof openDatabase>) => Promise<T>): Promise<T> {
  const s = openDatabase(path);
  try {
    await migrateToLatest(s.db);
    return await work(s);
  } finally {
    await s.close();
  }
}
