/**
 * The one tool of the minimal SDK v2 bench servers: `get_usage` answering a constant body of the same shape and size
 * as the real tool's, with no auth, database or limits.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const Window = z.object({
  limit: z.number().int(),
  used: z.number().int(),
  reserved: z.number().int(),
  remaining_percent: z.number(),
  recovers_at: z.string().nullable(),
});
const Usage = z.object({
  plan: z.string(),
  rate_limit_per_minute: z.number().int(),
  windows: z.object({ '24h': Window, '7d': Window }),
});
const window = (limit: number) => ({ limit, used: 0, reserved: 0, remaining_percent: 100, recovers_at: null });
const USAGE = { plan: 'agency', rate_limit_per_minute: 120, windows: { '24h': window(1_500), '7d': window(7_500) } };
const TEXT = `Get usage: ${JSON.stringify(USAGE)}`;

/** A fresh minimal server (the SDK entries build one per connection or per request). */
export function minimalServer(): McpServer {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  server.registerTool(
    'get_usage',
    { description: 'Current usage (a constant).', inputSchema: z.object({}), outputSchema: Usage },
    async () => ({ structuredContent: USAGE, content: [{ type: 'text', text: TEXT }] }),
  );
  return server;
}
