import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient, connectModernHttpClient, structured } from '../helpers/mcp.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { TOOL_LIST_MAX_BYTES } from '../../src/transport/mcp/compact-schema.ts';

/**
 * The tool list an assistant pays for on every session: at most TOOL_LIST_MAX_BYTES of JSON with every scope,
 * in both protocol eras, through a real SDK client; shaped by the key's scopes (a hidden tool is still the API's 403
 * when called); narrowed by AGENT_API_TOOLSETS.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe('tools/list size', () => {
  it(`is at most ${TOOL_LIST_MAX_BYTES / 1024} KB of JSON with every scope, in the 2025-11-25 and the 2026-07-28 era`, async () => {
    const { key } = await t.tenant('agency');
    const legacy = await connectHttpClient(t.url, key);
    const modern = await connectModernHttpClient(t.url, key);
    try {
      const a = await legacy.client.listTools();
      const b = await modern.client.listTools();
      console.info('tools/list bytes', { legacy: bytes(a), modern: bytes(b), tools: a.tools.length });
      // 2026-07-28 list results say how long they may be cached (per key); 2025-era results carry no cache fields.
      expect(b).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });
      expect(a).not.toHaveProperty('ttlMs');
      expect(a.tools).toHaveLength(OPERATIONS.length);
      expect(b.tools).toHaveLength(OPERATIONS.length);
      expect(bytes(a)).toBeLessThanOrEqual(TOOL_LIST_MAX_BYTES);
      expect(bytes(b)).toBeLessThanOrEqual(TOOL_LIST_MAX_BYTES);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});

describe('tools/list by scope', () => {
  it('a reporter:read key sees only the tools it may call; a hidden tool called anyway is 403 forbidden', async () => {
    const { orgId, clientId } = await t.tenant('agency');
    const { apiKey } = await t.key(orgId, ['reporter:read']);
    const expected = OPERATIONS.filter((op) => op.scope === null || op.scope === 'reporter:read')
      .map((op) => op.name)
      .sort();
    for (const connect of [connectHttpClient, connectModernHttpClient]) {
      const c = await connect(t.url, apiKey);
      try {
        const names = (await c.client.listTools()).tools.map((x) => x.name).sort();
        expect(names).toEqual(expected);
        expect(names).toContain('get_tracker_results');
        expect(names).not.toContain('create_content_job');
        const hidden = await c.client.callTool({
          name: 'create_content_job',
          arguments: { topic: 'x', client_id: clientId, page_contract: 'article', idempotency_key: 'k' },
        });
        expect(hidden.isError).toBe(true);
        expect(structured(hidden)).toMatchObject({
          error: { code: 'forbidden', details: { required_scope: 'copywriter:run' } },
        });
      } finally {
        await c.close();
      }
    }
  });
});

describe('AGENT_API_TOOLSETS', () => {
  it('narrows the list to the named toolsets; a tool outside them is an unknown tool', async () => {
    const narrow = await startTestApp({ env: { AGENT_API_TOOLSETS: 'tracker' } });
    try {
      const { key } = await narrow.tenant('agency');
      const c = await connectHttpClient(narrow.url, key);
      try {
        const names = (await c.client.listTools()).tools.map((x) => x.name).sort();
        expect(names).toEqual(
          OPERATIONS.filter((op) => op.family === 'tracker')
            .map((op) => op.name)
            .sort(),
        );
        await expect(c.client.callTool({ name: 'get_usage', arguments: {} })).rejects.toMatchObject({
          code: -32602,
        });
      } finally {
        await c.close();
      }
      // REST is not narrowed.
      expect((await narrow.request('GET', '/usage', { key })).status).toBe(200);
    } finally {
      await narrow.close();
    }
  });
});
