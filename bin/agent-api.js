#!/usr/bin/env node
// Launcher. An installed package (npm pack, npx) ships dist/ and no sources, so it always runs dist/. A checkout runs
// the build in dist/ (scripts/build.mjs; `npm install` makes it) when it is newer than every source file, else it
// registers the tsx loader and runs the TypeScript sources (a checkout being edited, or no build yet).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const built = new URL('dist/main.js', root);
const sources = new URL('src/', root);

/** The newest modification time under a folder (files only). */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = new URL(entry.isDirectory() ? `${entry.name}/` : entry.name, dir);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function buildIsFresh() {
  if (process.env.AGENT_API_FROM_SOURCE === '1') return false;
  try {
    const at = statSync(built).mtimeMs;
    return at >= newest(sources) && at >= statSync(new URL('package.json', root)).mtimeMs;
  } catch {
    return false;
  }
}

let main;
if (!existsSync(sources)) {
  // A package: its build is all there is (npm gives every packed file the same fixed time, so no freshness to check).
  if (!existsSync(built)) {
    process.stderr.write(`agent-api: ${fileURLToPath(built)} is missing; this package was packed without its build.\n`);
    process.exit(1);
  }
  ({ main } = await import(built.href));
} else if (buildIsFresh()) ({ main } = await import(built.href));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
await main(process.argv.slice(2));
