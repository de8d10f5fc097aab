import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../src/package-root.ts';
import { ROOT } from './cli/helpers.ts';
import { tempDir } from './helpers/temp.ts';

const tmp = tempDir('agent-api-root-');
afterAll(tmp.cleanup);

/** A tree: outer/package.json (ours), outer/inner/package.json (another package's), modules at several depths. */
function tree(): { outer: string; inner: string } {
  const outer = join(tmp.dir, 'outer');
  const inner = join(outer, 'node_modules', 'inner');
  mkdirSync(join(outer, 'dist'), { recursive: true });
  mkdirSync(join(outer, 'src', 'cli', 'commands'), { recursive: true });
  mkdirSync(join(inner, 'lib'), { recursive: true });
  writeFileSync(join(outer, 'package.json'), JSON.stringify({ name: 'agent-api', version: '9.9.9' }));
  writeFileSync(join(inner, 'package.json'), JSON.stringify({ name: 'something-else' }));
  return { outer, inner };
}

describe('packageRoot', () => {
  it('is the checkout for this module (sources through tsx)', () => {
    expect(packageRoot()).toBe(ROOT.replace(/\/$/, ''));
  });

  it('finds the same folder from any depth: a dist/ chunk, a source three folders down, a file URL', () => {
    const { outer } = tree();
    expect(packageRoot(join(outer, 'dist', 'chunk-ABC.js'))).toBe(outer);
    expect(packageRoot(join(outer, 'src', 'cli', 'commands', 'run.ts'))).toBe(outer);
    expect(packageRoot(pathToFileURL(join(outer, 'dist', 'main.js')))).toBe(outer);
    expect(packageRoot(pathToFileURL(join(outer, 'dist', 'main.js')).href)).toBe(outer);
  });

  it("walks past another package's package.json and a damaged one", () => {
    const { outer, inner } = tree();
    expect(packageRoot(join(inner, 'lib', 'x.js'))).toBe(outer);
    writeFileSync(join(inner, 'package.json'), '{ not json');
    expect(packageRoot(join(inner, 'lib', 'x.js'))).toBe(outer);
  });

  it('says so when no package.json above is ours', () => {
    const lone = join(tmp.dir, 'lone');
    mkdirSync(lone, { recursive: true });
    expect(() => packageRoot(join(lone, 'x.js'))).toThrow(/no package\.json named agent-api above/);
  });
});
