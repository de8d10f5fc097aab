import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundledEntry } from './entry-bundle.ts';
import { BIN } from './mcp.ts';
import { TEST_SERVER_ENV } from './test-env.ts';

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  /** kill -9: no cleanup at all, as in a crash. */
  crash(): Promise<void>;
  /** SIGTERM and wait for exit. */
  terminate(): Promise<number | null>;
}

function waitForUrl(child: ChildProcess, lines: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start in ${timeoutMs} ms:\n${lines.join('')}`)),
      timeoutMs,
    );
    child.stderr!.on('data', (d: Buffer) => {
      lines.push(String(d));
      const m = /serving REST at (http:\/\/[^\s/]+)/.exec(lines.join(''));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${lines.join('')}`));
    });
  });
}

/**
 * Waits until the server says it is ready (`GET /readyz` 200), as a load balancer would before sending it traffic:
 * a server listens before its web archive is indexed (the build runs in the background, taking CPU from requests),
 * and tests measure a server that is serving, not one still starting.
 */
async function waitForReady(child: ChildProcess, url: string, lines: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited:\n${lines.join('')}`);
    const status = await fetch(`${url}/readyz`).then(
      (res) => res.body?.cancel().then(() => res.status) ?? res.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`server not ready in ${timeoutMs} ms (/readyz ${status}):\n${lines.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * A real server process: `agent-api serve` by default, or a test entry script (run through tsx) that serves extra
 * operations. Port 0; the URL is read from the start-up line on stderr, and the server is answered once ready.
 */
export async function spawnServer(
  env: Record<string, string>,
  options: {
    script?: string;
    timeoutMs?: number;
    /** Answer once serving, before /readyz says ready. */ unready?: boolean;
  } = {},
): Promise<SpawnedServer> {
  const args = options.script ? [await bundledEntry(options.script)] : [BIN, 'serve', '--port', '0'];
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      AGENT_API_LOG_LEVEL: 'info',
      AGENT_API_PORT: '0',
      ...TEST_SERVER_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
  });
  child.stdout!.resume();
  const lines: string[] = [];
  const url = await waitForUrl(child, lines, options.timeoutMs ?? 60_000);
  if (!options.unready) await waitForReady(child, url, lines, options.timeoutMs ?? 60_000);
  return {
    child,
    url,
    stderr: () => lines.join(''),
    async crash() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async terminate() {
      child.kill('SIGTERM');
      return exited(child);
    },
  };
}
