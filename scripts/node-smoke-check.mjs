#!/usr/bin/env node
// The checks of scripts/node-smoke.sh, run by the Node under test from an installed copy of the checkout:
// init --json, start (wait for /healthz), MCP tools/list over stdio, one Optimize on the sample archive over
// REST, then SIGTERM and a clean exit. One line per step; a failure exits 1 naming the step.
// Usage (cwd = the copy): AGENT_API_DB=<tmp>/smoke.db node scripts/node-smoke-check.mjs
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'agent-api.js');
const TAG = `node-smoke ${process.version}`;
// On a supported Node (22, 24) the commands that serve print no unsupported-runtime warning (Node 20 logs one).
const SUPPORTED = [22, 24].includes(Number(process.versions.node.split('.')[0]));
const UNSUPPORTED_WARNING = /is unsupported \(past end of life/;
const HOST = '127.0.0.1';

if (!process.env.AGENT_API_DB) {
  console.error(`${TAG}: set AGENT_API_DB to a throwaway database path`);
  process.exit(2);
}
const env = {
  ...process.env,
  AGENT_API_HOST: HOST,
  AGENT_API_LOG_LEVEL: process.env.AGENT_API_LOG_LEVEL ?? 'warn',
  // The sample archive is the whole web here: no live fetches (CI has no network anyway).
  AGENT_API_OFFLINE: process.env.AGENT_API_OFFLINE ?? '1',
  AGENT_API_SHUTDOWN_GRACE_MS: '5000',
};

let step = 'setup';
let server = null;
let serverLog = '';
// Seconds since NODE_SMOKE_T0 (node-smoke.sh's start, Unix seconds) so the lines line up with the shell's.
const t0 = Number(process.env.NODE_SMOKE_T0) * 1000 || Date.now();
const secs = () => `${Math.floor((Date.now() - t0) / 1000)} s`;
const say = (msg) => console.log(`${TAG} [${secs()}] ${msg}`);
const begin = (name) => {
  step = name;
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function run(args, timeoutMs) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`agent-api ${args.join(' ')} failed: ${err.message}\n${stderr}`.trim()));
      else resolve({ stdout, stderr });
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function killServer() {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
}
process.on('exit', killServer);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    killServer();
    process.exit(130);
  });
}

async function main() {
  begin('init');
  const init = JSON.parse((await run(['init', '--json'], 60_000)).stdout);
  const key = init.api_key;
  if (typeof key !== 'string' || !key) throw new Error(`init --json printed no api_key: ${JSON.stringify(init)}`);
  say(`init: ok (org ${init.org_id})`);

  begin('start');
  const port = await freePort();
  // `start --port` is newer than AGENT_API_PORT; pass it only where this checkout's CLI has it (help is on stderr).
  const help = await run(['start', '--help'], 60_000);
  const portArgs = /--port\b/.test(help.stdout + help.stderr) ? ['--port', String(port)] : [];
  server = spawn(process.execPath, [BIN, 'start', ...portArgs], {
    cwd: ROOT,
    env: { ...env, AGENT_API_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d) => {
    serverLog = (serverLog + d).slice(-8000);
  };
  server.stdout.on('data', keep);
  server.stderr.on('data', keep);
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  const base = `http://${HOST}:${port}`;
  const healthDeadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null)
      throw new Error(`server exited early (code ${server.exitCode}, signal ${server.signalCode})`);
    try {
      const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > healthDeadline) throw new Error('/healthz did not answer 200 within 60 s');
    await sleep(250);
  }
  if (SUPPORTED && UNSUPPORTED_WARNING.test(serverLog))
    throw new Error(`start warned of an unsupported runtime on ${process.version}`);
  say(`start: /healthz 200 on port ${port}${portArgs.length ? ' (--port)' : ' (AGENT_API_PORT)'}`);

  begin('mcp tools/list');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: ROOT,
    env: { ...env, AGENT_API_KEY: key },
    stderr: 'pipe',
  });
  let mcpErr = '';
  transport.stderr?.on('data', (d) => {
    mcpErr = (mcpErr + d).slice(-4000);
  });
  const client = new Client({ name: 'node-smoke', version: '1.0.0' });
  try {
    await withTimeout(client.connect(transport), 60_000, 'MCP initialize');
    const { tools } = await withTimeout(client.listTools(), 30_000, 'MCP tools/list');
    const names = tools.map((t) => t.name);
    if (!names.includes('start_optimization'))
      throw new Error(`tools/list has no start_optimization: ${names.join(', ')}`);
    if (SUPPORTED && UNSUPPORTED_WARNING.test(mcpErr))
      throw new Error(`mcp warned of an unsupported runtime on ${process.version}`);
    say(`mcp tools/list: ok (${names.length} tools, start_optimization present)`);
  } catch (e) {
    if (mcpErr) e.message += `\n--- mcp stderr ---\n${mcpErr}`;
    throw e;
  } finally {
    await withTimeout(client.close(), 10_000, 'MCP close').catch(() => {});
  }

  begin('optimize');
  const auth = { Authorization: `Bearer ${key}` };
  const post = await fetch(`${base}/api/agent/v1/optimize`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'smoke-1' },
    body: JSON.stringify({ url: 'https://www.rapidflowplumbing.com/', keyword: 'emergency plumber' }),
    signal: AbortSignal.timeout(30_000),
  });
  const accepted = await post.json().catch(() => null);
  if (post.status !== 202 || !accepted?.optimization_id)
    throw new Error(`POST /optimize answered ${post.status}: ${JSON.stringify(accepted)}`);
  const id = accepted.optimization_id;
  say(`optimize: 202 ${id}`);
  const optDeadline = Date.now() + 90_000;
  let rec;
  for (;;) {
    const left = Math.floor((optDeadline - Date.now()) / 1000);
    if (left <= 0) throw new Error(`optimization ${id} not complete within 90 s (last: ${JSON.stringify(rec)})`);
    const wait = Math.min(20, left);
    const r = await fetch(`${base}/api/agent/v1/optimizations/${id}?view=summary&wait_seconds=${wait}`, {
      headers: auth,
      signal: AbortSignal.timeout((wait + 15) * 1000),
    });
    rec = await r.json().catch(() => null);
    if (r.status !== 200) throw new Error(`GET /optimizations/${id} answered ${r.status}: ${JSON.stringify(rec)}`);
    if (rec.status === 'failed') throw new Error(`optimization failed: ${rec.error}`);
    if (rec.status === 'complete') break;
  }
  const score = rec.summary?.rankabilityScore;
  if (typeof score !== 'number' || !Number.isFinite(score))
    throw new Error(`complete but no numeric summary.rankabilityScore: ${JSON.stringify(rec)}`);
  say(`optimize: complete, rankabilityScore ${score}, ${rec.summary.competitorCount} competitors`);

  begin('sigterm');
  server.kill('SIGTERM');
  const { code, signal } = await withTimeout(exited, 30_000, 'server exit after SIGTERM');
  if (code !== 0) throw new Error(`server exited with code ${code}, signal ${signal} after SIGTERM`);
  say('sigterm: server exited 0');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`${TAG}: FAILED at step "${step}": ${e?.stack ?? e}`);
    if (serverLog) console.error(`--- server output (last lines) ---\n${serverLog.split('\n').slice(-40).join('\n')}`);
    process.exit(1);
  },
);
