import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pkg from '../package.json' with { type: 'json' };

/**
 * The folder of this package: the nearest folder above `from` whose package.json is named like ours. A path fixed
 * relative to one module cannot serve, because the same code runs from src/ (through tsx), from a chunk at the top of
 * dist/ (the build), and from an installed or npx-fetched copy of the package, each at a different depth.
 */
export function packageRoot(from: string | URL = import.meta.url): string {
  const start = typeof from === 'string' && !from.startsWith('file:') ? from : fileURLToPath(from);
  for (let dir = dirname(start); ; dir = dirname(dir)) {
    if (isOurPackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json named ${pkg.name} above ${start}`);
  }
}

function isOurPackage(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    const manifest: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof manifest === 'object' && manifest !== null && 'name' in manifest && manifest.name === pkg.name;
  } catch {
    return false; // a damaged package.json belongs to nobody; keep walking up
  }
}
