import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { caller, footprint, type Any } from './fixture.ts';

/** The seven prospect tools over MCP Streamable HTTP: metadata, every tool's success and its errors. */

/** The prospector's operations, from src/tools/registry.ts. */
const TOOLS = OPERATIONS.filter((op) => op.family === 'prospector').map((op) => op.name);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Mcp = Awaited<ReturnType<typeof connectHttpClient>>;

async function session(scopes?: string[]) {
  const tenant = await t.tenant('agency');
  const key = scopes ? (await t.key(tenant.orgId, scopes)).apiKey : tenant.key;
  const mcp = await connectHttpClient(t.url, key);
  /** One tool call; the fake clock moves a second afterwards (distinct timestamps, rate limit refilled). */
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

const idem = () => `mcp-${randomUUID()}`;

describe('prospect tools: metadata', () => {
  let s: { mcp: Mcp };
  beforeAll(async () => {
    s = await session();
  });
  afterAll(async () => {
    await s.mcp.close();
  });

  it('lists the seven tools with annotations, input and output schemas; mutations require idempotency_key', async () => {
    const { tools } = await s.mcp.client.listTools();
    const byName = new Map(tools.map((x) => [x.name, x]));
    expect(TOOLS).toHaveLength(7);
    for (const name of TOOLS) {
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      const read = name.startsWith('list_');
      expect(tool!.annotations, name).toMatchObject({ readOnlyHint: read, idempotentHint: true, openWorldHint: false });
      expect(tool!.annotations?.destructiveHint, name).toBe(name.startsWith('delete_') || name === 'update_prospect');
      expect(tool!.outputSchema, name).toBeDefined();
      const required = (tool!.inputSchema as { required?: string[] }).required ?? [];
      expect(required.includes('idempotency_key'), name).toBe(!read);
      expect(required, name).toContain('client_id');
    }
    expect((byName.get('save_prospect')!.inputSchema as { required: string[] }).required.sort()).toEqual([
      'client_id',
      'idempotency_key',
      'list_id',
      'url',
    ]);
    expect((byName.get('delete_prospect_list')!.inputSchema as { required: string[] }).required.sort()).toEqual([
      'client_id',
      'idempotency_key',
      'list_id',
      'name',
    ]);
  });
});

describe('prospect tools: a whole workflow', () => {
  it('creates, saves, de-duplicates, lists, updates and deletes through the tools', async () => {
    const s = await session();
    const createKey = idem();
    const created = await s.tool('create_prospect_list', {
      client_id: s.clientId,
      name: 'Broken links',
      opportunity_type: 'broken_link',
      idempotency_key: createKey,
    });
    expect(created.isError).toBe(false);
    expect(created.body).toMatchObject({
      name: 'Broken links',
      item_count: 0,
      status_breakdown: { identified: 0, contacted: 0, in_discussion: 0, won: 0, passed: 0 },
    });
    expect(created.text).toContain('Create a prospect list');
    const listId = created.body.list_id;
    const replay = await s.tool('create_prospect_list', {
      client_id: s.clientId,
      name: 'Broken links',
      opportunity_type: 'broken_link',
      idempotency_key: createKey,
    });
    expect(replay.body).toEqual(created.body);

    const saved = await s.tool('save_prospect', {
      client_id: s.clientId,
      list_id: listId,
      url: 'https://WWW.Example.com/resources/?utm_campaign=x',
      target_name: 'Example',
      idempotency_key: idem(),
    });
    expect(saved.isError).toBe(false);
    expect(saved.body).toMatchObject({
      url: 'https://www.example.com/resources/',
      domain: 'example.com',
      opportunity_type: 'broken_link',
      status: 'identified',
      already_saved: false,
    });
    const dup = await s.tool('save_prospect', {
      client_id: s.clientId,
      list_id: listId,
      url: 'http://example.com/resources',
      notes: 'ignored',
      idempotency_key: idem(),
    });
    expect(dup.body).toMatchObject({ item_id: saved.body.item_id, notes: null, already_saved: true });

    const items = await s.tool('list_prospects', { client_id: s.clientId, list_id: listId });
    expect(items.body.data.map((i) => i.item_id)).toEqual([saved.body.item_id]);
    expect(items.body.pagination).toEqual({ limit: 20, offset: 0, total: 1, has_more: false });

    const updated = await s.tool('update_prospect', {
      client_id: s.clientId,
      list_id: listId,
      item_id: saved.body.item_id,
      status: 'in_discussion',
      notes: 'Call booked',
      idempotency_key: idem(),
    });
    expect(updated.body).toMatchObject({ status: 'in_discussion', notes: 'Call booked' });
    const cleared = await s.tool('update_prospect', {
      client_id: s.clientId,
      list_id: listId,
      item_id: saved.body.item_id,
      notes: null,
      idempotency_key: idem(),
    });
    expect(cleared.body).toMatchObject({ status: 'in_discussion', notes: null });

    const lists = await s.tool('list_prospect_lists', { client_id: s.clientId, limit: 5 });
    expect(lists.body.data[0]).toMatchObject({
      list_id: listId,
      item_count: 1,
      status_breakdown: { in_discussion: 1, identified: 0 },
    });

    const mismatch = await s.tool('delete_prospect', {
      client_id: s.clientId,
      list_id: listId,
      url: 'https://example.com/resources',
      idempotency_key: idem(),
    });
    expect(mismatch.isError).toBe(true);
    expect(mismatch.body.error.code).toBe('confirmation_mismatch');
    const deleted = await s.tool('delete_prospect', {
      client_id: s.clientId,
      list_id: listId,
      url: saved.body.url,
      idempotency_key: idem(),
    });
    expect(deleted.body).toEqual({ deleted: true, item_id: saved.body.item_id, list_id: listId, url: saved.body.url });

    const wrongName = await s.tool('delete_prospect_list', {
      client_id: s.clientId,
      list_id: listId,
      name: 'broken links',
      idempotency_key: idem(),
    });
    expect([wrongName.isError, wrongName.body.error.code]).toEqual([true, 'confirmation_mismatch']);
    const gone = await s.tool('delete_prospect_list', {
      client_id: s.clientId,
      list_id: listId,
      name: 'Broken links',
      idempotency_key: idem(),
    });
    expect(gone.body).toEqual({ deleted: true, list_id: listId, name: 'Broken links', items_deleted: 0 });
    expect(await footprint(t, s.orgId)).toMatchObject({ lists: 0, items: 0 });
    await s.mcp.close();
  });
});

describe('prospect tools: errors match REST', () => {
  it('answers isError with the REST error body for every failure kind', async () => {
    const s = await session();
    const rest = caller(t, s.key);
    const list = (await rest.createList(s.clientId, { name: 'L' })).body;
    const item = (await rest.save(s.clientId, list.list_id, { url: 'https://example.com/' })).body;
    const missing = randomUUID();
    const cases: [string, Record<string, unknown>, string][] = [
      ['create_prospect_list', { client_id: s.clientId, name: 'no key' }, 'idempotency_key_required'],
      [
        'save_prospect',
        { client_id: s.clientId, list_id: list.list_id, url: 'https://x.example.com/' },
        'idempotency_key_required',
      ],
      [
        'update_prospect',
        { client_id: s.clientId, list_id: list.list_id, item_id: item.item_id, status: 'won' },
        'idempotency_key_required',
      ],
      ['delete_prospect', { client_id: s.clientId, list_id: list.list_id, url: item.url }, 'idempotency_key_required'],
      ['delete_prospect_list', { client_id: s.clientId, list_id: list.list_id, name: 'L' }, 'idempotency_key_required'],
      ['create_prospect_list', { client_id: s.clientId, name: '', idempotency_key: idem() }, 'invalid_input'],
      [
        'save_prospect',
        { client_id: s.clientId, list_id: list.list_id, url: 'ftp://example.com/', idempotency_key: idem() },
        'invalid_input',
      ],
      [
        'update_prospect',
        { client_id: s.clientId, list_id: list.list_id, item_id: item.item_id, idempotency_key: idem() },
        'invalid_input',
      ],
      ['list_prospects', { client_id: s.clientId, list_id: list.list_id, status: 'ghosted' }, 'invalid_input'],
      ['list_prospect_lists', { client_id: s.clientId, limit: 101 }, 'invalid_input'],
      ['create_prospect_list', { client_id: s.clientId, name: 'x', idempotency_key: 'a b' }, 'invalid_input'],
      ['list_prospect_lists', { client_id: missing }, 'not_found'],
      ['list_prospects', { client_id: s.clientId, list_id: missing }, 'not_found'],
      [
        'save_prospect',
        { client_id: s.clientId, list_id: missing, url: 'https://x.example.com/', idempotency_key: idem() },
        'not_found',
      ],
      [
        'update_prospect',
        { client_id: s.clientId, list_id: list.list_id, item_id: missing, notes: 'x', idempotency_key: idem() },
        'not_found',
      ],
      [
        'delete_prospect',
        { client_id: s.clientId, list_id: list.list_id, url: 'https://nothing.example.com/', idempotency_key: idem() },
        'not_found',
      ],
      [
        'delete_prospect',
        { client_id: s.clientId, list_id: list.list_id, url: 'http://example.com', idempotency_key: idem() },
        'confirmation_mismatch',
      ],
      [
        'delete_prospect_list',
        { client_id: s.clientId, list_id: list.list_id, name: 'l', idempotency_key: idem() },
        'confirmation_mismatch',
      ],
    ];
    for (const [name, args, code] of cases) {
      const r = await s.tool(name, args);
      expect([r.isError, r.body.error?.code], `${name} ${JSON.stringify(args)}`).toEqual([true, code]);
      expect(r.text.startsWith(`${code}:`)).toBe(true);
    }
    // The same idempotency_key with other arguments, or on another tool: 422.
    await s.tool('create_prospect_list', { client_id: s.clientId, name: 'first', idempotency_key: 'mcp-reused' });
    for (const [name, args] of [
      ['create_prospect_list', { client_id: s.clientId, name: 'second' }],
      ['save_prospect', { client_id: s.clientId, list_id: list.list_id, url: 'https://r.example.com/' }],
    ] as const) {
      const r = await s.tool(name, { ...args, idempotency_key: 'mcp-reused' });
      expect([r.isError, r.body.error?.code], name).toEqual([true, 'idempotency_key_reused']);
    }
    // Same body as REST for the same failure.
    const viaRest = await rest.save(s.clientId, list.list_id, { url: 'http://10.0.0.1/' });
    const viaMcp = await s.tool('save_prospect', {
      client_id: s.clientId,
      list_id: list.list_id,
      url: 'http://10.0.0.1/',
      idempotency_key: idem(),
    });
    expect(viaMcp.body).toEqual(viaRest.body);
    expect(await footprint(t, s.orgId)).toMatchObject({ lists: 2, items: 1 });
    await s.mcp.close();
  });

  it('a key without prospector:write gets forbidden on every mutation tool and can still read', async () => {
    const owner = await session();
    const rest = caller(t, owner.key);
    const list = (await rest.createList(owner.clientId, { name: 'L' })).body;
    await owner.mcp.close();
    const mcp = await connectHttpClient(t.url, (await t.key(owner.orgId, ['prospector:read'])).apiKey);
    const args = { client_id: owner.clientId, list_id: list.list_id, idempotency_key: idem() };
    for (const [name, extra] of [
      ['create_prospect_list', { name: 'x' }],
      ['save_prospect', { url: 'https://x.example.com/' }],
      ['update_prospect', { item_id: randomUUID(), status: 'won' }],
      ['delete_prospect', { url: 'https://x.example.com/' }],
      ['delete_prospect_list', { name: 'L' }],
    ] as const) {
      const { list_id: _l, ...base } = args;
      const res = await mcp.client.callTool({
        name,
        arguments: { ...(name === 'create_prospect_list' ? base : args), ...extra },
      });
      expect(res.isError, name).toBe(true);
      expect(structured<Any>(res).error).toMatchObject({
        code: 'forbidden',
        details: { required_scope: 'prospector:write' },
      });
    }
    const read = await mcp.client.callTool({
      name: 'list_prospects',
      arguments: { client_id: owner.clientId, list_id: list.list_id },
    });
    expect(read.isError).toBeFalsy();
    await mcp.close();
  });

  it('unknown argument names are a JSON-RPC invalid-params error', async () => {
    const s = await session();
    await expect(
      s.mcp.client.callTool({
        name: 'save_prospect',
        arguments: {
          client_id: s.clientId,
          list_id: randomUUID(),
          url: 'https://x.example.com/',
          idempotency_key: 'k',
          email: 'a@b.c',
        },
      }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(await footprint(t, s.orgId)).toMatchObject({ keys: 0 });
    await s.mcp.close();
  });
});
