import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Vitest's default is cores - 1 (one worker on a 2-core machine); many files mostly wait on spawned servers and
    // loopback I/O, so three workers overlap that waiting.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: true,
  },
});
