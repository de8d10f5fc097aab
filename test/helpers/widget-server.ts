/** A real server process serving the registry plus the test widget (crash and restart tests spawn it). */
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { serveUntilSignal } from '../../src/cli/commands/run.ts';
import { processIo } from '../../src/cli/output.ts';
import { widgetOperations, widgetPipeline } from './widget.ts';

const config = loadConfig();
const providerUrl = process.env.WIDGET_PROVIDER_URL ?? 'http://127.0.0.1:9';
const app = await createApp({
  config,
  operations: [...OPERATIONS, ...widgetOperations()],
  pipelines: (engine) => [widgetPipeline(engine, () => providerUrl)],
  runnerOwner: process.env.RUNNER_OWNER,
});
await serveUntilSignal(app, processIo, '127.0.0.1', 0);
