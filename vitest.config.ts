import { defineConfig } from 'vitest/config';

/**
 * Suites that measure a real server process under load (graceful stop with requests in flight): they run after
 * everything else, one file at a time, so the rest of the suite does not starve the process they measure.
 */
const ALONE = ['test/transport/shutdown.test.ts'];

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
          exclude: ALONE,
          fileParallelism: true,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
