import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { initialise, issueApiKey } from '../../src/engine/accounts/admin.ts';
import { openDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.ts';
import { tempDir } from '../helpers/temp.ts';
import { connectHttpClient } from '../helpers/mcp.ts';
import { TASK_RESULT_PENDING_PER_KEY } from '../../src/transport/mcp/tasks.ts';

/**
 * Bounded and metered MCP sessions, scoped tasks and a bounded tasks/result over Streamable HTTP
 * (docs/reliability.md I.1-I.9), against a real app on loopback with a fake clock.
 */

type Rpc = Record<string, unknown>;
interface RpcResponse {
  status: number;
  headers: Headers;
  messages: Rpc[];
  sessionId: string | null;
}

async function post(t: TestApp, key: string, body: unknown, sessionId?: string | null): Promise<RpcResponse> {
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  const messages = type.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:') && l.slice(5).trim())
        .map((l) => JSON.parse(l.slice(5)) as Rpc)
    : text
      ? ([JSON.parse(text)].flat() as Rpc[])
      : [];
  return { status: res.status, headers: res.headers, messages, sessionId: res.headers.get('mcp-session-id') };
}

const initialize = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'hardening', version: '1' },
  },
});
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

async function open(t: TestApp, key: string): Promise<string> {
  const r = await post(t, key, initialize());
  expect(r.status, JSON.stringify(r.messages)).toBe(200);
  await post(t, key, { jsonrpc: '2.0', method: 'notifications/initialized' }, r.sessionId);
  return r.sessionId!;
}

describe('MCP sessions and messages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('I.1 initialize counts against the key rate limit: a starter key opens 30 sessions in a minute, the 31st is 429', async () => {
    const { key } = await t.tenant('starter');
    for (let i = 0; i < 30; i++) expect((await post(t, key, initialize())).status, `initialize ${i + 1}`).toBe(200);
    const refused = await post(t, key, initialize());
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.messages[0]).toMatchObject({
      id: 1,
      error: { code: -32000, data: { error: { code: 'rate_limit_exceeded' } } },
    });
    // REST sees the same exhausted allowance.
    expect((await t.request('GET', '/api/agent/v1/usage', { key })).status).toBe(429);
    t.clock.advance(60_000);
  });

  it('I.2 every message of a batch is metered, tools/list, ping and notifications included; batches hold at most 10', async () => {
    const { key } = await t.tenant('starter');
    const session = await open(t, key); // 2 messages
    const batch = await post(t, key, [ping(10), ping(11), ping(12), ping(13), ping(14)], session);
    expect(batch.status).toBe(200);
    expect(batch.messages.map((m) => m.id).sort()).toEqual([10, 11, 12, 13, 14]);
    const list = await post(t, key, { jsonrpc: '2.0', id: 20, method: 'tools/list' }, session);
    expect(list.messages[0]).toHaveProperty('result.tools');
    // 2 + 5 + 1 = 8 spent of 30: REST shows 22 remaining after its own request.
    const usage = await t.request('GET', '/api/agent/v1/usage', { key });
    expect(usage.headers.get('x-ratelimit-remaining')).toBe('21');
    const tooBig = await post(
      t,
      key,
      Array.from({ length: 11 }, (_, i) => ping(100 + i)),
      session,
    );
    expect(tooBig.status).toBe(400);
    expect(tooBig.messages[0]).toMatchObject({ error: { code: -32600 } });
    // A refused batch spends nothing.
    expect((await t.request('GET', '/api/agent/v1/usage', { key })).headers.get('x-ratelimit-remaining')).toBe('20');
    t.clock.advance(60_000);
  });

  it('I.3 live sessions are capped per key (16): the least recently used session of that key is closed', async () => {
    const { key } = await t.tenant('agency');
    const other = await t.tenant('agency');
    const theirs = await open(t, other.key);
    const mine: string[] = [];
    for (let i = 0; i < 20; i++) {
      t.clock.advance(1_000);
      mine.push(await open(t, key));
    }
    // The four oldest are gone (404), the sixteen newest answer, and the other key's session is untouched.
    for (const id of mine.slice(0, 4)) expect((await post(t, key, ping(1), id)).status).toBe(404);
    for (const id of mine.slice(4)) expect((await post(t, key, ping(1), id)).status).toBe(200);
    expect((await post(t, other.key, ping(1), theirs)).status).toBe(200);
    t.clock.advance(60_000);
  });

  it('I.4 a session idle for 10 minutes is closed; real traffic keeps it alive', async () => {
    const { key } = await t.tenant('agency');
    const idle = await open(t, key);
    const busy = await open(t, key);
    for (let i = 0; i < 4; i++) {
      t.clock.advance(3 * 60_000);
      expect((await post(t, key, ping(1), busy)).status).toBe(200);
    }
    await open(t, key); // a new session sweeps the idle ones
    expect((await post(t, key, ping(1), idle)).status).toBe(404);
    expect((await post(t, key, ping(1), busy)).status).toBe(200);
  });

  it('I.1 memory: 3,000 sessions opened by one key (at most 16 live) leave the heap under 10 MB larger', async () => {
    const { key } = await t.tenant('agency');
    // The server shares this process with the test's HTTP client, so the measure is the live heap after a full
    // collection: closed sessions must not stay reachable. The server process's own RSS is measured in I.1 below.
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => (gc(), process.memoryUsage().heapUsed);
    const before = heap();
    for (let i = 0; i < 3_000; i++) {
      t.clock.advance(600); // within the agency key's 120 a minute
      const r = await post(t, key, initialize());
      expect(r.status).toBe(200);
    }
    expect(heap() - before).toBeLessThan(10 * 1024 * 1024);
  }, 240_000);

  it('I.7 a malformed tools/call (arguments not an object, name not a string) is -32602 with one sentence', async () => {
    const { key } = await t.tenant('agency');
    const session = await open(t, key);
    const badArgs = await post(
      t,
      key,
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_usage', arguments: 'x' } },
      session,
    );
    expect(badArgs.messages[0]).toMatchObject({
      id: 5,
      error: { code: -32602, message: 'Invalid params: arguments must be an object.' },
    });
    const badName = await post(
      t,
      key,
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 42, arguments: {} } },
      session,
    );
    expect(badName.messages[0]).toMatchObject({ id: 6, error: { code: -32602 } });
    // A `__proto__` argument is an unknown field like any other (the SDK would drop it silently).
    const proto = await post(
      t,
      key,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_usage', arguments: JSON.parse('{"__proto__": 1}') },
      },
      session,
    );
    expect(proto.messages[0]).toMatchObject({
      id: 7,
      error: { code: -32602, data: { error: { details: { fields: [{ path: '__proto__' }] } } } },
    });
    expect(String((badName.messages[0]!.error as { message: string }).message).length).toBeLessThan(80);
  });
});

describe('the global session cap', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { AGENT_API_MCP_MAX_SESSIONS: '3' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('I.1 past AGENT_API_MCP_MAX_SESSIONS live sessions, initialize answers 429 with Retry-After until one closes', async () => {
    const keys = await Promise.all([1, 2, 3, 4].map(() => t.tenant('agency')));
    for (const k of keys.slice(0, 3)) await open(t, k.key);
    const refused = await post(t, keys[3]!.key, initialize());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.messages[0]).toMatchObject({ error: { data: { error: { code: 'rate_limit_exceeded' } } } });
    // Idle sessions are swept first: once they have idled out, there is room again.
    t.clock.advance(10 * 60_000 + 1);
    expect((await post(t, keys[3]!.key, initialize())).status).toBe(200);
  });
});

describe('MCP tasks obey scopes and tasks/result is bounded', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function jobTask(key: string, clientId: string, mode: 'auto' | 'stepped' = 'auto'): Promise<string> {
    const c = await connectHttpClient(t.url, key);
    try {
      const r = (await c.client.request(
        {
          method: 'tools/call',
          params: {
            name: 'create_content_job',
            arguments: { topic: 'sourdough bread', client_id: clientId, page_contract: 'article', mode },
            task: { ttl: 60_000 },
          },
        },
        (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema,
      )) as { task: { taskId: string } };
      return r.task.taskId;
    } finally {
      await c.close();
    }
  }

  it('I.5 tasks/list, tasks/get and tasks/result need the read scope of the operation behind the task; tasks/cancel its run scope', async () => {
    const owner = await t.tenant('agency');
    const taskId = await jobTask(owner.key, owner.clientId);
    const prospects = await t.key(owner.orgId, ['prospector:read']);
    const reader = await t.key(owner.orgId, ['copywriter:read']);

    const s1 = await open(t, prospects.apiKey);
    const listed = await post(t, prospects.apiKey, { jsonrpc: '2.0', id: 1, method: 'tasks/list', params: {} }, s1);
    expect((listed.messages[0]!.result as { tasks: unknown[] }).tasks).toEqual([]);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const r = await post(t, prospects.apiKey, { jsonrpc: '2.0', id: 2, method, params: { taskId } }, s1);
      expect(r.messages[0], method).toMatchObject({ error: { data: { error: { code: 'forbidden' } } } });
    }

    const s2 = await open(t, reader.apiKey);
    const seen = await post(t, reader.apiKey, { jsonrpc: '2.0', id: 1, method: 'tasks/list', params: {} }, s2);
    expect((seen.messages[0]!.result as { tasks: { taskId: string }[] }).tasks.map((x) => x.taskId)).toEqual([taskId]);
    const got = await post(t, reader.apiKey, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId } }, s2);
    expect(got.messages[0]).toHaveProperty('result.taskId', taskId);
    const cancel = await post(
      t,
      reader.apiKey,
      { jsonrpc: '2.0', id: 3, method: 'tasks/cancel', params: { taskId } },
      s2,
    );
    expect(cancel.messages[0]).toMatchObject({
      error: { data: { error: { code: 'forbidden', details: { required_scope: 'copywriter:run' } } } },
    });
  });

  it('I.6 tasks/result answers at once for a task waiting for input, and gives up after 30 s of the clock for a working one', async () => {
    const owner = await t.tenant('agency');
    const stepped = await jobTask(owner.key, owner.clientId, 'stepped');
    const session = await open(t, owner.key);
    // Let the stepped job rest at brief_ready.
    for (let i = 0; i < 20; i++) {
      await t.engine.runner.runUntilIdle();
      t.clock.advance(1_000);
    }
    const needsInput = await post(
      t,
      owner.key,
      { jsonrpc: '2.0', id: 1, method: 'tasks/result', params: { taskId: stepped } },
      session,
    );
    expect(needsInput.messages[0]).toMatchObject({ error: { code: -32600 } });
    expect(String((needsInput.messages[0]!.error as { message: string }).message)).toMatch(/waiting for input/);

    // A working task (the runner is stopped, so the job stays queued): the call waits, then answers a timeout once
    // 30 s of the clock have passed.
    await t.engine.runner.stop(0);
    const working = await jobTask(owner.key, owner.clientId);
    const waiting = post(
      t,
      owner.key,
      { jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId: working } },
      session,
    );
    // The clock moves until the call gives up: on a loaded machine it may start waiting after the first move.
    let done = false;
    void waiting.then(
      () => (done = true),
      () => (done = true),
    );
    for (let i = 0; i < 200 && !done; i++) {
      await new Promise((r) => setTimeout(r, 100));
      t.clock.advance(30_000);
    }
    const timedOut = await waiting;
    expect(timedOut.messages[0]).toMatchObject({ error: { code: -32001 } });
  });

  it(`I.6 a key may hold at most ${TASK_RESULT_PENDING_PER_KEY} waiting tasks/result calls; one whose client went away stops`, async () => {
    const owner = await t.tenant('agency');
    await t.engine.runner.stop(0);
    const working = await jobTask(owner.key, owner.clientId);
    const session = await open(t, owner.key);
    const aborts = Array.from({ length: TASK_RESULT_PENDING_PER_KEY }, () => new AbortController());
    const calls = aborts.map((a, i) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        signal: a.signal,
        headers: {
          authorization: `Bearer ${owner.key}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-session-id': session,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'tasks/result', params: { taskId: working } }),
      })
        .then((r) => r.text())
        .catch(() => 'aborted'),
    );
    // A probe for a task that does not exist answers at once: "already has 4" once the four calls wait, else "not
    // found". On a loaded machine the calls may take a while to arrive, so the probe repeats until they do.
    const probe = async (id: number) => {
      const r = await post(
        t,
        owner.key,
        { jsonrpc: '2.0', id, method: 'tasks/result', params: { taskId: 'no-such-task' } },
        session,
      );
      return String((r.messages[0]?.error as { message?: string } | undefined)?.message ?? '');
    };
    const until = async (want: RegExp) => {
      for (let i = 0; i < 300; i++) {
        if (want.test(await probe(1_000 + i))) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until(/already has 4/);
    const extra = await post(
      t,
      owner.key,
      { jsonrpc: '2.0', id: 9, method: 'tasks/result', params: { taskId: working } },
      session,
    );
    expect(extra.messages[0]).toMatchObject({ error: { code: -32600 } });
    expect(String((extra.messages[0]!.error as { message: string }).message)).toMatch(/already has 4/);
    // The clients go away: their calls stop waiting, and the key may wait again.
    for (const a of aborts) a.abort();
    await Promise.all(calls);
    await until(/not found/i);
    const again = post(
      t,
      owner.key,
      { jsonrpc: '2.0', id: 10, method: 'tasks/result', params: { taskId: working } },
      session,
    );
    // The fake clock moves until the call gives up: on a loaded machine the call may start waiting after one advance.
    let settled = false;
    void again.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < 200 && !settled; i++) {
      t.clock.advance(30_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await again).messages[0]).toMatchObject({ error: { code: -32001 } });
  });
});

describe('a flood of initialize calls against a server process', () => {
  const tmp = tempDir('agent-api-flood-');
  let server: SpawnedServer;
  let key: string;
  beforeAll(async () => {
    const opened = openDatabase(tmp.dbPath);
    await migrateToLatest(opened.db);
    const init = await initialise(opened.db, Date.now());
    const reader = await issueApiKey(opened.db, { orgId: init.orgId, scopes: ['reporter:read'] }, Date.now());
    key = reader.apiKey;
    await opened.close();
    server = await spawnServer({
      AGENT_API_DB: tmp.dbPath,
      AGENT_API_LOG_LEVEL: 'warn',
      // One young-generation size on every Node: Node 24's V8 lets its nursery grow to several times Node 20's, which
      // shows as tens of MB of RSS with nothing retained. The measure below is about what sessions leave behind.
      NODE_OPTIONS: '--max-semi-space-size=16',
    });
  });
  afterAll(async () => {
    await server?.terminate();
    tmp.cleanup();
  });

  it('I.1 3,000 initialize calls with one read-only key grow the server process by under 50 MB', async () => {
    const rss = () => {
      const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
    };
    const body = JSON.stringify(initialize());
    const send = () =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body,
      }).then(async (r) => (await r.text(), r.status));
    const started = Date.now();
    const statuses: number[] = [];
    const flood = async (calls: number) => {
      for (let i = 0; i < calls; i += 20) statuses.push(...(await Promise.all(Array.from({ length: 20 }, send))));
    };
    // The first calls grow the heap to the size V8 keeps for this load (larger on Node 24 than on 20); what a leak
    // would add is growth after that, so RSS is read once the server has served a first 500.
    await flood(500);
    const before = rss();
    await flood(2_500);
    const grown = rss() - before;
    process.stderr.write(`I.1 flood: 3,000 initialize calls, server RSS ${(grown / 2 ** 20).toFixed(1)} MB larger\n`);
    // The agency key's 120 a minute (and 2 a second more as the flood goes on) open sessions, of which 16 stay live;
    // the rest are refused by the rate limit.
    const opened = statuses.filter((s) => s === 200).length;
    expect(opened).toBeGreaterThan(0);
    expect(opened).toBeLessThanOrEqual(121 + Math.ceil((Date.now() - started) / 500));
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(grown).toBeLessThan(50 * 1024 * 1024);
  }, 240_000);
});
