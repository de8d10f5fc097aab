#!/usr/bin/env node
/**
 * Builds dist/: the command line and server bundled into plain JavaScript by esbuild (one module per entry plus
 * shared chunks; npm packages stay external). `npm install` runs it (the `prepare` script), and so does `npm test`
 * first (`pretest`), so what starts and what is tested is the build. bin/agent-api.js runs dist/ when it is newer
 * than every source file, and the TypeScript sources through tsx otherwise (a checkout being edited).
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const started = Date.now();
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The archive index's worker thread is an entry of its own, beside the chunks that start it (src/archive-index.ts).
  entryPoints: [
    { in: 'src/cli/main.ts', out: 'main' },
    { in: 'src/archive-index-worker.ts', out: 'archive-index-worker' },
  ],
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
await buildViews();
process.stderr.write(`agent-api: built dist/ in ${Date.now() - started} ms\n`);

/**
 * The MCP Apps views (src/ui/apps): each one HTML file with its script and styles inline (a host renders it in a
 * sandboxed iframe with no network), in dist/apps/<name>.html, served as `ui://agent-api/<name>` resources. Each
 * view module exports its `view` (defineView: the operations it renders, typed by their output schemas).
 */
async function buildViews() {
  const VIEWS = [
    { name: 'optimize-report', module: './optimize-report.ts', title: 'Optimize report' },
    { name: 'trend-chart', module: './trend-chart.ts', title: 'Visibility trend' },
    { name: 'draft', module: './draft.ts', title: 'Draft' },
  ];
  const css = readFileSync(`${root}src/ui/apps/view.css`, 'utf8');
  mkdirSync(`${root}dist/apps`, { recursive: true });
  for (const view of VIEWS) {
    const out = await build({
      absWorkingDir: root,
      stdin: {
        contents: `import { view } from '${view.module}';\nimport { mountView } from './view.ts';\nmountView(${JSON.stringify(view.title)}, view);\n`,
        resolveDir: `${root}src/ui/apps`,
        sourcefile: `${view.name}.entry.ts`,
        loader: 'ts',
      },
      bundle: true,
      minify: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'warning',
    });
    // A script's text may not contain "</script": escape it so the inline script cannot end early.
    const js = out.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
    const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${view.title}</title><style>${css}</style></head><body><main id="root"><p>Loading…</p></main><script>${js}</script></body></html>\n`;
    writeFileSync(`${root}dist/apps/${view.name}.html`, html);
  }
}
