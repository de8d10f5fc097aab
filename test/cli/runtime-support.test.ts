import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SERVING_COMMANDS,
  unsupportedRuntimeWarning,
  warnIfUnsupportedRuntime,
} from '../../src/cli/runtime-support.ts';
import { BIN } from '../helpers/mcp.ts';
import { cli, cliEnv, newDb, oneJson, ROOT, terminate, waitForStderr } from './helpers.ts';

/**
 * Node 22 and 24 are supported; Node 20 (past end of life) still runs, and every command that serves says so first
 * with one pino warn line on stderr, never on stdout (MCP over stdio owns it).
 */

const temps: Array<() => void> = [];
afterAll(() => temps.forEach((c) => c()));

const WARNING = /is unsupported \(past end of life/;
/** This machine's Node needs the warning (Node 20 in CI's first run; none under the Node 24 run). */
const THIS_NODE_WARNS = unsupportedRuntimeWarning(process.version) !== null;

/** The log lines `warnIfUnsupportedRuntime` writes, parsed. */
async function warned(command: string, version: string, level = 'info') {
  const lines: string[] = [];
  const logged = await warnIfUnsupportedRuntime(command, level, {
    version,
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logged, lines: lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('which Node needs the warning', () => {
  it('Node 20 is past end of life (April 2026) and the warning names it and the supported majors', () => {
    expect(unsupportedRuntimeWarning('v20.20.0')).toBe(
      'Node v20.20.0 is unsupported (past end of life since April 2026); Node 22 and 24 are supported',
    );
  });

  it('no warning on Node 22 or 24', () => {
    for (const v of ['v22.0.0', 'v22.22.1', 'v24.0.0', 'v24.19.3']) expect(unsupportedRuntimeWarning(v), v).toBeNull();
  });

  it('older and odd majors past end of life warn; a newer major than this release knows does not', () => {
    for (const v of ['v16.20.2', 'v18.20.8', 'v19.9.0', 'v21.7.3', 'v23.11.1', 'v25.2.0'])
      expect(unsupportedRuntimeWarning(v), v).toMatch(WARNING);
    expect(unsupportedRuntimeWarning('v16.20.2')).toBe(
      'Node v16.20.2 is unsupported (past end of life); Node 22 and 24 are supported',
    );
    expect(unsupportedRuntimeWarning('v26.1.0')).toBeNull();
    expect(unsupportedRuntimeWarning('not a version')).toBeNull();
  });
});

describe('the warning at start', () => {
  it('start, serve and mcp log exactly one pino warn line on Node 20', async () => {
    expect(SERVING_COMMANDS).toEqual(['start', 'serve', 'mcp']);
    for (const command of SERVING_COMMANDS) {
      const { logged, lines } = await warned(command, 'v20.20.0');
      expect(logged, command).toBe(true);
      expect(lines, command).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 40,
        service: 'agent-api',
        node: 'v20.20.0',
        supported: [22, 24],
        msg: 'Node v20.20.0 is unsupported (past end of life since April 2026); Node 22 and 24 are supported',
      });
    }
  });

  it('nothing on Node 22 or 24, for commands that do not serve, or below the configured log level', async () => {
    for (const [command, version, level] of [
      ['start', 'v22.12.0', 'info'],
      ['mcp', 'v24.11.1', 'debug'],
      ['init', 'v20.20.0', 'info'],
      ['keys', 'v20.20.0', 'info'],
      ['start', 'v20.20.0', 'error'],
    ] as const) {
      const { logged, lines } = await warned(command, version, level);
      expect({ command, version, level, logged, lines }).toEqual({ command, version, level, logged: false, lines: [] });
    }
  });
});

/** A spawned `agent-api mcp` on this machine's Node: one JSON-RPC request, stdin closed, everything it printed. */
function mcpSession(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.stdout.on('data', (d: Buffer) => {
      stdout += String(d);
      // The answer to initialize: the session is done.
      if (stdout.includes('\n')) child.stdin.end();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'runtime-test', version: '1' } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

// Side by side: each waits on a process of its own.
describe.concurrent(`on this machine's Node (${process.version})`, { timeout: 180_000 }, () => {
  it(`agent-api mcp: ${THIS_NODE_WARNS ? 'one warn line' : 'no warning'} on stderr, stdout is JSON-RPC only`, async () => {
    const db = newDb(temps);
    const { api_key } = oneJson<{ api_key: string }>(await cli(db, ['init', '--json']));
    const r = await mcpSession(cliEnv(db, { AGENT_API_KEY: api_key, AGENT_API_LOG_LEVEL: 'info' }));
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: expect.any(String) } } });
    expect(r.stdout).not.toMatch(WARNING);
    const logs = lines(r.stderr).map((l) => JSON.parse(l) as { level: number; msg: string });
    const warnings = logs.filter((l) => WARNING.test(l.msg));
    expect(warnings, r.stderr).toHaveLength(THIS_NODE_WARNS ? 1 : 0);
    if (THIS_NODE_WARNS) {
      expect(warnings[0]).toMatchObject({ level: 40, msg: unsupportedRuntimeWarning(process.version) });
      expect(logs[0], 'the first line on stderr').toEqual(warnings[0]);
    }
  });

  it(`agent-api start: ${THIS_NODE_WARNS ? 'the warn line first' : 'no warning'} on stderr, never on stdout`, async () => {
    const db = newDb(temps);
    const child = spawn(process.execPath, [BIN, 'start', '--host', '127.0.0.1', '--port', '0'], {
      cwd: ROOT,
      env: cliEnv(db, { AGENT_API_LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    try {
      await waitForStderr(child, /serving REST at http:\/\/\S+/, 120_000);
    } finally {
      await terminate(child);
    }
    expect(stdout).not.toMatch(WARNING);
    const warnings = lines(stderr).filter((l) => WARNING.test(l));
    expect(warnings, stderr).toHaveLength(THIS_NODE_WARNS ? 1 : 0);
    if (THIS_NODE_WARNS) {
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: unsupportedRuntimeWarning(process.version) });
      expect(lines(stderr)[0]).toBe(warnings[0]);
    }
  });

  it('no warning for the help of a command that serves (it does not run)', async () => {
    const help = await cli(newDb(temps), ['mcp', '--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stderr).toMatch(/Usage: agent-api mcp/);
    expect(help.stderr + help.stdout).not.toMatch(WARNING);
  });
});
