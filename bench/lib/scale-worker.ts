/**
 * Bench entry for `npm run bench -- scale`: one real worker process running the project's runner against the store
 * its environment names (AGENT_API_DATABASE_URL, AGENT_API_DATABASE_POOL_SIZE, AGENT_API_RUNNER_CONCURRENCY), with a
 * one-step pipeline of kind `bench` whose step does nothing (or waits BENCH_STEP_MS first). It builds the app (migrations, pool, wake channel), prints
 * {"ready":true} and waits: the line `go` on stdin starts the runner, so every worker of a measurement starts at once
 * after their start-up costs; `stop` stops the runner (it answers {"stopped":true}) until the next `go`. SIGTERM
 * stops the process gracefully.
 */
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { definePipeline } from '../../src/engine/runner/types.ts';

/** The kind of the bench's runs. */
export const BENCH_KIND = 'bench';

/**
 * The one-step pipeline of the runner benches: nothing to enter, nothing to complete, a step that answers null, at
 * once or after `waitMs` (standing for a provider call's latency: the process is idle meanwhile).
 */
export function noopPipeline(waitMs = 0) {
  return definePipeline<'noop', void, { noop: null }>({
    kind: BENCH_KIND,
    steps: [
      {
        name: 'noop',
        stage: 'noop',
        transient: false,
        run: async ({ signal }) => (waitMs > 0 ? await delay(waitMs, null, { signal }) : null),
      },
    ],
    enterStage: async () => undefined,
    onComplete: async () => undefined,
    onFail: async () => undefined,
  });
}

if (process.env.BENCH_SCALE_WORKER === '1') {
  const config = loadConfig();
  const app = await createApp({
    config,
    logger: createLogger(config.AGENT_API_LOG_LEVEL),
    pipelines: () => [noopPipeline(Number(process.env.BENCH_STEP_MS ?? 0))],
  });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= app.close(1_000).then(() => process.exit(0)));
  process.once('SIGTERM', () => void close());
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const command = line.trim();
    if (command === 'go') void app.engine.runner.start();
    if (command === 'stop')
      void app.engine.runner.stop().then(() => process.stdout.write(`${JSON.stringify({ stopped: true })}\n`));
  });
  // The parent went away without a word: stop rather than linger.
  lines.on('close', () => void close());
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
}
