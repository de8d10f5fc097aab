#!/usr/bin/env node
/**
 * Builds dist/: the command line and server bundled into plain JavaScript by esbuild (one module per entry plus
 * shared chunks; npm packages stay external). `npm install` runs it (the `prepare` script), and so does `npm test`
 * first (`pretest`), so what starts and what is tested is the build. bin/agent-api.js runs dist/ when it is newer
 * than every source file, and the TypeScript sources through tsx otherwise (a checkout being edited).
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const started = Date.now();
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // npm packages are bundled too (fewer modules to load is most of a fast start), except native code and those that
  // load files of their own at run time.
  external: [
    'better-sqlite3',
    'better-sqlite3-napi',
    'pino',
    'thread-stream',
    'wink-nlp',
    'wink-eng-lite-web-model',
    'tsx',
    'esbuild',
  ],
  sourcemap: 'linked',
  // Bundled CommonJS packages call require(); ES modules have none, so each chunk makes one.
  banner: {
    js: "import { createRequire as __agentApiRequire } from 'node:module'; const require = __agentApiRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
process.stderr.write(`agent-api: built dist/ in ${Math.round(Date.now() - started)} ms\n`);
