/**
 * Bench baseline: a minimal MCP SDK server over Streamable HTTP (same transport class, Hono and node-server as the
 * app) with one tool answering a constant; no auth, database or limits. Prints {"port"} once listening.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
const app = new Hono();
app.post('/mcp', async (c) => {
  const id = c.req.header('mcp-session-id');
  if (id) return sessions.get(id)!.handleRequest(c.req.raw);
  const body = await c.req.json();
  if (!isInitializeRequest(body)) return c.text('bad request', 400);
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  server.registerTool(
    'get_usage',
    { description: 'constant', inputSchema: z.object({}), outputSchema: z.object({ plan: z.string() }) },
    async () => ({
      structuredContent: { plan: 'agency' },
      content: [{ type: 'text', text: '{"plan":"agency"}' }],
    }),
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (sid) => void sessions.set(sid, transport),
  });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw, { parsedBody: body });
});
app.get('/mcp', () => new Response(null, { status: 405 }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
  process.stdout.write(`${JSON.stringify({ port: info.port })}\n`),
);
process.once('SIGTERM', () => process.exit(0));
