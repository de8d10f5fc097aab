#!/usr/bin/env node
// Launcher: runs the build in dist/ (scripts/build.mjs; `npm install` makes it) when it is newer than every source
// file, else registers the tsx loader and runs the TypeScript sources (a checkout being edited, or no build yet).
import { readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const built = new URL('dist/main.js', root);

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
    return at >= newest(new URL('src/', root)) && at >= statSync(new URL('package.json', root)).mtimeMs;
  } catch {
    return false;
  }
}

let main;
if (buildIsFresh()) ({ main } = await import(built.href));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
await main(process.argv.slice(2));
