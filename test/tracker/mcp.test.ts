import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { revokeApiKey } from '../../src/store/repos/api-keys.ts';
import { nobody, project, type Any } from './fixture.ts';

/** The seven tracker tools over MCP Streamable HTTP: metadata, each tool's success and its errors, as REST answers them. */

/**
 * The tracker's reads and its scan, from src/tools/registry.ts (project create, update and delete are
 * test/workspace/tracker-projects.test.ts's).
 */
const TOOLS = OPERATIONS.filter((op) => op.family === 'tracker' && !/^(create|update|delete)_/.test(op.name)).map(
  (op) => op.name,
);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function session(scopes?: string[], subscription: 'active' | 'inactive' = 'active') {
  const tenant = await t.tenant('agency', subscription);
  const key = scopes ? (await t.key(tenant.orgId, scopes)).apiKey : tenant.key;
  const mcp = await connectHttpClient(t.url, key);
  const tool = async (name: string, args: Record<string, unknown>) => {
    const res = await mcp.client.callTool({ name, arguments: args });
    t.clock.advance(1_000);
    return {
      isError: res.isError === true,
      body: structured<Any>(res),
      text: (res.content as { text: string }[])[0]?.text ?? '',
    };
  };
  return { ...tenant, key, mcp, tool };
}

describe('tracker tools', () => {
  let s: Awaited<ReturnType<typeof session>>;
  let id: string;
  beforeAll(async () => {
    s = await session();
    id = await project(t, s.clientId);
  });
  afterAll(async () => {
    await s.mcp.close();
  });

  it('are listed with annotations, input and output schemas; only the scan writes, and takes an optional idempotency_key', async () => {
    const { tools } = await s.mcp.client.listTools();
    const byName = new Map(tools.map((x) => [x.name, x]));
    expect(TOOLS).toHaveLength(7);
    for (const name of TOOLS) {
      const tool = byName.get(name)!;
      expect(tool, name).toBeDefined();
      const write = name === 'start_tracker_scan';
      expect(tool.annotations, name).toMatchObject({
        readOnlyHint: !write,
        destructiveHint: false,
        idempotentHint: !write,
        openWorldHint: write,
      });
      expect(tool.outputSchema, name).toBeDefined();
      const props = Object.keys((tool.inputSchema as { properties: object }).properties);
      expect(props.includes('idempotency_key'), name).toBe(write);
    }
    expect((byName.get('start_tracker_scan')!.inputSchema as { required: string[] }).required).toEqual(['project_id']);
    expect((byName.get('get_brand_summary')!.inputSchema as { required: string[] }).required).toEqual(['client_id']);
  });

  it('scan, then read the project, results, trends, summary and brand summary back', async () => {
    const started = await s.tool('start_tracker_scan', { project_id: id, idempotency_key: 'mcp-scan-1' });
    expect(started.isError).toBe(false);
    expect(started.body).toMatchObject({ project_id: id, status: 'queued', platforms: ['organic'], units: 2 });
    const replay = await s.tool('start_tracker_scan', { project_id: id, idempotency_key: 'mcp-scan-1' });
    expect(replay.body.run_id).toBe(started.body.run_id);
    await t.engine.runner.runUntilIdle();

    const list = await s.tool('list_tracker_projects', { client_id: s.clientId, limit: 5 });
    expect(list.body).toMatchObject({ data: [{ project_id: id, query_count: 2 }], pagination: { limit: 5, total: 1 } });
    const p = await s.tool('get_tracker_project', { project_id: id });
    expect(p.body).toMatchObject({
      project_id: id,
      spi: { overall: { spi: 90 } },
      latest_run: { run_id: started.body.run_id, status: 'complete' },
    });
    const r = await s.tool('get_tracker_results', { project_id: id, snapshot: 'latest_run' });
    expect(r.body).toMatchObject({
      snapshot: { method: 'latest_run' },
      latest_run_id: started.body.run_id,
      run_status: 'complete',
      platforms: [{ platform: 'organic', results: [{ position: 3 }, { position: 1 }] }],
    });
    const trends = await s.tool('get_tracker_trends', { project_id: id, days: 3 });
    expect(trends.body.points.map((x: Any) => x.spi)).toEqual([null, null, 90]);
    const summary = await s.tool('get_tracker_summary', {});
    expect(summary.body).toMatchObject({ scope: 'organisation', data: [{ project_id: id, spi: 90 }] });
    const brand = await s.tool('get_brand_summary', { client_id: s.clientId });
    expect(brand.body).toMatchObject({ client_id: s.clientId, platforms: [], coverage: { expected: [] } });
    expect(brand.text.length).toBeGreaterThan(0);
  });

  it('errors come back as tool errors with the REST body: 400 days and snapshot, 404 foreign project and client', async () => {
    const days = await s.tool('get_tracker_trends', { project_id: id, days: 91 });
    expect(days).toMatchObject({
      isError: true,
      body: { error: { code: 'invalid_input', details: { fields: [{ path: 'days' }] } } },
    });
    const snap = await s.tool('get_tracker_results', { project_id: id, snapshot: 'everything' });
    expect(snap).toMatchObject({
      isError: true,
      body: { error: { code: 'invalid_input', details: { fields: [{ path: 'snapshot' }] } } },
    });
    const other = await t.tenant('agency');
    const foreign = await project(t, other.clientId);
    for (const [name, args] of [
      ['get_tracker_project', { project_id: foreign }],
      ['get_tracker_results', { project_id: foreign }],
      ['get_tracker_trends', { project_id: nobody() }],
      ['start_tracker_scan', { project_id: foreign }],
      ['list_tracker_projects', { client_id: other.clientId }],
      ['get_tracker_summary', { client_id: other.clientId }],
      ['get_brand_summary', { client_id: other.clientId }],
    ] as const) {
      const res = await s.tool(name, args);
      expect(res, name).toMatchObject({ isError: true, body: { error: { code: 'not_found' } } });
    }
    await expect(
      s.mcp.client.callTool({ name: 'get_tracker_trends', arguments: { project_id: id, window: 7 } }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});

describe('tracker tools: keys, scopes and subscription', () => {
  it('401: a bad key cannot connect; a key revoked mid-session is refused', async () => {
    await expect(connectHttpClient(t.url, 'aapi_notarealkeyatall')).rejects.toThrow();
    const { orgId, clientId } = await t.tenant('agency');
    const id = await project(t, clientId);
    const k = await t.key(orgId, ['reporter:read']);
    const mcp = await connectHttpClient(t.url, k.apiKey);
    try {
      expect(
        (await mcp.client.callTool({ name: 'get_tracker_project', arguments: { project_id: id } })).isError,
      ).toBeFalsy();
      await revokeApiKey(t.db, k.keyId, t.clock.now());
      await expect(mcp.client.callTool({ name: 'get_tracker_project', arguments: { project_id: id } })).rejects.toThrow(
        /401|nauthori/,
      );
    } finally {
      await mcp.close().catch(() => undefined);
    }
  });

  it('403 forbidden without reporter:read (reads) or reporter:run (scan); reporter:run reads too', async () => {
    const none = await session(['optimize:run']);
    const read = await session(['reporter:read']);
    const run = await session(['reporter:run']);
    try {
      const ids = await Promise.all([none, read, run].map((x) => project(t, x.clientId)));
      for (const name of TOOLS.filter((n) => n.startsWith('get_tracker') || n === 'list_tracker_projects')) {
        const args = name === 'list_tracker_projects' || name === 'get_tracker_summary' ? {} : { project_id: ids[0] };
        expect(await none.tool(name, args), name).toMatchObject({
          isError: true,
          body: { error: { code: 'forbidden', details: { required_scope: 'reporter:read' } } },
        });
      }
      expect(await none.tool('get_brand_summary', { client_id: none.clientId })).toMatchObject({
        isError: true,
        body: { error: { code: 'forbidden' } },
      });
      expect(await read.tool('start_tracker_scan', { project_id: ids[1] })).toMatchObject({
        isError: true,
        body: { error: { code: 'forbidden', details: { required_scope: 'reporter:run' } } },
      });
      expect((await run.tool('get_tracker_project', { project_id: ids[2] })).isError).toBe(false);
      expect((await run.tool('start_tracker_scan', { project_id: ids[2] })).body).toMatchObject({ status: 'queued' });
      await t.engine.runner.runUntilIdle();
    } finally {
      await Promise.all([none, read, run].map((x) => x.mcp.close()));
    }
  });

  it('402 subscription_required for a scan without an active subscription; reads keep working', async () => {
    const s = await session(undefined, 'inactive');
    try {
      const id = await project(t, s.clientId);
      expect(await s.tool('start_tracker_scan', { project_id: id })).toMatchObject({
        isError: true,
        body: { error: { code: 'subscription_required' } },
      });
      expect((await s.tool('get_tracker_results', { project_id: id })).isError).toBe(false);
    } finally {
      await s.mcp.close();
    }
  });
});
