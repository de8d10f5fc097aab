import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import {
  connectHttpClient,
  connectModernHttpClient,
  connectModernStdioClient,
  connectStdioClient,
  structured,
} from '../helpers/mcp.ts';
import { createdJob, idem, run, startContentApp, tenant, type Tenant } from '../content/helpers/harness.ts';

/**
 * Both protocol eras on both transports: an SDK v1 client (2025-11-25) and an SDK v2 client pinned to 2026-07-28,
 * each over Streamable HTTP and over stdio (a spawned `agent-api mcp`), list the tools, call a read, a create with an
 * idempotency key (and its replay), a failing call with the same {error} body as REST, and read a resource link.
 */
let t: TestApp;
let a: Tenant;
let briefJob: string;

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t);
  // A stepped job at brief_ready: its results link the brief as a resource.
  briefJob = (
    await createdJob(
      t,
      a.key,
      { client_id: a.clientId, topic: 'best espresso machine under 500', page_contract: 'article', mode: 'stepped' },
      idem('eras'),
    )
  ).job_id;
  await run(t);
});
afterAll(async () => {
  await t?.close();
});

interface AnyClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
}

const CLIENTS: [string, (key: string) => Promise<{ client: unknown; close(): Promise<void> }>, string][] = [
  ['2025-11-25 over Streamable HTTP', (key) => connectHttpClient(t.url, key), 'legacy'],
  ['2026-07-28 over Streamable HTTP', (key) => connectModernHttpClient(t.url, key), 'modern'],
  ['2025-11-25 over stdio', (key) => connectStdioClient({ AGENT_API_DB: t.dbPath, AGENT_API_KEY: key }), 'legacy'],
  [
    '2026-07-28 over stdio',
    (key) => connectModernStdioClient({ AGENT_API_DB: t.dbPath, AGENT_API_KEY: key }),
    'modern',
  ],
];

describe.each(CLIENTS)('%s', (_label, connect, era) => {
  it('lists the tools, calls a read, a create and its replay, a failing call, and reads a resource link', async () => {
    const c = await connect(a.key);
    const client = c.client as AnyClient & { getProtocolEra?: () => string };
    try {
      if (client.getProtocolEra) expect(client.getProtocolEra()).toBe(era);
      const names = (await client.listTools()).tools.map((x) => x.name);
      expect(names).toEqual(expect.arrayContaining(['get_usage', 'create_prospect_list', 'get_content_job']));

      const usage = await client.callTool({ name: 'get_usage', arguments: {} });
      expect(structured(usage)).toMatchObject({ plan: 'agency' });

      const key = idem(`eras-${era}`);
      const args = { client_id: a.clientId, name: `List ${key}`, idempotency_key: key };
      const created = (await client.callTool({ name: 'create_prospect_list', arguments: args })) as {
        _meta?: Record<string, unknown>;
      };
      const body = structured<{ list_id: string; name: string }>(created);
      expect(body).toMatchObject({ name: `List ${key}` });
      const again = (await client.callTool({ name: 'create_prospect_list', arguments: args })) as {
        _meta?: Record<string, unknown>;
      };
      expect(structured(again)).toEqual(body);
      expect(again._meta).toMatchObject({ idempotent_replayed: true });

      const bad = (await client.callTool({ name: 'list_clients', arguments: { limit: 1000 } })) as {
        isError?: boolean;
      };
      expect(bad.isError).toBe(true);
      const rest = await t.request('GET', '/api/agent/v1/clients?limit=1000', { key: a.key });
      expect(rest.status).toBe(400);
      expect(structured(bad)).toEqual(rest.body);

      const job = (await client.callTool({ name: 'get_content_job', arguments: { job_id: briefJob } })) as {
        content: { type: string; uri?: string }[];
      };
      const link = job.content.find((x) => x.type === 'resource_link');
      expect(link?.uri).toBe(`agent-api://copywriter/jobs/${briefJob}/brief.md`);
      const read = await client.readResource({ uri: link!.uri! });
      expect((read.contents[0] as { text: string }).text).toMatch(/^# Brief: /);
    } finally {
      await c.close();
    }
  }, 60_000);
});
