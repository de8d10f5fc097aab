import { spawn } from 'node:child_process';

/** What a finished command printed. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <bin> ...args` to completion from `cwd` with exactly `env` (nothing inherited). */
export function runBin(bin: string, args: string[], cwd: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
