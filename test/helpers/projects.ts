import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Which test files boot nothing: the `unit` project of vitest.config.ts, computed from the files themselves so the
 * list cannot drift. A test file is a unit test when nothing its test-side code imports (the file, and the files under
 * test/, bench/ and scripts/ it imports, transitively; `import type` does not count) is a marker of booting:
 *
 * - a module that starts a process, a server, a connection, a worker, a database or a browser (BOOTING_MODULES);
 * - a source module that boots the app or opens its store (BOOTING_SOURCES);
 * - a test helper that does one of those (BOOTING_HELPERS).
 *
 * Imports of src/ are not followed: loading a module boots nothing, calling it might. What a unit test calls is checked
 * as it runs: the unit project's setup file (test/helpers/unit-guard.ts) makes listening, connecting, spawning, worker
 * threads and SQLite throw, so a file that slips through fails loudly and names itself instead of slowing the loop.
 * Such a file, or one that must stay in `main` for another reason, goes in NOT_UNIT with the reason.
 */

/** Bare module names (and `node:` built-ins) whose import marks a test file as booting. */
export const BOOTING_MODULES: readonly string[] = [
  'better-sqlite3',
  'better-sqlite3-napi',
  'pg',
  'puppeteer-core',
  'esbuild',
  'undici',
  'node:child_process',
  'node:http',
  'node:https',
  'node:http2',
  'node:net',
  'node:tls',
  'node:dgram',
  'node:worker_threads',
  '@modelcontextprotocol/sdk/client/stdio.js',
  '@modelcontextprotocol/sdk/client/streamableHttp.js',
];

/** Source modules (repository paths) whose import marks a test file as booting. */
export const BOOTING_SOURCES: readonly string[] = [
  'src/app.ts',
  'src/store/db.ts',
  'src/store/migrations/index.ts',
  'src/sqlite-driver.ts',
  'src/archive-index.ts',
  'src/cli/commands/run.ts',
  'src/providers/web/archive/page-text-workers.ts',
  // a web archive opens (or builds) its SQLite record and search indexes
  'src/providers/web/archive/index.ts',
  'src/providers/web/archive/archive.ts',
  'src/providers/search/archive-search.ts',
];

/** Test helpers (repository paths) that boot something; their importers are not unit tests. */
export const BOOTING_HELPERS: readonly string[] = [
  'test/helpers/app.ts',
  'test/helpers/billable-provider.ts',
  'test/helpers/browser.ts',
  'test/helpers/canary.ts',
  'test/helpers/cluster.ts',
  'test/helpers/entry-bundle.ts',
  'test/helpers/fake-providers/server.ts',
  'test/helpers/mcp.ts',
  'test/helpers/migrate-once.ts',
  'test/helpers/oauth.ts',
  'test/helpers/postgres.ts',
  'test/helpers/raw-http.ts',
  'test/helpers/run-bin.ts',
  'test/helpers/snippet.ts',
  'test/helpers/spawn.ts',
  'test/helpers/store.ts',
  'test/helpers/widget-server.ts',
];

/** Test files that pass the static rule but are not unit tests, each with its reason. */
export const NOT_UNIT: Readonly<Record<string, string>> = {
  'test/engine/analysis/extract-ratchet.test.ts':
    'a quality ratchet over a few hundred dataset pages (about 15 s of CPU, minutes on a busy machine): not a fast-loop test',
};

/** Folders whose files are test-side code: their imports are followed. */
const TEST_SIDE = ['test/', 'bench/', 'scripts/'];

// `import x from 'm'`, `import { a } from 'm'`, `import 'm'`, `export { a } from 'm'`, `import('m')`; not `import type`.
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The modules a file imports at run time: bare names as written, relative ones as repository paths. */
export function runtimeImports(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2])!;
    if (spec.startsWith('.'))
      out.push(
        relative(root, resolve(root, dirname(file), spec))
          .split(sep)
          .join('/'),
      );
    else out.push(spec.startsWith('node:') || !isBuiltin(spec) ? spec : `node:${spec}`);
  }
  return out;
}

const BUILTINS = new Set(['child_process', 'http', 'https', 'http2', 'net', 'tls', 'dgram', 'worker_threads']);
function isBuiltin(spec: string): boolean {
  return BUILTINS.has(spec);
}

/**
 * Why a test file boots something: the chain of imports from the file to the first marker (`a.test.ts -> helper.ts
 * -> node:http`), or null when it boots nothing.
 */
export function bootChain(root: string, file: string): string[] | null {
  const markers = new Set([...BOOTING_MODULES, ...BOOTING_SOURCES, ...BOOTING_HELPERS]);
  const seen = new Set<string>([file]);
  const queue: string[][] = [[file]];
  while (queue.length) {
    const chain = queue.shift()!;
    for (const dep of runtimeImports(root, chain.at(-1)!)) {
      if (markers.has(dep)) return [...chain, dep];
      if (seen.has(dep) || !TEST_SIDE.some((d) => dep.startsWith(d)) || !/\.[cm]?[jt]s$/.test(dep)) continue;
      seen.add(dep);
      queue.push([...chain, dep]);
    }
  }
  return null;
}

/** Every `*.test.ts` under test/, as repository paths, sorted. */
export function testFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.test.ts')) out.push(path);
    }
  };
  walk('test');
  return out.sort();
}

/** The unit project's files: every test file with no boot chain, less NOT_UNIT. */
export function unitTestFiles(root: string): string[] {
  return testFiles(root).filter((f) => !(f in NOT_UNIT) && bootChain(root, f) === null);
}
