import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startBillableProvider, type BillableProvider } from '../helpers/billable-provider.ts';
import { widgetOperations, widgetPipeline } from '../helpers/widget.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { connectHttpClient, connectStdioClient, structured } from '../helpers/mcp.ts';

describe('foundation smoke', () => {
  let t: TestApp;
  let provider: BillableProvider;
  beforeAll(async () => {
    provider = await startBillableProvider();
    t = await startTestApp({
      operations: [...OPERATIONS, ...widgetOperations()],
      pipelines: (e) => [widgetPipeline(e, () => provider.url)],
    });
  });
  afterAll(async () => {
    await t.close();
    await provider.close();
  });

  it('creates a widget over REST, runs it and charges once', async () => {
    const { clientId, key } = await t.tenant();
    const r = await t.request('POST', '/widgets', {
      key,
      body: { client_id: clientId, label: 'a' },
      headers: { 'idempotency-key': 'k1' },
    });
    expect(r.status).toBe(201);
    const again = await t.request('POST', '/widgets', {
      key,
      body: { label: 'a', client_id: clientId },
      headers: { 'idempotency-key': 'k1' },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await t.engine.runner.runUntilIdle();
    const got = await t.request('GET', `/widgets/${(r.body as { widget_id: string }).widget_id}`, { key });
    expect(got.body).toMatchObject({ status: 'complete', billing: 'charged' });
    expect(provider.runs()).toBe(1);
  });

  it('serves the same tools over MCP Streamable HTTP', async () => {
    const { key } = await t.tenant();
    const c = await connectHttpClient(t.url, key);
    const tools = await c.client.listTools();
    expect(tools.tools.map((x) => x.name)).toContain('get_usage');
    const res = await c.client.callTool({ name: 'get_usage', arguments: {} });
    expect(structured(res)).toMatchObject({ plan: 'starter' });
    const bad = await c.client.callTool({ name: 'list_clients', arguments: { limit: 1000 } });
    expect(bad.isError).toBe(true);
    expect(structured(bad)).toMatchObject({ error: { code: 'invalid_input' } });
    await expect(c.client.callTool({ name: 'get_usage', arguments: { nope: 1 } })).rejects.toMatchObject({
      code: -32602,
    });
    await c.close();
  });

  it('serves MCP over stdio from a spawned process', async () => {
    const { key } = await t.tenant();
    const c = await connectStdioClient({ ...t.storeEnv, AGENT_API_KEY: key });
    const res = await c.client.callTool({ name: 'get_usage', arguments: {} });
    expect(structured(res)).toMatchObject({ plan: 'starter' });
    await c.close();
  });
});
