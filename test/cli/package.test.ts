import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { listToolsAs, printedStdioEntry, runBin } from '../helpers/snippet.ts';
import { tempDir } from '../helpers/temp.ts';
import { oneJson, ROOT, terminate, waitForStderr } from './helpers.ts';

/**
 * What `npm pack` makes: a package that holds what it needs to run and nothing else, and runs from an empty folder
 * with its data there (or at AGENT_API_DB), reading nothing from the checkout.
 *
 * It packs the dist/ that is there (`npm test` builds it first; `npm pack` itself would rebuild it through `prepare`,
 * which would pull dist/ from under other suites running at the same time). Installing the tarball's dependencies from
 * the registry takes minutes (better-sqlite3 is compiled), so the unpacked package gets a node_modules of links to
 * the checkout's copies of its production dependencies only (`npm ls --omit=dev`), less tsx and esbuild: the package
 * must run its build, never the sources through tsx.
 */

const run = promisify(execFile);
const tmp = tempDir('agent-api-package-');
afterAll(tmp.cleanup);

const BUILD_ONLY = new Set(['tsx', 'esbuild']);
let files: string[] = [];
let pkg = '';
let bin = '';
let before: Map<string, string>;

/** The package's files with size and modification time (node_modules, the links added here, left out). */
function snapshot(dir: string, into = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (dir === pkg && entry.name === 'node_modules') continue;
    if (entry.isDirectory()) snapshot(path, into);
    else into.set(relative(pkg, path), `${statSync(path).size} ${statSync(path).mtimeMs}`);
  }
  return into;
}

/** A new empty folder, and the clean environment a user's shell would give (no AGENT_API_* unless named). */
function emptyFolder(name: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  return dir;
}
const userEnv = (env: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  AGENT_API_LOG_LEVEL: 'warn',
  ...env,
});

/** The checkout's production dependencies at the top of its node_modules (hoisted ones included). */
async function productionDependencies(): Promise<string[]> {
  const out = await run('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, maxBuffer: 16 << 20 }).then(
    (r) => r.stdout,
    // npm ls exits non-zero on a tree it finds untidy (an extraneous package) but still lists it.
    (err: { stdout?: string }) => err.stdout ?? '',
  );
  const top = join(ROOT, 'node_modules');
  return out
    .split('\n')
    .filter((p) => p.startsWith(top + '/'))
    .map((p) => relative(top, p))
    .filter((name) => /^(@[^/]+\/)?[^/]+$/.test(name));
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error('no dist/main.js: run `npm run build` first');
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp.dir], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
  });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info!.files.map((f) => f.path).sort();
  await run('tar', ['-xzf', join(tmp.dir, info!.filename), '-C', tmp.dir]);
  pkg = join(tmp.dir, 'package');
  bin = join(pkg, 'bin', 'agent-api.js');
  before = snapshot(pkg);
  for (const name of await productionDependencies()) {
    if (BUILD_ONLY.has(name)) continue;
    mkdirSync(dirname(join(pkg, 'node_modules', name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(pkg, 'node_modules', name), 'dir');
  }
}, 120_000);

describe('the npm package', { timeout: 120_000 }, () => {
  it('holds the launcher, the build, the MCP Apps views, the docs and the sample archive, and nothing else', () => {
    for (const needed of [
      'package.json',
      'README.md',
      'bin/agent-api.js',
      'dist/main.js',
      'dist/apps/draft.html',
      'dist/apps/optimize-report.html',
      'dist/apps/trend-chart.html',
      'docs/oauth.md',
      'web-archive/sample.warc.gz',
      'web-archive/README.md',
      'web-archive/pages/manifest.json',
    ])
      expect(files).toContain(needed);
    const unwanted = files.filter(
      (f) =>
        /^(src|test|bench|scripts|\.ci|data|node_modules)\//.test(f) ||
        /fixtures/.test(f) ||
        /\.(ts|map)$/.test(f) ||
        f.startsWith('web-archive/pages/sites/'),
    );
    expect(unwanted).toEqual([]);
    // Outside dist/ and docs/, exactly these: the sample archive's sources, server.json and mcp.json stay behind.
    expect(files.filter((f) => !/^(dist|docs)\//.test(f))).toEqual([
      'README.md',
      'bin/agent-api.js',
      'package.json',
      'web-archive/README.md',
      'web-archive/pages/manifest.json',
      'web-archive/sample.warc.gz',
    ]);
  });

  it('from an empty folder: init --json creates the database in that folder, and init prints a snippet that serves', async () => {
    const cwd = emptyFolder('first-use');
    const created = oneJson<{ api_key: string }>(await runBin(bin, ['init', '--json'], cwd, userEnv()));
    expect(created.api_key).toMatch(/^aapi_/);
    expect(existsSync(join(cwd, 'data', 'agent-api.db'))).toBe(true);

    // The human form (a new key on the same database) prints the Claude Desktop entry: the installed launcher.
    const again = await runBin(bin, ['init', '--force-new-key'], cwd, userEnv());
    expect(again.code, again.stderr).toBe(0);
    const entry = printedStdioEntry(again.stdout);
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([bin, 'mcp']);
    expect(entry.env.AGENT_API_DB).toBe(join(cwd, 'data', 'agent-api.db'));
    const tools = await listToolsAs(entry, emptyFolder('claude-desktop'));
    expect(tools).toContain('start_optimization');
  });

  it('mcp keeps its data at AGENT_API_DB and serves tools/list', async () => {
    const cwd = emptyFolder('mcp-cwd');
    const db = join(tmp.dir, 'elsewhere', 'store.db');
    const { api_key } = oneJson<{ api_key: string }>(
      await runBin(bin, ['init', '--json'], cwd, userEnv({ AGENT_API_DB: db })),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp'],
      env: userEnv({ AGENT_API_DB: db, AGENT_API_KEY: api_key }),
      cwd,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'agent-api-package-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('get_usage');
      const usage = await client.callTool({ name: 'get_usage', arguments: {} });
      expect(usage.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(existsSync(db)).toBe(true);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("start serves /healthz and the sample archive inside the package, keeping its data in the folder's data/", async () => {
    const cwd = emptyFolder('start');
    const child = spawn(process.execPath, [bin, 'start', '--port', '0'], {
      cwd,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    try {
      const [, url] = await waitForStderr(child, /serving REST at (http:\/\/\S+?)\/api\/agent\/v1/, 90_000);
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(stdout).toMatch(/aapi_[0-9A-Za-z]{36}/);
      expect(stdout).toContain(`Offline web: the sample archive at ${join(pkg, 'web-archive')} (1 WARC file, 64 pages`);
      expect(printedStdioEntry(stdout).args).toEqual([bin, 'mcp']);
    } finally {
      expect(await terminate(child)).toBe(0);
    }
    expect(existsSync(join(cwd, 'data', 'agent-api.db'))).toBe(true);
  });

  it('nothing was written into the package', () => {
    expect(snapshot(pkg)).toEqual(before);
  });
});
