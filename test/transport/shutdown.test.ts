import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { createChangeHub } from '../../src/engine/platform/changes.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { openDatabase, type OpenedDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { startTestApp } from '../helpers/app.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { openKeptConnection, rawExchange } from '../helpers/raw-http.ts';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.ts';
import { tempDir } from '../helpers/temp.ts';

/**
 * docs/reliability.md, Hardening (I): graceful stop. On SIGTERM the server stops accepting, answers every request it
 * already received (long-polls with the state they have now), closes keep-alive connections after their answer, ends
 * MCP streams, then hands runs back. Traffic goes to loopback only; every loop is bounded in count and time.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A provider API on loopback that accepts requests and never answers them (a run stays in its first step). */
async function startSilentProvider() {
  const sockets = new Set<net.Socket>();
  let requests = 0;
  const server = http.createServer(() => void requests++);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

interface Outcome {
  kind: 'usage' | 'long-poll';
  /** When the request had been written to an open connection (its 'finish'), in performance.now() ms. */
  sentAt: number | null;
  endAt: number;
  status: number | null;
  connection: string | null;
  body: string;
  /** A socket error or an incomplete answer: a reset, a hang-up, a client time limit. */
  error: string | null;
}

/** One GET over `agent`, recorded whatever happens; bounded by a 30 s client time limit. */
function get(agent: http.Agent, base: URL, path: string, key: string, kind: Outcome['kind']): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = { kind, sentAt: null, endAt: 0, status: null, connection: null, body: '', error: null };
    let settled = false;
    const done = (error: string | null) => {
      if (settled) return;
      settled = true;
      out.error = error;
      out.endAt = performance.now();
      resolve(out);
    };
    const req = http.request(
      { host: base.hostname, port: base.port, path, agent, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        out.status = res.statusCode ?? null;
        out.connection = (res.headers.connection as string | undefined) ?? null;
        res.setEncoding('utf8');
        res.on('data', (d: string) => (out.body += d));
        res.on('end', () => done(null));
        res.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
        res.on('close', () => done(res.complete ? null : 'incomplete response'));
      },
    );
    req.on('finish', () => (out.sentAt = performance.now()));
    req.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
    req.setTimeout(30_000, () => req.destroy(new Error('client time limit')));
    req.end();
  });
}

describe('I. graceful stop of a real server process under load', () => {
  let tmp: ReturnType<typeof tempDir>;
  let database: OpenedDatabase;
  let provider: Awaited<ReturnType<typeof startSilentProvider>>;
  let server: SpawnedServer | undefined;
  const keys: string[] = [];

  beforeAll(async () => {
    tmp = tempDir();
    database = openDatabase(tmp.dbPath);
    await migrateToLatest(database.db);
    const now = Date.now();
    // Several organisations, so the load is not only rate-limit answers (each key has its own per-minute limit).
    for (let i = 0; i < 10; i++) {
      const org = await createOrganisation(
        database.db,
        { name: `load ${i}`, plan: 'agency', subscription: 'active' },
        now,
      );
      keys.push((await issueApiKey(database.db, { orgId: org.id, scopes: SCOPES }, now)).apiKey);
    }
    provider = await startSilentProvider();
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.crash();
    await provider?.close();
    await database?.close();
    tmp?.cleanup();
  });

  it('I.27 SIGTERM with ~50-85 requests in flight on keep-alive connections: every request sent before the signal is answered completely (no reset); long-polls (REST and MCP) answer at once with the current state; exit 0', async () => {
    const GRACE_MS = 3_000;
    server = await spawnServer({
      AGENT_API_DB: tmp.dbPath,
      AGENT_API_LOG_LEVEL: 'warn',
      AGENT_API_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      // One runner slot, held by a run whose search never answers: the next optimization stays queued.
      AGENT_API_RUNNER_CONCURRENCY: '1',
      SERP_PROVIDER: 'serpapi',
      SERPAPI_API_KEY: 'fake-serpapi-key',
      SERPAPI_BASE_URL: provider.url,
    });
    const base = new URL(server.url);
    const key = keys[0]!;
    const post = async (idem: string) => {
      const res = await fetch(`${server!.url}/api/agent/v1/optimize`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idem },
        body: JSON.stringify({ url: 'https://example.com/guide', keyword: `shutdown ${idem}` }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { optimization_id: string }).optimization_id;
    };
    const running = await post('running');
    for (let i = 0; i < 600 && provider.requests() === 0; i++) await sleep(25);
    expect(provider.requests()).toBe(1);
    const queued = await post('queued');

    const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
    const outcomes: Outcome[] = [];
    let stop = false;

    // A few long-polls on both optimizations (their status will not move before the signal), REST and MCP.
    const longPolls = [queued, queued, queued, running, running].map((id) =>
      get(agent, base, `/api/agent/v1/optimizations/${id}?wait_seconds=20&view=status`, key, 'long-poll'),
    );
    const mcp = await connectHttpClient(server.url, key);
    const mcpPoll = (async () => {
      const result = await mcp.client.callTool({
        name: 'get_optimization',
        arguments: { optimization_id: queued, wait_seconds: 20, view: 'status' },
      });
      return { at: performance.now(), body: structured<{ status: string }>(result), isError: result.isError };
    })().catch((err: unknown) => ({ at: performance.now(), body: null, isError: true, err }));

    // 80 workers, each one request after another on the keep-alive agent; half pause a few milliseconds between
    // requests, so connections also sit idle and a request can arrive on an idle connection as the signal does.
    const WORKERS = 80;
    const workers = Array.from({ length: WORKERS }, async (_, w) => {
      for (let i = 0; !stop && i < 5_000; i++) {
        // keys[0] is the long-polls' own key: under this load a poll could otherwise reach the server after the
        // workers used up its per-minute limit, and be answered 429 before the signal.
        outcomes.push(await get(agent, base, '/api/agent/v1/usage', keys[1 + (w % (keys.length - 1))]!, 'usage'));
        if (w % 2 && !stop) await sleep(Math.floor(Math.random() * 10));
      }
    });

    await sleep(1_500);
    const signalAt = performance.now();
    stop = true;
    const exited = new Promise<number | null>((resolve) => server!.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');

    const lp = await Promise.all(longPolls);
    outcomes.push(...lp);
    await Promise.all(workers);
    const mcpAnswer = await mcpPoll;
    const code = await Promise.race([exited, sleep(40_000).then(() => 'still running' as const)]);
    const exitMs = performance.now() - signalAt;
    await mcp.close().catch(() => undefined);
    agent.destroy();

    const sentBefore = outcomes.filter((o) => o.sentAt !== null && o.sentAt < signalAt);
    const inFlight = sentBefore.filter((o) => o.endAt >= signalAt);
    const resets = sentBefore.filter((o) => o.error !== null);
    const after = outcomes.filter((o) => !(o.sentAt !== null && o.sentAt < signalAt));
    const figures = {
      requests: outcomes.length,
      sentBeforeSignal: sentBefore.length,
      inFlightAtSignal: inFlight.length,
      resets: resets.length,
      resetErrors: [...new Set(resets.map((r) => r.error))],
      notSentBeforeSignal: after.length,
      notSentErrors: [...new Set(after.map((r) => r.error))],
      longPollMs: lp.map((o) => Math.round(o.endAt - signalAt)),
      mcpLongPollMs: Math.round(mcpAnswer.at - signalAt),
      mcpError: mcpAnswer.isError
        ? JSON.stringify(mcpAnswer.body ?? String((mcpAnswer as { err?: unknown }).err))
        : null,
      statuses: [...new Set(sentBefore.map((o) => o.status))],
      exitCode: code,
      exitMs: Math.round(exitMs),
    };
    console.info('I.27 SIGTERM figures', JSON.stringify(figures));

    expect(code).toBe(0);
    expect(resets).toEqual([]);
    expect(inFlight.length).toBeGreaterThanOrEqual(20);
    for (const o of inFlight) {
      expect(o.status).not.toBeNull();
      // Answers written during the stop close their connection.
      if (o.kind === 'long-poll') expect(o.connection).toBe('close');
    }
    // Long-polls answer promptly with the state they have now, not after their 20 s.
    for (const [i, o] of lp.entries()) {
      expect(o.status).toBe(200);
      expect(o.endAt - signalAt).toBeLessThan(5_000);
      expect(JSON.parse(o.body)).toMatchObject({ status: i < 3 ? 'queued' : expect.any(String) });
    }
    expect(mcpAnswer.isError).toBeFalsy();
    expect(mcpAnswer.body).toMatchObject({ status: 'queued' });
    expect(mcpAnswer.at - signalAt).toBeLessThan(5_000);
    // The held step was handed back after the grace period, without spending an attempt.
    const run = await database.db
      .selectFrom('runs')
      .select(['state', 'lease_owner', 'attempts'])
      .where('resource_id', '=', running)
      .executeTakeFirstOrThrow();
    expect(run).toMatchObject({ state: 'pending', lease_owner: null });
  }, 120_000);
});

describe('I. graceful stop in process', () => {
  it('I.28 close(): a long-poll in flight answers at once with Connection: close, an idle keep-alive connection is closed, new connections are refused', async () => {
    const t = await startTestApp();
    let closing: Promise<void> | undefined;
    try {
      await t.engine.runner.stop(0); // nothing claims: the optimization stays queued
      const { key } = await t.tenant('agency');
      const started = await t.request<{ optimization_id: string }>('POST', '/optimize', {
        key,
        body: { url: 'https://example.com/page', keyword: 'graceful' },
        headers: { 'idempotency-key': 'graceful-1' },
      });
      expect(started.status).toBe(202);
      const hostHeader = `127.0.0.1:${t.port}`;
      const idle = await openKeptConnection(t.port, hostHeader, '127.0.0.1');
      expect(idle.status).toBe(200);
      const polling = rawExchange(
        t.port,
        `GET /api/agent/v1/optimizations/${started.body.optimization_id}?wait_seconds=30&view=status HTTP/1.1\r\n` +
          `Host: ${hostHeader}\r\nAuthorization: Bearer ${key}\r\n\r\n`,
        { timeoutMs: 10_000 },
      );
      await sleep(300); // the long-poll is waiting (the fake clock never moves)
      const t0 = performance.now();
      closing = t.app.close(5_000);
      const answer = await polling;
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe('close');
      expect(answer.json).toMatchObject({ status: 'queued' });
      expect(answer.closedByServer).toBe(true);
      expect(performance.now() - t0).toBeLessThan(10_000); // a 30 s long-poll, answered at shutdown
      for (let i = 0; i < 100 && !idle.closed(); i++) await sleep(20);
      expect(idle.closed()).toBe(true);
      const refused = await new Promise<string>((resolve) => {
        const s = net.connect({ host: '127.0.0.1', port: t.port }, () => resolve('connected'));
        s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        s.on('connect', () => s.destroy());
      });
      expect(refused).toBe('ECONNREFUSED');
      await closing;
      expect(performance.now() - t0).toBeLessThan(15_000);
    } finally {
      await (closing ?? t.app.close(1_000));
      t.cleanup();
    }
  });

  it('I.29 close(): an MCP stream in flight (a follow with a progress token) ends cleanly, not reset', async () => {
    const t = await startTestApp();
    let closing: Promise<void> | undefined;
    try {
      await t.engine.runner.stop(0);
      const { key } = await t.tenant('agency');
      const mcp = await connectHttpClient(t.url, key);
      const sessionId = mcp.transport.sessionId!;
      const res = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'start_optimization',
            arguments: { url: 'https://example.com/page', keyword: 'follow', idempotency_key: 'follow-1' },
            _meta: { progressToken: 'p1' },
          },
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const reader = res.body!.getReader();
      let text = '';
      const reading = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended';
          text += new TextDecoder().decode(value);
        }
      })().catch((err: unknown) => `error: ${String((err as Error)?.cause ?? err)}`);
      for (let i = 0; i < 100 && !text.includes('notifications/progress'); i++) await sleep(20);
      expect(text).toContain('notifications/progress');
      const t0 = performance.now();
      closing = t.app.close(5_000);
      expect(await reading).toBe('ended');
      expect(performance.now() - t0).toBeLessThan(10_000);
      await closing;
      await mcp.close().catch(() => undefined);
    } finally {
      await (closing ?? t.app.close(1_000));
      t.cleanup();
    }
  });

  it('I.30 the change hub: closeAll() wakes every pending wait (false) and later waits return after one check', async () => {
    const clock = createFakeClock();
    const hub = createChangeHub(clock);
    const pending = [1, 2, 3].map((i) => hub.waitFor('optimization', `id-${i}`, async () => false, 30_000));
    await sleep(10);
    const t0 = performance.now();
    hub.closeAll();
    expect(await Promise.all(pending)).toEqual([false, false, false]);
    expect(hub.closed).toBe(true);
    // The clock never moved: the waits ended because of closeAll, not a deadline.
    expect(await hub.waitFor('optimization', 'id-4', async () => false, 30_000)).toBe(false);
    expect(await hub.waitFor('optimization', 'id-5', async () => true, 30_000)).toBe(true);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
