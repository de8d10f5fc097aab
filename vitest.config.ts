import { defineConfig } from 'vitest/config';

/**
 * Suites that measure a real server process under load (graceful stop with requests in flight): they run after
 * everything else, one file at a time, so the rest of the suite does not starve the process they measure.
 */
const ALONE = ['test/transport/shutdown.test.ts'];

/** Suites that drive a real browser (Debian's chromium): their own group, one file at a time, after the main one. */
const BROWSER = ['test/ui/**/*.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is cores - 1 (one worker on a 2-core machine); many files mostly wait on spawned servers and
    // loopback I/O, so three workers overlap that waiting.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [...ALONE, ...BROWSER],
          fileParallelism: true,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'browser', include: BROWSER, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
