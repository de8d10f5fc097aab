/**
 * `npm run bench -- mcp [stdio] [http] [bytes] [answers]`: the MCP transports against minimal SDK v2 servers, side by
 * side, and the sizes of what an assistant reads.
 *  1. stdio: spawn to `initialize` answered and to `tools/list` answered, `agent-api mcp` vs a minimal `serveStdio`
 *     server on the same loader, alternating; and the same for a 2026-07-28 connection (SDK v2 client, pinned).
 *  2. Streamable HTTP `tools/call get_usage` calls/s: ours in 2026-07-28 (stateless, `_meta` envelope), ours in
 *     2025-11-25 (sessions), and a minimal `createMcpHandler` server in 2026-07-28; raw POSTs with pre-built bodies.
 *  3. `tools/list` result bytes for an all-scope key and for a `reporter:read` key, in both eras.
 *  4. `answers`: what an assistant's context pays, new defaults beside the whole answers: `tools/list`
 *     against the figures of commit e6a42c2 (before), `score_content` for a 3,000-word draft (default vs `view=full`,
 *     today's whole answer and the old default) and `get_content_artifacts` for a 1,500-word job (default vs
 *     `include=all`, the old default), as REST bodies and as whole MCP results; in-process, offline sample archive.
 * Everything runs on loopback; servers are child processes so the load generator does not share their event loop.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadConfig } from '../src/config.ts';
import { issueApiKey } from '../src/engine/accounts/admin.ts';
import { SCOPES } from '../src/engine/accounts/scopes.ts';
import { immediate } from '../src/store/db.ts';
import { withStore } from '../src/cli/store.ts';
import { startTestApp } from '../test/helpers/app.ts';
import { BIN, connectHttpClient, MODERN } from '../test/helpers/mcp.ts';
import { tempDir } from '../test/helpers/temp.ts';
import {
  ESPRESSO_DESCRIPTION,
  ESPRESSO_KEYWORD,
  ESPRESSO_PAGE,
  ESPRESSO_TITLE,
  espressoArticle,
} from '../test/optimize/helpers/draft.ts';
import { TOOL_LIST_MAX_BYTES } from '../src/transport/mcp/compact-schema.ts';
import { median, spawnJsonServer, table } from './lib/harness.ts';
import { httpSide, interleave } from './lib/load.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MINIMAL_STDIO = join(ROOT, 'bench/lib/minimal-mcp-stdio.ts');
const RUNS = Number(process.env.BENCH_STDIO_RUNS ?? 7);
/** Runs of the pinned SDK v2 client's own opening, which probes on a sibling process first (two starts each). */
const PROBE_RUNS = Number(process.env.BENCH_STDIO_PROBE_RUNS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 1_000);
/** Keys the HTTP load rotates over: agency allows 120 requests per key per minute, so the load spreads over many. */
const KEYS = Number(process.env.BENCH_MCP_KEYS ?? 1_500);
/** 2025-11-25 sessions the legacy load rotates over, one per key. */
const SESSIONS = Number(process.env.BENCH_MCP_SESSIONS ?? 500);
const CONNECTIONS = 16;

const CLIENT_INFO = { name: 'bench', version: '1.0.0' };
const ACCEPT = 'application/json, text/event-stream';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Runs the CLI and answers its JSON output. */
async function cli(env: Record<string, string>, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** `n` more all-scope keys of the organisation, straight on the database file (as `agent-api keys create` does). */
async function issueKeys(dbPath: string, orgId: string, n: number): Promise<string[]> {
  const config = loadConfig({ AGENT_API_DB: dbPath, AGENT_API_LOG_LEVEL: 'silent' });
  return withStore(config, (store) =>
    immediate(store.db, async (trx) => {
      const keys: string[] = [];
      for (let i = 0; i < n; i++)
        keys.push((await issueApiKey(trx, { orgId, scopes: SCOPES, name: `bench ${i}` }, Date.now())).apiKey);
      return keys;
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 1. stdio

/**
 * How bin/agent-api.js will start the app: the esbuild bundle in dist/ when it is newer than every source file and
 * package.json (and AGENT_API_FROM_SOURCE is not 1), else tsx on the sources. Mirrors the launcher's own rule, which
 * flips while sources are being edited.
 */
function oursLoader(): 'dist' | 'tsx' {
  if (!readFileSync(BIN, 'utf8').includes('dist/main.js')) return 'tsx';
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((e) =>
        e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
      ),
    );
  try {
    const at = statSync(join(ROOT, 'dist/main.js')).mtimeMs;
    return at >= newest(join(ROOT, 'src')) && at >= statSync(join(ROOT, 'package.json')).mtimeMs ? 'dist' : 'tsx';
  } catch {
    return 'tsx';
  }
}

/**
 * The minimal stdio server as plain JavaScript, bundled the way scripts/build.mjs bundles the app (esbuild, ESM,
 * npm packages external), into node_modules/.cache so its imports resolve from the project's node_modules.
 */
async function compileMinimal(): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = join(ROOT, 'node_modules/.cache/agent-api-bench/minimal-mcp-stdio.mjs');
  await build({
    absWorkingDir: ROOT,
    entryPoints: [MINIMAL_STDIO],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}

type Opening = 'legacy' | 'modern-probe' | 'modern-prior';

interface Launch {
  name: string;
  args: string[];
  env: Record<string, string>;
  opening: Opening;
}

interface StdioTiming {
  connectMs: number;
  listMs: number;
  /** From closing stdin to the process having exited; null when the run ended it with SIGKILL. */
  exitMs: number | null;
  tools: number;
  /** The 2026-07-28 server/discover result, for `connect({ prior })` later. */
  discover?: unknown;
}

/**
 * Spawns one server through an SDK client and times the opening (initialize, or the pinned v2 client's
 * server/discover probe, or nothing with a prior discover result) and the first tools/list, from before the spawn.
 * A `graceful` run then closes stdin and times the exit; the others SIGKILL the server once it has answered, so that
 * work it does after answering (ours loads its engine then) neither overlaps the next run nor stretches the bench.
 */
async function timeStdio(launch: Launch, prior: unknown, graceful: boolean): Promise<StdioTiming> {
  const params = {
    command: process.execPath,
    args: launch.args,
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...launch.env },
    stderr: 'pipe' as const,
  };
  const stderr: string[] = [];
  let client: {
    connect(): Promise<void>;
    listTools(): Promise<{ tools: unknown[] }>;
    close(): Promise<void>;
    discover(): unknown;
    pid(): number | null;
  };
  if (launch.opening === 'legacy') {
    const c = new V1Client(CLIENT_INFO);
    const t = new V1Stdio(params);
    t.stderr?.on('data', (d: Buffer) => stderr.push(String(d)));
    client = {
      connect: () => c.connect(t),
      listTools: () => c.listTools(),
      close: () => c.close(),
      discover: () => null,
      pid: () => t.pid,
    };
  } else {
    const [{ Client }, { StdioClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/client'),
      import('@modelcontextprotocol/client/stdio'),
    ]);
    const c = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } } });
    const t = new StdioClientTransport(params);
    t.stderr?.on('data', (d: Buffer) => stderr.push(String(d)));
    const options =
      launch.opening === 'modern-prior'
        ? { prior: { kind: 'modern' as const, discover: prior as NonNullable<ReturnType<typeof c.getDiscoverResult>> } }
        : undefined;
    client = {
      connect: () => c.connect(t, options),
      listTools: () => c.listTools(),
      close: () => c.close(),
      discover: () => c.getDiscoverResult(),
      pid: () => t.pid,
    };
  }
  try {
    const t0 = performance.now();
    await client.connect();
    const t1 = performance.now();
    const list = await client.listTools();
    const t2 = performance.now();
    const discover = client.discover();
    const pid = client.pid();
    if (!graceful && pid) process.kill(pid, 'SIGKILL');
    await client.close();
    const t3 = performance.now();
    const exitMs = graceful ? t3 - t2 : null;
    return { connectMs: t1 - t0, listMs: t2 - t0, exitMs, tools: list.tools.length, discover };
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new Error(`${launch.name}: ${err instanceof Error ? err.message : String(err)}\n${stderr.join('')}`, {
      cause: err,
    });
  }
}

async function stdioBench(env: Record<string, string>) {
  const loader = oursLoader();
  // The fair comparison is the same loader for both: plain node on bundled JavaScript when the launcher runs dist/,
  // tsx when it runs the sources (then pinned to the sources, so a build finishing mid-run cannot switch it).
  const minimalArgs = loader === 'dist' ? [await compileMinimal()] : ['--import', 'tsx', MINIMAL_STDIO];
  const oursEnv = loader === 'dist' ? env : { ...env, AGENT_API_FROM_SOURCE: '1' };
  const launch = (name: string, opening: Opening): Launch =>
    name.startsWith('ours')
      ? { name, args: [BIN, 'mcp'], env: oursEnv, opening }
      : { name, args: minimalArgs, env, opening };
  const main = [
    launch('ours', 'legacy'),
    launch('minimal', 'legacy'),
    launch('ours-prior', 'modern-prior'),
    launch('minimal-prior', 'modern-prior'),
  ];
  const probes = [launch('ours-probe', 'modern-probe'), launch('minimal-probe', 'modern-probe')];
  const timings = new Map<string, StdioTiming[]>([...main, ...probes].map((l) => [l.name, []]));
  /** Runs of ours that found the launcher on another loader than the one measured (sources edited meanwhile). */
  let switched = 0;
  const once = async (l: Launch, prior?: unknown, graceful = false) => {
    if (l.opening === 'modern-prior' && !prior) return undefined;
    if (loader === 'dist' && l.name.startsWith('ours') && oursLoader() !== 'dist') {
      switched++;
      return undefined;
    }
    const t = await timeStdio(l, prior, graceful);
    timings.get(l.name)!.push(t);
    return t;
  };
  // Warm-up, ending gracefully: the first start of ours on a fresh database also builds the web archive's index
  // beside it (before answering, or before exiting when the engine loads after the opening).
  const first = new Map<string, StdioTiming | undefined>();
  for (const l of [main[0]!, main[1]!]) first.set(l.name, await once(l, undefined, true));
  for (const k of timings.keys()) timings.get(k)!.length = 0;
  // The pinned v2 client's own opening first: its server/discover results are the `prior` of the one-spawn openings.
  for (let r = 0; r < PROBE_RUNS; r++) for (const l of r % 2 ? [...probes].reverse() : probes) await once(l);
  const priors = new Map(
    probes.map((l) => [l.name.replace('-probe', '-prior'), timings.get(l.name)!.find((t) => t.discover)?.discover]),
  );
  for (let r = 0; r < RUNS; r++)
    for (let k = 0; k < main.length; k++) {
      const l = main[(r + k) % main.length]!;
      await once(l, priors.get(l.name), r === RUNS - 1);
    }

  const view = (name: string) => {
    const ts = timings.get(name)!;
    if (!ts.length) throw new Error(`no ${name} run on the ${loader} loader (sources edited during the bench?)`);
    return {
      connectMs: median(ts.map((t) => t.connectMs)),
      listMs: median(ts.map((t) => t.listMs)),
      exitMs: median(ts.flatMap((t) => (t.exitMs === null ? [] : [t.exitMs]))),
      tools: ts[0]!.tools,
      runs: ts.length,
      firstListMs: first.get(name)?.listMs ?? NaN,
      firstExitMs: first.get(name)?.exitMs ?? NaN,
    };
  };
  return {
    loader:
      loader === 'dist'
        ? 'plain node on esbuild bundles for both (bin/agent-api.js runs dist/, which is newer than src/)'
        : 'tsx for both (bin/agent-api.js runs the sources through tsx: dist/ is missing or older than src/; AGENT_API_FROM_SOURCE=1 pins it)',
    switched,
    ours: view('ours'),
    minimal: view('minimal'),
    oursPrior: view('ours-prior'),
    minimalPrior: view('minimal-prior'),
    oursProbe: view('ours-probe'),
    minimalProbe: view('minimal-probe'),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Streamable HTTP

interface RpcAnswer {
  status: number;
  sessionId: string | null;
  /** The JSON-RPC response (from a JSON body or the SSE stream's message). */
  message: { result?: Record<string, unknown>; error?: unknown } | null;
}

async function post(port: number, headers: Record<string, string>, body: unknown): Promise<RpcAnswer> {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .pop()
    : text;
  return {
    status: res.status,
    sessionId: res.headers.get('mcp-session-id'),
    message: json ? (JSON.parse(json) as RpcAnswer['message']) : null,
  };
}

/** A 2025-11-25 session for `key`: initialize, then notifications/initialized; answers its id. */
async function openSession(port: number, key: string): Promise<string> {
  const auth = { authorization: `Bearer ${key}` };
  const init = await post(port, auth, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO },
  });
  if (init.status !== 200 || !init.sessionId) throw new Error(`initialize answered ${init.status}`);
  const headers = { ...auth, 'mcp-session-id': init.sessionId, 'mcp-protocol-version': '2025-11-25' };
  const ack = await post(port, headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  if (ack.status !== 202) throw new Error(`notifications/initialized answered ${ack.status}`);
  return init.sessionId;
}

/** A 2026-07-28 request: the `_meta` envelope in params, and the Mcp-* headers the SDK v2 client sends. */
function modernRequest(method: string, params: Record<string, unknown>, name?: string) {
  return {
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } },
  };
}

const CALL = modernRequest('tools/call', { name: 'get_usage', arguments: {} }, 'get_usage');
const LEGACY_CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_usage', arguments: {} } };
/** A tool call answered with a result that is not a tool error (a rate limit would be one). */
const goodCall = (body: string) => body.includes('"structuredContent"') && !body.includes('"isError":true');

async function httpBench(env: Record<string, string>, keys: string[]) {
  const ours = await spawnJsonServer('bench/lib/app-server.ts', env);
  const minimal = await spawnJsonServer('bench/lib/minimal-mcp-v2-http.ts', {});
  try {
    const sessions: { key: string; id: string }[] = [];
    for (let i = 0; i < SESSIONS; i += CONNECTIONS)
      sessions.push(
        ...(await Promise.all(
          keys.slice(i, Math.min(i + CONNECTIONS, SESSIONS)).map(async (key) => ({
            key,
            id: await openSession(ours.port, key),
          })),
        )),
      );
    const body = JSON.stringify(CALL.body);
    let k = 0;
    let s = 0;
    const [modern, legacy, base] = await interleave(
      [
        httpSide('ours-modern', ours.pid, {
          url: `http://127.0.0.1:${ours.port}/mcp`,
          method: 'POST',
          body,
          headers: () => ({ ...CALL.headers, authorization: `Bearer ${keys[k++ % keys.length]}` }),
          connections: CONNECTIONS,
          accept: goodCall,
        }),
        httpSide('ours-legacy', ours.pid, {
          url: `http://127.0.0.1:${ours.port}/mcp`,
          method: 'POST',
          body: JSON.stringify(LEGACY_CALL),
          headers: () => {
            const session = sessions[s++ % sessions.length]!;
            return {
              'content-type': 'application/json',
              accept: ACCEPT,
              'mcp-protocol-version': '2025-11-25',
              'mcp-session-id': session.id,
              authorization: `Bearer ${session.key}`,
            };
          },
          connections: CONNECTIONS,
          accept: goodCall,
        }),
        httpSide('minimal-modern', minimal.pid, {
          url: `http://127.0.0.1:${minimal.port}/mcp`,
          method: 'POST',
          body,
          headers: () => CALL.headers,
          connections: CONNECTIONS,
          accept: goodCall,
        }),
      ],
      ROUNDS,
      ROUND_MS,
    );
    return { modern: modern!, legacy: legacy!, base: base!, port: ours.port, sessions: sessions.length };
  } finally {
    await ours.stop();
    await minimal.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 3. tools/list bytes

interface ListSize {
  bytes: number;
  tools: number;
}

async function toolsListSizes(env: Record<string, string>, allKey: string, readerKey: string) {
  const ours = await spawnJsonServer('bench/lib/app-server.ts', env);
  try {
    const size = (a: RpcAnswer): ListSize => {
      if (a.status !== 200 || !a.message?.result) throw new Error(`tools/list answered ${a.status}`);
      const r = a.message.result;
      return { bytes: Buffer.byteLength(JSON.stringify(r)), tools: (r.tools as unknown[]).length };
    };
    const modern = async (key: string) => {
      const req = modernRequest('tools/list', {});
      return size(await post(ours.port, { ...req.headers, authorization: `Bearer ${key}` }, req.body));
    };
    const legacy = async (key: string) => {
      const id = await openSession(ours.port, key);
      const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
      return size(await post(ours.port, headers, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
    };
    return {
      allModern: await modern(allKey),
      allLegacy: await legacy(allKey),
      readerModern: await modern(readerKey),
      readerLegacy: await legacy(readerKey),
    };
  } finally {
    await ours.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 4. answers sized for an assistant

/**
 * `tools/list` JSON bytes (the `tools` result, as section 3 counts them) at commit e6a42c2, before the smaller defaults: the same
 * bench run on that commit (`npm run bench -- mcp bytes`). Old code cannot run beside the new, so they are recorded.
 */
const TOOL_LIST_BEFORE = { modern: 39_471, legacy: 39_440 };

interface AnswerSizes {
  scoreDefault: number;
  scoreFull: number;
  scoreDefaultMcp: number;
  scoreFullMcp: number;
  artifactsDefault: number;
  artifactsAll: number;
  artifactsDefaultMcp: number;
  artifactsAllMcp: number;
  draftWords: number;
  jobWords: number;
}

async function answerSizes(): Promise<AnswerSizes> {
  const t = await startTestApp({ env: { AGENT_API_OFFLINE: '1' } });
  const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  try {
    const o = await t.org('agency');
    const c = await t.client(o.id);
    const key = (await t.key(o.id)).apiKey;
    const started = await t.request<{ optimization_id: string }>('POST', '/optimize', {
      key,
      body: { url: ESPRESSO_PAGE, keyword: ESPRESSO_KEYWORD },
      headers: { 'Idempotency-Key': 'bench-answers' },
    });
    const job = await t.request<{ job_id: string }>('POST', '/copywriter/jobs', {
      key,
      body: { topic: 'emergency plumber', client_id: c.id, page_contract: 'article', word_count_target: 1500 },
    });
    for (let i = 0; i < 20; i++) {
      await t.engine.runner.runUntilIdle();
      const status = await t.request<{ status: string }>('GET', `/copywriter/jobs/${job.body.job_id}`, { key });
      if (status.body.status === 'completed') break;
      t.clock.advance(11 * 60_000);
    }
    const id = started.body.optimization_id;
    const draft = espressoArticle(3_000);
    const body = { content: draft, format: 'markdown', title: ESPRESSO_TITLE, meta_description: ESPRESSO_DESCRIPTION };
    const score = (view: string) =>
      t.request('POST', `/optimizations/${id}/score`, { key, body: { ...body, view } }).then((r) => bytes(r.body));
    const artifacts = (query: Record<string, string>) =>
      t
        .request<{ draft?: { word_count?: number } }>('GET', `/copywriter/jobs/${job.body.job_id}/artifacts`, {
          key,
          query,
        })
        .then((r) => ({ bytes: bytes(r.body), words: r.body.draft?.word_count ?? 0 }));
    const mcp = await connectHttpClient(t.url, key);
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        bytes(await mcp.client.callTool({ name, arguments: args }));
      const artifactsDefault = await artifacts({});
      return {
        // The full answer first: the default then carries its delta, as a rewrite loop's second score does.
        scoreFull: await score('full'),
        scoreDefault: await score('summary'),
        scoreFullMcp: await call('score_content', { optimization_id: id, ...body, view: 'full' }),
        scoreDefaultMcp: await call('score_content', { optimization_id: id, ...body }),
        artifactsDefault: artifactsDefault.bytes,
        artifactsAll: (await artifacts({ include: 'all' })).bytes,
        artifactsDefaultMcp: await call('get_content_artifacts', { job_id: job.body.job_id }),
        artifactsAllMcp: await call('get_content_artifacts', { job_id: job.body.job_id, include: ['all'] }),
        draftWords: draft.split(/\s+/).length,
        jobWords: artifactsDefault.words,
      };
    } finally {
      await mcp.close();
    }
  } finally {
    await t.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------

const ms = (x: number) => x.toFixed(0);
const ratio = (x: number, y: number) => (y > 0 ? (x / y).toFixed(2) : '-');
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISS');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export async function run(args: string[]): Promise<void> {
  const only = args.filter((a) => !a.startsWith('-'));
  const want = (name: string) => only.length === 0 || only.includes(name);
  const loadBefore = load();
  const started = performance.now();
  const tmp = tempDir('agent-api-bench-');
  try {
    const base = { AGENT_API_DB: tmp.dbPath, AGENT_API_LOG_LEVEL: 'warn' };
    const init = await cli(base, 'init', '--json');
    const orgId = String(init.org_id);
    const allKey = String(init.api_key);
    const reader = await cli(base, 'keys', 'create', '--org', orgId, '--scopes', 'reporter:read', '--json');
    const readerKey = String(reader.api_key);
    const rows: string[][] = [];
    const notes: string[] = [];

    if (want('stdio')) {
      const s = await stdioBench({ ...base, AGENT_API_KEY: allKey });
      notes.push(`stdio loader: ${s.loader}`);
      notes.push(
        `stdio: ${s.ours.tools} tools (ours), ${s.minimal.tools} (minimal); medians of ${s.ours.runs} runs (${s.oursProbe.runs} with the probe) after 1 warm-up (2025 opening); spawn -> answer, ms` +
          (s.switched ? `; ${s.switched} runs of ours skipped: the launcher switched loader (sources edited)` : ''),
      );
      const stdioRow = (measure: string, ours: number, minimal: number, goal = '') => [
        measure,
        ms(ours),
        ms(minimal),
        ratio(ours, minimal),
        goal,
        goal ? verdict(ours <= 2 * minimal) : '',
      ];
      rows.push(
        stdioRow('stdio -> initialize answered (2025-11-25, SDK v1 client)', s.ours.connectMs, s.minimal.connectMs),
      );
      rows.push(
        stdioRow(
          'stdio -> tools/list answered (2025-11-25, SDK v1 client)',
          s.ours.listMs,
          s.minimal.listMs,
          '<= 2.00',
        ),
      );
      rows.push(
        stdioRow(
          'stdio -> tools/list answered (2026-07-28, v2 client, prior discover)',
          s.oursPrior.listMs,
          s.minimalPrior.listMs,
          '<= 2.00',
        ),
      );
      rows.push(
        stdioRow(
          'stdio -> discover answered (2026-07-28, v2 pinned: sibling probe)',
          s.oursProbe.connectMs,
          s.minimalProbe.connectMs,
        ),
      );
      rows.push(
        stdioRow(
          'stdio -> tools/list answered (2026-07-28, v2 pinned: 2 spawns)',
          s.oursProbe.listMs,
          s.minimalProbe.listMs,
        ),
      );
      rows.push(
        stdioRow(
          'stdio first start on a fresh DB -> tools/list (warm-up, 2025)',
          s.ours.firstListMs,
          s.minimal.firstListMs,
        ),
      );
      rows.push(
        stdioRow(
          'stdio first start: stdin closed -> process exited (warm-up)',
          s.ours.firstExitMs,
          s.minimal.firstExitMs,
        ),
      );
      rows.push(stdioRow('stdio stdin closed -> process exited (last run only)', s.ours.exitMs, s.minimal.exitMs));
    }

    const env = { AGENT_API_DB: tmp.dbPath, AGENT_API_LOG_LEVEL: 'info' };
    if (want('http')) {
      const keys = await issueKeys(tmp.dbPath, orgId, KEYS);
      const h = await httpBench(env, keys);
      notes.push(
        `http: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_MS} ms per side after 1 warm-up; ours rotates ${keys.length} agency keys (120/min each), 2025-11-25 over ${h.sessions} sessions`,
      );
      rows.push([
        'HTTP tools/call get_usage calls/s, ours 2026-07-28 vs minimal v2',
        h.modern.perSecond.toFixed(0),
        h.base.perSecond.toFixed(0),
        ratio(h.modern.perSecond, h.base.perSecond),
        '>= 0.80',
        verdict(h.modern.perSecond >= 0.8 * h.base.perSecond),
      ]);
      rows.push([
        'HTTP tools/call get_usage calls/s, ours 2026-07-28 vs ours 2025-11-25',
        h.modern.perSecond.toFixed(0),
        h.legacy.perSecond.toFixed(0),
        ratio(h.modern.perSecond, h.legacy.perSecond),
        '',
        '',
      ]);
      rows.push([
        'HTTP server CPU µs per call, ours 2026-07-28 vs minimal v2',
        h.modern.cpuUsPerOp.toFixed(0),
        h.base.cpuUsPerOp.toFixed(0),
        ratio(h.base.cpuUsPerOp, h.modern.cpuUsPerOp),
        '(minimal/ours)',
        '',
      ]);
      rows.push([
        'HTTP server CPU µs per call, ours 2025-11-25 vs minimal v2',
        h.legacy.cpuUsPerOp.toFixed(0),
        h.base.cpuUsPerOp.toFixed(0),
        ratio(h.base.cpuUsPerOp, h.legacy.cpuUsPerOp),
        '(minimal/ours)',
        '',
      ]);
      rows.push([
        'HTTP p99 ms (median of rounds), ours 2026-07-28 | 2025-11-25',
        `${h.modern.p99.toFixed(1)} | ${h.legacy.p99.toFixed(1)}`,
        h.base.p99.toFixed(1),
        '',
        '',
        '',
      ]);
      for (const [name, v] of [
        ['ours 2026-07-28', h.modern],
        ['ours 2025-11-25', h.legacy],
        ['minimal v2', h.base],
      ] as const)
        if (v.errors) rows.push([`HTTP failed calls (${name})`, String(v.errors), '', '', '0', 'MISS']);
    }

    if (want('bytes')) {
      const b = await toolsListSizes(env, allKey, readerKey);
      rows.push([
        `tools/list result bytes, all-scope key, 2026-07-28 vs 2025-11-25 (${b.allModern.tools} tools)`,
        String(b.allModern.bytes),
        String(b.allLegacy.bytes),
        ratio(b.allModern.bytes, b.allLegacy.bytes),
        '',
        '',
      ]);
      rows.push([
        `tools/list result bytes, reporter:read key vs all-scope, 2026-07-28 (${b.readerModern.tools} tools)`,
        String(b.readerModern.bytes),
        String(b.allModern.bytes),
        ratio(b.readerModern.bytes, b.allModern.bytes),
        '',
        '',
      ]);
      rows.push([
        `tools/list result bytes, reporter:read key vs all-scope, 2025-11-25 (${b.readerLegacy.tools} tools)`,
        String(b.readerLegacy.bytes),
        String(b.allLegacy.bytes),
        ratio(b.readerLegacy.bytes, b.allLegacy.bytes),
        '',
        '',
      ]);
    }

    if (want('answers')) {
      const b = await toolsListSizes(env, allKey, readerKey);
      const cap = `<= ${TOOL_LIST_MAX_BYTES}`;
      for (const [era, now, before] of [
        ['2026-07-28', b.allModern.bytes, TOOL_LIST_BEFORE.modern],
        ['2025-11-25', b.allLegacy.bytes, TOOL_LIST_BEFORE.legacy],
      ] as const)
        rows.push([
          `tools/list bytes, all-scope key, ${era}: now vs before (e6a42c2)`,
          String(now),
          String(before),
          ratio(now, before),
          cap,
          verdict(now <= TOOL_LIST_MAX_BYTES),
        ]);
      const a = await answerSizes();
      const kb = (limit: number) => `<= ${limit * 1024}`;
      rows.push(
        [
          `score_content ${a.draftWords}-word draft, REST body: default vs view=full (= old default)`,
          String(a.scoreDefault),
          String(a.scoreFull),
          ratio(a.scoreDefault, a.scoreFull),
          kb(6),
          verdict(a.scoreDefault <= 6 * 1024),
        ],
        [
          `score_content ${a.draftWords}-word draft, MCP result: default vs view=full`,
          String(a.scoreDefaultMcp),
          String(a.scoreFullMcp),
          ratio(a.scoreDefaultMcp, a.scoreFullMcp),
          kb(6),
          verdict(a.scoreDefaultMcp <= 6 * 1024),
        ],
        [
          `get_content_artifacts 1,500-word job (${a.jobWords} words drafted), REST body: default vs include=all (= old default)`,
          String(a.artifactsDefault),
          String(a.artifactsAll),
          ratio(a.artifactsDefault, a.artifactsAll),
          kb(12),
          verdict(a.artifactsDefault <= 12 * 1024),
        ],
        [
          'get_content_artifacts 1,500-word job, MCP result: default vs include=all',
          String(a.artifactsDefaultMcp),
          String(a.artifactsAllMcp),
          ratio(a.artifactsDefaultMcp, a.artifactsAllMcp),
          kb(12),
          verdict(a.artifactsDefaultMcp <= 12 * 1024),
        ],
      );
      notes.push(
        'answers: bytes of JSON; a score_content default after a first score carries its delta; a 5-rewrite loop pays 5 scores',
      );
    }

    process.stdout.write(table(['measure', 'value', 'baseline', 'ratio', 'goal', 'verdict'], rows));
    for (const n of notes) process.stdout.write(`${n}\n`);
    process.stdout.write(
      `load average (1/5/15 min): before ${loadBefore}, after ${load()}; ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
  } finally {
    tmp.cleanup();
  }
}
