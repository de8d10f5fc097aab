/**
 * Bench entry for `npm run bench -- scale`: one real worker process running the project's runner against the store
 * its environment names (AGENT_API_DATABASE_URL, AGENT_API_DATABASE_POOL_SIZE, AGENT_API_RUNNER_CONCURRENCY), with a
 * one-step pipeline of kind `bench` whose step does nothing. It builds the app (migrations, pool, wake channel), prints
 * {"ready":true} and waits: the line `go` on stdin starts the runner, so every worker of a measurement starts at once
 * after their start-up costs; `stop` stops the runner (it answers {"stopped":true}) until the next `go`. SIGTERM
 * stops the process gracefully.
 */
import { createInterface } from 'node:readline';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { definePipeline } from '../../src/engine/runner/types.ts';

/** The kind of the bench's runs. */
export const BENCH_KIND = 'bench';

/** The one-step pipeline of the runner benches: nothing to enter, nothing to complete, a step that answers null. */
export function noopPipeline() {
  return definePipeline<'noop', void, { noop: null }>({
    kind: BENCH_KIND,
    steps: [{ name: 'noop', stage: 'noop', transient: false, run: async () => null }],
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
    pipelines: () => [noopPipeline()],
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
