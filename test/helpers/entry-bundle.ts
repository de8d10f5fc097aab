/**
 * Test entry scripts run as child processes (the widget server of the crash tests, the migration runner). Run through
 * tsx, each start compiled and loaded some 400 TypeScript modules in the child: 4-5 s of CPU per process, a large
 * share of the suite's time. Bundled with esbuild, as the server itself is (scripts/build.mjs), a start takes under a
 * second. Each test worker bundles an entry once per run (about 0.3 s) into `.test-entries/` at the checkout's root:
 * one folder below it like src/ and dist/, so what the modules find beside themselves (the sample archive, the
 * package manifest) is where it is for the sources. npm packages stay external and load from node_modules.
 */
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT_DIR = join(ROOT, '.test-entries');

const bundles = new Map<string, Promise<string>>();

/** The bundled module of a TypeScript entry script (a path from the checkout's root, or absolute). */
export function bundledEntry(script: string): Promise<string> {
  const source = resolve(ROOT, script);
  let bundle = bundles.get(source);
  if (!bundle) {
    bundle = bundleOnce(source);
    bundles.set(source, bundle);
  }
  return bundle;
}

async function bundleOnce(source: string): Promise<string> {
  // Named by the script and its path, so two scripts of one name (in two temporary folders) never share a bundle.
  const tag = createHash('sha256').update(source).digest('hex').slice(0, 8);
  const out = join(OUT_DIR, `${basename(source).replace(/\.[cm]?ts$/, '')}-${tag}.mjs`);
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [source],
    outfile: out,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(OUT_DIR, { recursive: true });
  // Other workers may bundle the same entry at the same time: each writes its own file and renames it into place, so
  // a process never starts from a half-written one (the bundles are identical).
  const temp = `${out}.${process.pid}.tmp`;
  writeFileSync(temp, result.outputFiles[0]!.contents);
  renameSync(temp, out);
  return out;
}
