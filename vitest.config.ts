import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { announcePostgresSkip, PG_AVAILABLE } from './test/helpers/postgres.ts';
import { unitTestFiles } from './test/helpers/projects.ts';

/**
 * Test files that boot nothing (no app, server, process, worker, database or browser): the `unit` project, a fast loop
 * on its own (`npx vitest run --project unit`). The list is computed from what each file imports
 * (test/helpers/projects.ts), so it cannot drift; its setup file makes booting throw, so nothing slips in.
 */
const UNIT = unitTestFiles(fileURLToPath(new URL('.', import.meta.url)));

/**
 * Suites that measure a real server process under load (graceful stop with requests in flight): they run after
 * everything else, one file at a time, so the rest of the suite does not starve the process they measure.
 */
const ALONE = ['test/transport/shutdown.test.ts'];

/** Suites that drive a real browser (Debian's chromium). */
const BROWSER = ['test/ui/**/*.test.ts'];

/**
 * Suites that run again on PostgreSQL (the `postgres` project): the same files, with every test app's store a fresh
 * database in one throwaway cluster of the run (AGENT_API_TEST_DIALECT=postgres). Tests that are SQLite-only by
 * nature skip themselves there.
 */
const POSTGRES = [
  // foundation: authentication, idempotency, rate limits, usage, the runner and its crash recovery (reliability A-D)
  'test/transport/{auth,idempotency,rate-limit,smoke,readyz,metrics}.test.ts',
  'test/store/{migrations,wake,shared-rate-limit,provider-slots}.test.ts',
  'test/engine/{usage,idempotency,runner,runner-crash,crash-idempotency}.test.ts',
  // the families
  'test/optimize/*.test.ts',
  'test/content/*.test.ts',
  'test/prospects/*.test.ts',
  'test/tracker/{routes,mcp,crash,snapshot,store}.test.ts',
];

/**
 * Suites that run several real `agent-api serve` processes on one PostgreSQL database (docs/postgresql.md), each on
 * its own database.
 */
const MULTIPROCESS = ['test/multiprocess/**/*.test.ts'];

/*
 * SHARED_GRAPH: the main, postgres and unit projects run their files without isolation, so the files of one worker
 * share the modules they import. Importing the app's module graph took 3.5-9 s per file that boots it, most of the
 * suite's time; shared, it is paid once per worker. It holds because nothing in src/ keeps state at module level that
 * a test changes (no file mocks a module; every app builds its own registry, store and clock), and files that change
 * process-wide settings (the environment, signal handlers) restore them.
 */

const multiprocessProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'multiprocess',
    include: MULTIPROCESS,
    env: { AGENT_API_TEST_DIALECT: 'postgres' },
    globalSetup: ['test/helpers/run-global.ts', 'test/helpers/postgres-global.ts'],
    fileParallelism: true,
    testTimeout: 120_000,
    sequence: { groupOrder: 0 },
  },
};

const postgresProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'postgres',
    include: POSTGRES,
    isolate: false,
    env: { AGENT_API_TEST_DIALECT: 'postgres' },
    globalSetup: ['test/helpers/run-global.ts', 'test/helpers/postgres-global.ts'],
    fileParallelism: true,
    // Beside the main project, not after it: one group keeps the three workers busy to the end instead of waiting
    // for the main project's last file.
    sequence: { groupOrder: 0 },
  },
};
if (!PG_AVAILABLE) announcePostgresSkip();

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is cores - 1 (one worker on a 2-core machine); many files mostly wait on spawned servers and
    // loopback I/O, so four workers overlap that waiting. Every project but `alone` runs in one group (groupOrder 0),
    // so the workers stay busy to the end (vitest runs a group's projects one after another in its queue, each
    // longest file first, and needs one worker count per group). Measured on 2 cores: 6m37 with the PostgreSQL,
    // browser and multi-process suites in later groups and three workers, 6m20 like this.
    maxWorkers: 4,
    // One web-archive index and a clean .test-entries/ for the run (the helper says why); the PostgreSQL projects
    // list it beside their cluster.
    globalSetup: ['test/helpers/run-global.ts'],
    testTimeout: 30_000,
    // Hooks that boot several real server processes one after another need this much on a machine running the suite
    // twice at once.
    hookTimeout: 120_000,
    // Transformed modules are kept on disk between runs (node_modules/.experimental-vitest-cache, keyed by each
    // file's content): a run after an edit transforms the edited files only. Two runs at once in one checkout trip
    // over each other's cache files: VITEST_FS_CACHE=0 turns it off for a run beside another.
    experimental: { fsModuleCache: process.env.VITEST_FS_CACHE !== '0' },
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...ALONE, ...BROWSER, ...MULTIPROCESS],
          fileParallelism: true,
          // The files of a worker share one module graph (SHARED_GRAPH below): the app's ~400 modules are imported
          // once per worker, not once per file.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          setupFiles: ['test/helpers/unit-guard.ts'],
          // Nothing is booted and no file mocks a module, so the files of a worker share one module graph: each
          // source module is imported once per worker, not once per file.
          isolate: false,
          fileParallelism: true,
          sequence: { groupOrder: 0 },
        },
      },
      ...(PG_AVAILABLE ? [postgresProject, multiprocessProject] : []),
      {
        extends: true,
        test: { name: 'browser', include: BROWSER, fileParallelism: true, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 3 } },
      },
    ],
  },
});
