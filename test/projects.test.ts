import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bootChain, NOT_UNIT, runtimeImports, testFiles, unitTestFiles } from './helpers/projects.ts';

/**
 * The rule that splits the test files into the `unit` project (boots nothing) and the others (vitest.config.ts,
 * test/helpers/projects.ts). The unit project's setup file makes booting throw, so a wrong split fails there; these
 * tests pin the rule itself.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

describe('the unit project', () => {
  it('takes the files that import no booting module, helper or source, and names the chain of the others', () => {
    expect(bootChain(root, 'test/mcp/fit.test.ts')).toBeNull();
    expect(bootChain(root, 'test/transport/smoke.test.ts')).toEqual([
      'test/transport/smoke.test.ts',
      'test/helpers/app.ts',
    ]);
    // Through a test-side helper of another folder.
    expect(bootChain(root, 'test/engine/provider-retries.test.ts')?.at(-1)).toBe('test/helpers/app.ts');
    expect(bootChain(root, 'test/store/db.test.ts')).not.toBeNull();
  });

  it('ignores type-only imports and follows re-exports', () => {
    // test/helpers/clock.ts imports only a type from src.
    expect(runtimeImports(root, 'test/helpers/clock.ts')).toEqual([]);
    expect(runtimeImports(root, 'test/helpers/snippet.ts')).toContain('test/helpers/run-bin.ts');
    expect(runtimeImports(root, 'test/helpers/leases.ts')).toEqual([]);
  });

  it('is a part of the test files, and every exception names a file that exists', () => {
    const all = testFiles(root);
    const unit = unitTestFiles(root);
    expect(unit.length).toBeGreaterThan(20);
    expect(unit.length).toBeLessThan(all.length);
    expect(unit).toContain('test/projects.test.ts');
    for (const file of Object.keys(NOT_UNIT)) expect(all).toContain(file);
  });
});
