import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import {
  api,
  plumbingJob,
  countOf,
  startCluster,
  until,
  type ApiAnswer,
  type Cluster,
  type Member,
} from '../helpers/cluster.ts';
import { PLUMBING } from '../content/helpers/harness.ts';
import { connectModernHttpClient, structured } from '../helpers/mcp.ts';
import { llmEnv, startModel } from '../content/helpers/llm.ts';

/**
 * Three real `agent-api serve` processes on one PostgreSQL database stay exact (README, PostgreSQL; docs/reliability.md
 * B.15, C.27, D.39, G.76 across processes): the same idempotency key sent to all of them at once executes once; a
 * key's per-minute limit holds over all of them together; concurrent acceptance never overspends a usage window; and a
 * 2026-07-28 MCP client whose calls land on alternate processes works as on one. The writer is the OpenAI-compatible
 * adapter pointed at a loopback fake that counts calls per provider idempotency key (`<run>:<step>:<call>`); the web
 * is the sample archive (AGENT_API_OFFLINE=1). Waiting is for a condition (database rows, answers), never a duration.
 */

const RAPIDFLOW = 'https://www.rapidflowplumbing.com/emergency-plumbing/';
const JOB_UNITS = 10;
const OPTIMIZE_UNITS = 4;

let c: Cluster;
let fake: FakeOpenAi;

beforeAll(async () => {
  fake = await startModel();
  c = await startCluster({ size: 3, env: llmEnv(fake.baseUrl) });
}, 120_000);
afterAll(async () => {
  await c?.close();
  await fake?.close();
});

interface Created {
  job_id?: string;
  optimization_id?: string;
  status?: string;
  error?: { code: string; details?: Record<string, unknown> };
}

const replayed = (a: ApiAnswer<unknown>) => a.headers.get('idempotent-replayed') === 'true';

async function runsOf(resourceIds: readonly string[]) {
  if (resourceIds.length === 0) return [];
  return c.db.selectFrom('runs').selectAll().where('resource_id', 'in', resourceIds).execute();
}

/** Waits until every resource's run has ended (done or failed), reading the database the members write. */
async function allEnded(resourceIds: readonly string[], timeoutMs = 90_000) {
  return until(
    `${resourceIds.length} runs to end`,
    () => runsOf(resourceIds),
    (runs) => runs.length === resourceIds.length && runs.every((r) => r.state === 'done' || r.state === 'failed'),
    timeoutMs,
  );
}

async function ledgerOf(resourceId: string) {
  return c.db.selectFrom('usage_ledger').select(['state', 'units']).where('resource_id', '=', resourceId).execute();
}

/** Provider calls recorded by the fake for a run's step keys (`<run id>:<step>:<call>`), by key. */
function providerCallsOfRun(runId: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of fake.requests) if (r.key?.startsWith(`${runId}:`)) out.set(r.key, (out.get(r.key) ?? 0) + 1);
  return out;
}

describe('three serve processes on one PostgreSQL database', () => {
  it('they are three distinct processes, each connected to the one database, and what each one writes is in it', async () => {
    expect(c.members).toHaveLength(3);
    expect(new Set(c.members.map((m) => m.pid)).size).toBe(3);
    expect(c.members.map((m) => m.pid)).not.toContain(process.pid);
    expect(new Set(c.members.map((m) => m.url)).size).toBe(3);
    expect(c.members.every((m) => m.alive())).toBe(true);
    // Each member's pool is on this database under its own application_name.
    expect(await c.connectedApps()).toEqual(expect.arrayContaining(['mp-a', 'mp-b', 'mp-c']));
    for (const m of c.members) expect((await fetch(`${m.url}/readyz`)).status, m.name).toBe(200);
    // A client created through each member: all three rows are in the database this test reads.
    const t = await c.tenant('agency');
    const made = await Promise.all(
      c.members.map((m) =>
        api<{ client_id: string }>(m.url, t.key, 'POST', '/clients', {
          body: { name: `via ${m.name}` },
          headers: { 'idempotency-key': `mp-client-${m.name}` },
        }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    const rows = await c.db
      .selectFrom('clients')
      .select(['id', 'name'])
      .where('org_id', '=', t.orgId)
      .where('name', 'like', 'via %')
      .orderBy('name')
      .execute();
    expect(rows).toEqual(c.members.map((m, i) => ({ id: made[i]!.body.client_id, name: `via ${m.name}` })));
  });

  it('B.15 across processes: one Idempotency-Key sent at once to all three (content jobs, then optimizations) executes once: one row, one reservation, one run, one provider call per step; the others replay it or get 409 idempotency_key_in_use', async () => {
    const t = await c.tenant('agency');
    const ROUNDS = 4;
    const PER_MEMBER = 2;
    const jobs: string[] = [];
    const winners = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const key = `mp-idem-job-${round}`;
      const answers = await Promise.all(
        Array.from({ length: 3 * PER_MEMBER }, (_, i) =>
          api<Created>(c.members[i % 3]!.url, t.key, 'POST', '/copywriter/jobs', {
            body: plumbingJob(t.clientId),
            headers: { 'idempotency-key': key },
          }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(
        statuses.filter((s) => s === 201),
        `round ${round}: ${statuses}`,
      ).toHaveLength(1);
      for (const a of answers) {
        if (a.status === 409) expect(a.body.error?.code).toBe('idempotency_key_in_use');
        else if (a.status === 200) expect(replayed(a), `round ${round}`).toBe(true);
        else expect(a.status, a.text).toBe(201);
      }
      const first = answers.find((a) => a.status === 201)!;
      winners.add(c.members[answers.indexOf(first) % 3]!.name);
      expect(replayed(first)).toBe(false);
      const id = first.body.job_id!;
      for (const a of answers.filter((x) => x.status !== 409)) expect(a.body.job_id).toBe(id);
      jobs.push(id);

      // In the one database: one job, one stored key naming it, one reservation, one run.
      const rows = await c.db.selectFrom('content_jobs').select('id').where('org_id', '=', t.orgId).execute();
      expect(rows.map((r) => r.id).sort()).toEqual([...jobs].sort());
      expect(
        await c.db
          .selectFrom('idempotency_keys')
          .select(['resource_id', 'status_code'])
          .where('org_id', '=', t.orgId)
          .where('key', '=', key)
          .execute(),
      ).toEqual([{ resource_id: id, status_code: 201 }]);
      expect(await ledgerOf(id)).toHaveLength(1);
      expect(await runsOf([id])).toHaveLength(1);
    }

    const optimizations: string[] = [];
    for (let round = 0; round < 3; round++) {
      const key = `mp-idem-opt-${round}`;
      const answers = await Promise.all(
        Array.from({ length: 3 * PER_MEMBER }, (_, i) =>
          api<Created>(c.members[i % 3]!.url, t.key, 'POST', '/optimize', {
            body: { url: RAPIDFLOW, keyword: PLUMBING },
            headers: { 'idempotency-key': key },
          }),
        ),
      );
      const executed = answers.filter((a) => a.status === 202 && !replayed(a));
      expect(executed, `round ${round}: ${answers.map((a) => a.status)}`).toHaveLength(1);
      for (const a of answers) {
        if (a.status === 409) expect(a.body.error?.code).toBe('idempotency_key_in_use');
        else expect(a.status, a.text).toBe(202);
      }
      const id = executed[0]!.body.optimization_id!;
      for (const a of answers.filter((x) => x.status === 202)) expect(a.body.optimization_id).toBe(id);
      optimizations.push(id);
      const rows = await c.db.selectFrom('optimizations').select('id').where('org_id', '=', t.orgId).execute();
      expect(rows.map((r) => r.id).sort()).toEqual([...optimizations].sort());
      expect(await ledgerOf(id)).toHaveLength(1);
      expect(await runsOf([id])).toHaveLength(1);
    }

    // Every run completes once, charged once; the provider saw each step's call of each job exactly once.
    const ended = await allEnded([...jobs, ...optimizations]);
    expect(ended.map((r) => r.state)).toEqual(ended.map(() => 'done'));
    for (const id of jobs) {
      expect(await ledgerOf(id)).toEqual([{ state: 'charged', units: JOB_UNITS }]);
      const run = ended.find((r) => r.resource_id === id)!;
      const calls = providerCallsOfRun(run.id);
      expect([...calls.keys()].sort(), id).toEqual(
        expect.arrayContaining([`${run.id}:brief:brief`, `${run.id}:draft:draft`]),
      );
      for (const [k, n] of calls) expect(n, k).toBe(1);
    }
    for (const id of optimizations) expect(await ledgerOf(id)).toEqual([{ state: 'charged', units: OPTIMIZE_UNITS }]);
    // Nothing else reached the provider: every call it saw belongs to one of these runs, once.
    const runIds = new Set(ended.map((r) => r.id));
    for (const r of fake.requests) {
      expect(r.key && runIds.has(r.key.split(':')[0]!), String(r.key)).toBe(true);
      expect(fake.callsFor(r.key!), r.key!).toBe(1);
    }
    expect(
      countOf(
        await c.db
          .selectFrom('usage_ledger')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('org_id', '=', t.orgId)
          .executeTakeFirst(),
      ),
    ).toBe(jobs.length + optimizations.length);
    console.info('B.15 across processes: first executions answered by', [...winners].sort().join(', '));
  });

  it('D.39 across processes: a starter key (30 a minute) sending 45 requests spread over the three at once gets exactly 30 answers and 15 429 rate_limit_exceeded', async () => {
    const t = await c.tenant('starter');
    // Open the connections first (unauthenticated, so uncounted), so the burst is not spread by TCP set-up.
    await Promise.all(c.members.flatMap((m) => Array.from({ length: 15 }, () => fetch(`${m.url}/healthz`))));
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 45 }, (_, i) => {
        const m = c.members[i % 3]!;
        return api(m.url, t.key, 'GET', '/usage').then((a) => ({ member: m.name, ...a }));
      }),
    );
    const elapsedMs = performance.now() - started;
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(ok.length + refused.length, answers.map((a) => a.status).join(',')).toBe(45);
    for (const a of refused) {
      expect((a.body as Created).error?.code).toBe('rate_limit_exceeded');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(a.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    for (const a of answers) expect(a.headers.get('x-ratelimit-limit')).toBe('30');
    // GCRA lets one more request through for every 2 s (60 s / 30) the burst lasted; a burst under 2 s gets exactly
    // 30. Both bounds are exact: the allowance is never refused while it lasts, never granted past it.
    const refill = Math.floor(elapsedMs / 2_000);
    expect(ok.length).toBeGreaterThanOrEqual(30);
    expect(ok.length, `the burst took ${Math.round(elapsedMs)} ms`).toBeLessThanOrEqual(30 + refill);
    if (refill === 0) {
      expect(ok).toHaveLength(30);
      expect(refused).toHaveLength(15);
    }
    // The allowance was shared: answers passed on more than one process, and the refusals too.
    expect(new Set(ok.map((a) => a.member)).size).toBeGreaterThan(1);
    expect(new Set(refused.map((a) => a.member)).size).toBeGreaterThan(1);
  });

  it('C.27 across processes: concurrent paid requests spread over the three never overspend the 24 h window; the over-limit ones get 429 usage_limit_reached; the usage endpoint of every process agrees afterwards', async () => {
    // starter: 100 units in 24 h. 8 content jobs (10 each) and 12 optimizations (4 each) ask for 128.
    const t = await c.tenant('starter');
    const LIMIT = 100;
    const asks = Array.from({ length: 20 }, (_, i) => (i % 5 < 2 ? 'job' : 'optimize') as 'job' | 'optimize');
    expect(asks.filter((a) => a === 'job')).toHaveLength(8);
    const answers = await Promise.all(
      asks.map(async (kind, i) => {
        const m = c.members[i % 3]!;
        const a =
          kind === 'job'
            ? await api<Created>(m.url, t.key, 'POST', '/copywriter/jobs', {
                body: plumbingJob(t.clientId),
                headers: { 'idempotency-key': `mp-window-${i}` },
              })
            : await api<Created>(m.url, t.key, 'POST', '/optimize', {
                body: { url: RAPIDFLOW, keyword: `${PLUMBING} ${i}` },
                headers: { 'idempotency-key': `mp-window-${i}` },
              });
        return { kind, units: kind === 'job' ? JOB_UNITS : OPTIMIZE_UNITS, member: m.name, ...a };
      }),
    );
    const accepted = answers.filter((a) => a.status === 201 || a.status === 202);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted.length + refused.length, answers.map((a) => `${a.status} ${a.text}`).join('\n')).toBe(20);
    for (const a of refused) {
      expect(a.body.error?.code).toBe('usage_limit_reached');
      expect(a.body.error?.details).toMatchObject({ window: '24h', recovers_at: expect.any(String) });
    }
    const acceptedUnits = accepted.reduce((s, a) => s + a.units, 0);
    expect(acceptedUnits).toBeLessThanOrEqual(LIMIT);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(accepted.map((a) => a.member)).size).toBeGreaterThan(1);

    // The ledger holds exactly the accepted work, never more than the window.
    const ids = accepted.map((a) => (a.kind === 'job' ? a.body.job_id! : a.body.optimization_id!));
    const ledger = await c.db
      .selectFrom('usage_ledger')
      .select(['resource_id', 'units'])
      .where('org_id', '=', t.orgId)
      .execute();
    expect(ledger.map((l) => l.resource_id).sort()).toEqual([...ids].sort());
    expect(ledger.reduce((s, l) => s + l.units, 0)).toBe(acceptedUnits);

    const ended = await allEnded(ids);
    expect(ended.map((r) => r.state)).toEqual(ended.map(() => 'done'));
    const settled = await c.db.selectFrom('usage_ledger').select('state').where('org_id', '=', t.orgId).execute();
    expect(settled.map((s) => s.state)).toEqual(settled.map(() => 'charged'));
    // Nothing was released while the requests raced, so each refusal saw less room than it asked for: the window
    // was filled as far as the refused sizes allow, not merely not overspent.
    const smallestRefused = Math.min(...refused.map((a) => a.units));
    expect(LIMIT - acceptedUnits).toBeLessThan(smallestRefused);

    // Every process reads the same windows from the one database.
    const views = await Promise.all(
      c.members.map((m) =>
        api<{ windows: Record<'24h' | '7d', { limit: number; used: number; reserved: number }> }>(
          m.url,
          t.key,
          'GET',
          '/usage',
        ),
      ),
    );
    for (const v of views) {
      expect(v.status).toBe(200);
      expect(v.body.windows['24h']).toMatchObject({ limit: LIMIT, used: acceptedUnits, reserved: 0 });
      expect(v.body.windows['7d']).toMatchObject({ limit: 400, used: acceptedUnits, reserved: 0 });
    }
    console.info(
      `C.27 across processes: accepted ${accepted.length} (${acceptedUnits} units), refused ${refused.length}`,
    );
  });
});

interface Forwarded {
  upstream: number;
  httpMethod: string;
  /** JSON-RPC methods in the body (one, or several in a batch). */
  rpc: string[];
  /** The tool name of a tools/call. */
  tool: string | null;
  status: number | null;
}

/**
 * A round-robin reverse proxy on loopback (what a load balancer without sticky sessions does): each HTTP request goes
 * to the next upstream in turn, with Host rewritten to the upstream's (each server accepts only its own Host).
 */
async function startRoundRobin(upstreams: readonly Member[]) {
  const log: Forwarded[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const upstream = next++ % upstreams.length;
      const target = new URL(upstreams[upstream]!.url);
      const body = Buffer.concat(chunks);
      const entry: Forwarded = { upstream, httpMethod: req.method ?? 'GET', rpc: [], tool: null, status: null };
      try {
        const parsed = JSON.parse(body.toString('utf8')) as unknown;
        for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
          const msg = m as { method?: string; params?: { name?: string } };
          if (msg.method) entry.rpc.push(msg.method);
          if (msg.method === 'tools/call') entry.tool = msg.params?.name ?? null;
        }
      } catch {
        // not JSON (a GET)
      }
      log.push(entry);
      const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
      const up = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (upRes) => {
          entry.status = upRes.statusCode ?? null;
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a 2026-07-28 MCP client behind a round-robin proxy over two processes', () => {
  it('stateless era across processes: tools/list and consecutive tool calls (create a content job, read it, usage, replay the create, read it done) land on alternate processes and answer as on one', async () => {
    const t = await c.tenant('agency');
    const [a, b] = c.members;
    const proxy = await startRoundRobin([a!, b!]);
    const mcp = await connectModernHttpClient(proxy.url, t.key);
    try {
      const tools = (await mcp.client.listTools()).tools.map((x) => x.name);
      expect(tools).toEqual(expect.arrayContaining(['create_content_job', 'get_content_job', 'get_usage']));

      const args = { ...plumbingJob(t.clientId), idempotency_key: 'mp-mcp-1' };
      const created = await mcp.client.callTool({ name: 'create_content_job', arguments: args });
      expect(created.isError, JSON.stringify(created)).toBeFalsy();
      const job = structured<{ job_id: string; status: string }>(created);
      expect(job.job_id).toMatch(/\S/);

      const read = await mcp.client.callTool({ name: 'get_content_job', arguments: { job_id: job.job_id } });
      expect(read.isError, JSON.stringify(read)).toBeFalsy();
      expect(structured(read)).toMatchObject({ job_id: job.job_id, topic: PLUMBING, client_id: t.clientId });

      const usage = await mcp.client.callTool({ name: 'get_usage', arguments: {} });
      expect(usage.isError).toBeFalsy();
      expect(structured(usage)).toMatchObject({
        plan: 'agency',
        windows: { '24h': { limit: 1_500, reserved: expect.any(Number), used: expect.any(Number) } },
      });
      const w = structured<{ windows: { '24h': { used: number; reserved: number } } }>(usage).windows['24h'];
      expect(w.used + w.reserved).toBe(JOB_UNITS);

      const again = (await mcp.client.callTool({ name: 'create_content_job', arguments: args })) as {
        isError?: boolean;
        _meta?: Record<string, unknown>;
      };
      expect(again.isError).toBeFalsy();
      expect(structured(again)).toMatchObject({ job_id: job.job_id });
      expect(again._meta).toMatchObject({ idempotent_replayed: true });

      // The run finishes on whichever process claims it; the next read (on the other process again) sees it done.
      const [run] = await allEnded([job.job_id]);
      expect(run!.state).toBe('done');
      const done = await mcp.client.callTool({ name: 'get_content_job', arguments: { job_id: job.job_id } });
      expect(structured(done)).toMatchObject({ job_id: job.job_id, status: 'completed', billing: { charged: true } });

      // The proxy really alternated: every request went to the other process than the one before (the SDK's
      // server/discover and tools/list included), both processes served tool calls, and each call about the job was
      // answered by another process than the call before it.
      for (const [i, e] of proxy.log.entries()) if (i > 0) expect(e.upstream).not.toBe(proxy.log[i - 1]!.upstream);
      expect(proxy.log.map((e) => e.status)).toEqual(proxy.log.map(() => 200));
      // (The SDK opens with server/discover; nothing else is sent besides the calls made here.)
      expect(proxy.log.flatMap((e) => e.rpc).filter((m) => m !== 'server/discover')).toEqual([
        'tools/list',
        'tools/call',
        'tools/call',
        'tools/call',
        'tools/call',
        'tools/call',
      ]);
      const toolCalls = proxy.log.filter((e) => e.tool);
      expect(toolCalls.map((e) => e.tool)).toEqual([
        'create_content_job',
        'get_content_job',
        'get_usage',
        'create_content_job',
        'get_content_job',
      ]);
      expect(new Set(toolCalls.map((e) => e.upstream))).toEqual(new Set([0, 1]));

      // One job, one run, one reservation, charged once, in the one database, whichever process took each call.
      expect(await c.db.selectFrom('content_jobs').select('id').where('org_id', '=', t.orgId).execute()).toEqual([
        { id: job.job_id },
      ]);
      expect(await runsOf([job.job_id])).toHaveLength(1);
      expect(await ledgerOf(job.job_id)).toEqual([{ state: 'charged', units: JOB_UNITS }]);
    } finally {
      await mcp.close().catch(() => undefined);
      await proxy.close();
    }
  });
});
