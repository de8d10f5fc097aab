/** Bench entry: the real app (REST + MCP) on a loopback port; prints {"port"} on stdout once listening. */
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';

const config = loadConfig();
const app = await createApp({ config, logger: createLogger(config.AGENT_API_LOG_LEVEL) });
const { port } = await app.listen('127.0.0.1', 0);
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.once('SIGTERM', () => void app.close(1_000).then(() => process.exit(0)));
