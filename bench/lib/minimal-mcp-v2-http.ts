/**
 * Bench baseline: a minimal SDK v2 server over Streamable HTTP (`createMcpHandler`, one fresh server per request, on
 * @hono/node-server like the app) with the one constant tool; no auth, routing, database or limits. Prints {"port"}.
 */
import { serve } from '@hono/node-server';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { minimalServer } from './minimal-mcp-tool.ts';

const handler = createMcpHandler(() => minimalServer());
serve({ fetch: (request) => handler.fetch(request), hostname: '127.0.0.1', port: 0 }, (info) =>
  process.stdout.write(`${JSON.stringify({ port: info.port })}\n`),
);
process.once('SIGTERM', () => process.exit(0));
