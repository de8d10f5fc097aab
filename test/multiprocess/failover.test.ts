import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRow } from '../../src/store/repos/runs.ts';
import type { FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { api, plumbingJob, startCluster, until, type Cluster, type Member, type Tenant } from '../helpers/cluster.ts';
import { llmEnv, startHoldingProxy, startModel, type HoldingProxy } from '../content/helpers/llm.ts';

/**
 * Processes of one installation leave while others keep serving (README, PostgreSQL; docs/reliability.md G.74, G.76,
 * G.79 and Hardening I.27, across processes): three real `agent-api serve` processes on one PostgreSQL database, the
 * writer pointed through a holding proxy at a loopback OpenAI fake that dedupes and counts calls per provider
 * idempotency key (`<run>:<step>:<call>`). One process is stopped with SIGTERM under a stream of requests and accepted
 * jobs; later the process whose runner holds a job's lease is killed with -9 mid-step. Which process runs what is
 * read from the runs table (`lease_owner` names the pid). Waiting is for a condition, never a duration.
 */

const JOB_UNITS = 10;
const LEASE_MS = 3_000;
const GRACE_MS = 2_000;

let c: Cluster;
let fake: FakeOpenAi;
let proxy: HoldingProxy;

beforeAll(async () => {
  fake = await startModel();
  proxy = await startHoldingProxy(fake.origin);
  c = await startCluster({
    size: 3,
    env: {
      ...llmEnv(proxy.baseUrl),
      AGENT_API_LEASE_MS: String(LEASE_MS),
      AGENT_API_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    },
  });
}, 120_000);
afterAll(async () => {
  await c?.close();
  await proxy?.close();
  await fake?.close();
});

const isBrief = (key: string | null) => Boolean(key?.endsWith(':brief:brief'));
const runIdOfKey = (key: string | null) => key?.split(':')[0] ?? '';

async function runsOfOrg(orgId: string): Promise<RunRow[]> {
  return c.db.selectFrom('runs').selectAll().where('org_id', '=', orgId).execute();
}

async function runOf(resourceId: string): Promise<RunRow> {
  return c.db.selectFrom('runs').selectAll().where('resource_id', '=', resourceId).executeTakeFirstOrThrow();
}

async function ledgerOf(resourceId: string) {
  return c.db.selectFrom('usage_ledger').select(['state', 'units']).where('resource_id', '=', resourceId).execute();
}

function exitOf(m: Member): Promise<{ code: number | null; signal: string | null }> {
  if (!m.alive()) return Promise.resolve({ code: m.child.exitCode, signal: m.child.signalCode });
  return new Promise((resolve) => m.child.once('exit', (code, signal) => resolve({ code, signal })));
}

interface Attempt {
  op: number;
  member: string;
  /** When the request had been written to its connection ('finish'), in performance.now() ms. */
  sentAt: number | null;
  endAt: number;
  status: number | null;
  body: string;
  replayed: boolean;
  /** A socket error or an incomplete answer (no status, or a cut body). */
  error: string | null;
}

/** One request over `agent`, recorded whatever happens; bounded by a 30 s client time limit. */
function send(
  agent: http.Agent,
  m: Member,
  op: number,
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
  onSent?: () => void,
): Promise<Attempt> {
  const base = new URL(m.url);
  return new Promise((resolve) => {
    const out: Attempt = {
      op,
      member: m.name,
      sentAt: null,
      endAt: 0,
      status: null,
      body: '',
      replayed: false,
      error: null,
    };
    let settled = false;
    const done = (error: string | null) => {
      if (settled) return;
      settled = true;
      onSent?.();
      out.error = error;
      out.endAt = performance.now();
      resolve(out);
    };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path: `/api/agent/v1${path}`,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
          ...headers,
        },
      },
      (res) => {
        out.status = res.statusCode ?? null;
        out.replayed = res.headers['idempotent-replayed'] === 'true';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (out.body += d));
        res.on('end', () => done(null));
        res.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
        res.on('close', () => done(res.complete ? null : 'incomplete response'));
      },
    );
    req.on('finish', () => {
      out.sentAt = performance.now();
      onSent?.();
    });
    req.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
    req.setTimeout(30_000, () => req.destroy(new Error('client time limit')));
    req.end(payload);
  });
}

describe('one of three processes leaves under load', () => {
  let t: Tenant;
  let victim: Member;

  beforeAll(async () => {
    t = await c.tenant('agency');
    // Three distinct processes, all connected to this one database.
    expect(new Set(c.members.map((m) => m.pid)).size).toBe(3);
    expect(await c.connectedApps()).toEqual(expect.arrayContaining(['mp-a', 'mp-b', 'mp-c']));
  });

  it('G.79 / I.27 across processes: SIGTERM of one process under a stream of requests and accepted jobs: every request sent to it before the signal is answered, later ones are answered or refused at the connection and retried on another process; no run is stranded, every accepted job completes once on the others', async () => {
    // Every request is retried on the next process only when the connection failed without an answer, as a client
    // behind a list of servers would; creates carry an Idempotency-Key, so a retry can never make a second job.
    const keys = [t.key, ...(await Promise.all(Array.from({ length: 7 }, () => c.key(t.orgId))))];
    const agents = new Map(c.members.map((m) => [m.name, new http.Agent({ keepAlive: true, maxSockets: 64 })]));
    const attempts: Attempt[] = [];
    const finals = new Map<number, Attempt>();
    const kinds = new Map<number, 'create' | 'usage' | 'read'>();
    const createKeys = new Map<number, string>();
    const jobIds = new Set<string>();
    let ops = 0;
    let creates = 0;
    const MAX_CREATES = 15;
    let stop = false;

    /** One logical request: the next process on a connection failure, up to one try on each and one more. */
    async function perform(start: number, key: string, kind: 'create' | 'usage' | 'read', jobId?: string) {
      const op = ops++;
      kinds.set(op, kind);
      const idem = kind === 'create' ? `mp-term-${op}` : undefined;
      if (idem) createKeys.set(op, idem);
      for (let i = 0; i < 4; i++) {
        const m = c.members[(start + i) % c.members.length]!;
        const a =
          kind === 'create'
            ? await send(agents.get(m.name)!, m, op, 'POST', '/copywriter/jobs', key, plumbingJob(t.clientId), {
                'idempotency-key': idem!,
              })
            : kind === 'usage'
              ? await send(agents.get(m.name)!, m, op, 'GET', '/usage', key)
              : await send(agents.get(m.name)!, m, op, 'GET', `/copywriter/jobs/${jobId}`, key);
        attempts.push(a);
        if (a.status !== null && a.error === null) {
          finals.set(op, a);
          if (kind === 'create' && (a.status === 201 || a.status === 200))
            jobIds.add((JSON.parse(a.body) as { job_id: string }).job_id);
          return;
        }
      }
    }

    proxy.setPolicy((k) => (isBrief(k) ? 'before' : 'pass'));
    const WORKERS = 9;
    const workers = Array.from({ length: WORKERS }, async (_, w) => {
      for (let i = 0; !stop && i < 400; i++) {
        const key = keys[w % keys.length]!;
        const known = [...jobIds];
        if (i % 3 === 0 && creates < MAX_CREATES) {
          creates++;
          await perform(w + i, key, 'create');
        } else if (i % 3 === 1 && known.length > 0) await perform(w + i, key, 'read', known[(w + i) % known.length]);
        else await perform(w + i, key, 'usage');
        // Paced so that eight keys stay inside their per-minute limits (agency: 120) for the whole run.
        await new Promise((r) => setTimeout(r, 60));
      }
    });

    // The victim: the process whose runner holds the most runs at their (held) brief call, once jobs are spread out.
    const held = await until(
      'accepted jobs to be running on the processes, their brief calls held',
      async () => {
        const runs = await runsOfOrg(t.orgId);
        const heldRuns = new Set(proxy.held.filter((h) => isBrief(h.key)).map((h) => runIdOfKey(h.key)));
        return runs.filter((r) => heldRuns.has(r.id) && r.state === 'pending' && c.holder(r.lease_owner));
      },
      (runs) => runs.length >= 4 && jobIds.size >= 6,
    );
    const byMember = new Map<string, RunRow[]>();
    for (const r of held) {
      const m = c.holder(r.lease_owner)!;
      byMember.set(m.name, [...(byMember.get(m.name) ?? []), r]);
    }
    const [victimName, victimRuns] = [...byMember.entries()].sort((x, y) => y[1].length - x[1].length)[0]!;
    victim = c.members.find((m) => m.name === victimName)!;
    expect(victimRuns.length).toBeGreaterThanOrEqual(1);

    // Long-polls on the victim for jobs whose brief is held: they must answer at once when it stops, not in 20 s.
    const victimJobs = victimRuns.map((r) => r.resource_id);
    const sent: Promise<void>[] = [];
    const longPolls = victimJobs.slice(0, 2).map((id, i) => {
      let onSent!: () => void;
      sent.push(new Promise<void>((resolve) => (onSent = resolve)));
      const path = `/copywriter/jobs/${id}?wait_seconds=20`;
      return send(agents.get(victim.name)!, victim, -1 - i, 'GET', path, t.key, undefined, {}, onSent);
    });
    await Promise.all(sent);

    const exited = exitOf(victim);
    const signalAt = performance.now();
    victim.child.kill('SIGTERM');
    const exit = await Promise.race([
      exited,
      until(
        'the victim to exit after SIGTERM',
        () => victim.alive(),
        (alive) => !alive,
        30_000,
      ).then(() => exited),
    ]);
    // Its runs were handed back as it stopped (lease released at once, not left to expire): none is still its own.
    const afterExit = await Promise.all(victimRuns.map((r) => runOf(r.resource_id)));
    for (const r of afterExit) expect(c.holder(r.lease_owner)?.name, r.id).not.toBe(victim.name);
    stop = true;
    await Promise.all(workers);
    const polls = await Promise.all(longPolls);
    for (const a of agents.values()) a.destroy();

    // Now let the provider answer: the survivors run the victim's handed-back runs and their own.
    proxy.setPolicy(() => 'pass');
    proxy.release();
    const ids = [...jobIds];
    const ended = await until(
      `all ${ids.length} accepted jobs to end on the remaining processes`,
      async () => (await runsOfOrg(t.orgId)).filter((r) => ids.includes(r.resource_id)),
      (runs) => runs.length === ids.length && runs.every((r) => r.state === 'done' || r.state === 'failed'),
      90_000,
    );

    const toVictim = attempts.filter((a) => a.member === victim.name);
    const sentBefore = toVictim.filter((a) => a.sentAt !== null && a.sentAt < signalAt);
    const after = toVictim.filter((a) => !(a.sentAt !== null && a.sentAt < signalAt));
    const figures = {
      victim: victim.name,
      victimHeldRuns: victimRuns.length,
      ops: ops,
      attempts: attempts.length,
      toVictim: toVictim.length,
      toVictimBeforeSignal: sentBefore.length,
      toVictimAfterSignal: after.length,
      afterSignalErrors: [...new Set(after.map((a) => a.error))],
      jobs: ids.length,
      exit,
    };
    console.info('SIGTERM across processes:', JSON.stringify(figures));

    // The process stopped cleanly.
    expect(exit).toEqual({ code: 0, signal: null });
    expect(victim.stderr()).toContain('shutting down');
    // No request lost: every one the victim had received before the signal got its whole answer.
    expect(sentBefore.length).toBeGreaterThan(0);
    expect(sentBefore.filter((a) => a.error !== null)).toEqual([]);
    // After the signal it answered or refused the connection (nothing half-done): a client retries those elsewhere.
    for (const a of after) {
      if (a.error === null) expect(a.status).not.toBeNull();
      else expect(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'socket hang up'], JSON.stringify(a)).toContain(a.error);
    }
    // The survivors never failed a request.
    expect(attempts.filter((a) => a.member !== victim.name && a.error !== null)).toEqual([]);
    // Every logical request got an answer, and a good one.
    expect(finals.size).toBe(ops);
    for (const [op, a] of finals) {
      const kind = kinds.get(op)!;
      if (kind === 'create') expect([201, 200], a.body).toContain(a.status);
      else expect(a.status, a.body).toBe(200);
      if (a.status === 200 && kind === 'create') expect(a.replayed).toBe(true);
    }
    // The long-polls sent to the victim before the signal answered at once with the state they had.
    for (const p of polls) {
      expect(p.error).toBeNull();
      expect(p.status).toBe(200);
      expect((JSON.parse(p.body) as { status: string }).status).not.toBe('completed');
      expect(p.endAt - signalAt).toBeLessThan(15_000);
    }

    // One job per Idempotency-Key, whichever processes its tries reached.
    const stored = await c.db
      .selectFrom('idempotency_keys')
      .select(['key', 'resource_id'])
      .where('org_id', '=', t.orgId)
      .execute();
    expect(stored.map((s) => s.key).sort()).toEqual([...createKeys.values()].sort());
    expect(new Set(stored.map((s) => s.resource_id))).toEqual(jobIds);
    const rows = await c.db.selectFrom('content_jobs').select('id').where('org_id', '=', t.orgId).execute();
    expect(rows.map((r) => r.id).sort()).toEqual([...jobIds].sort());

    // No run stranded: every job completed, charged once; the victim's runs (handed back) were finished by others.
    expect(ended.map((r) => [r.state, r.lease_owner])).toEqual(ended.map(() => ['done', null]));
    for (const id of ids) expect(await ledgerOf(id), id).toEqual([{ state: 'charged', units: JOB_UNITS }]);
    for (const r of victimRuns) {
      const done = await runOf(r.resource_id);
      expect(done.lease_token, r.id).toBeGreaterThan(r.lease_token);
    }
    // The provider ran each step of each job once (a handed-back brief call may be sent again: same key, replayed).
    for (const r of ended) {
      for (const step of ['brief:brief', 'draft:draft'])
        expect(fake.runsFor(`${r.id}:${step}`), `${r.id}:${step}`).toBe(1);
    }
    for (const req of fake.requests) expect(fake.runsFor(req.key!), req.key!).toBe(1);
    for (const m of c.members) expect(m.stderr()).not.toMatch(/usage charge skipped|usage release skipped/);
  });

  it('G.74 / G.76 across processes: kill -9 of the process whose runner holds a content job mid-step: after the lease expires another process completes the job, the provider runs the step once, usage is charged once', async () => {
    const alive = c.members.filter((m) => m.alive());
    expect(alive.length).toBeGreaterThanOrEqual(2);
    const before = fake.requests.length;
    proxy.setPolicy((k) => (isBrief(k) ? 'before' : 'pass'));
    const created = await api<{ job_id: string }>(alive[0]!.url, t.key, 'POST', '/copywriter/jobs', {
      body: plumbingJob(t.clientId),
      headers: { 'idempotency-key': 'mp-kill-1' },
    });
    expect(created.status).toBe(201);
    const id = created.body.job_id;
    const runId = (await runOf(id)).id;
    const briefKey = `${runId}:brief:brief`;
    await proxy.waitForHeld(1, (h) => h.key === briefKey);

    // The holder, from the runs table: its lease owner names the pid of one of the live processes.
    const leased = await runOf(id);
    expect(leased).toMatchObject({ state: 'pending', step: 1, attempts: 1 });
    const holder = c.holder(leased.lease_owner);
    expect(holder, String(leased.lease_owner)).toBeDefined();
    expect(holder!.alive()).toBe(true);
    await holder!.crash();
    expect(holder!.child.signalCode).toBe('SIGKILL');
    // The held call dies with the process: it never reaches the provider.
    proxy.drop();
    proxy.setPolicy(() => 'pass');

    const done = await until(
      'another process to take the run over after the lease expired and complete it',
      () => runOf(id),
      (r) => r.state === 'done' || r.state === 'failed',
    );
    // Claimed again after the kill (by the survivor: the holder is dead), not before its lease expired.
    expect(done).toMatchObject({ state: 'done', lease_owner: null });
    expect(done.lease_token).toBeGreaterThan(leased.lease_token);
    expect(done.updated_at).toBeGreaterThanOrEqual(leased.lease_expires_at!);
    const survivor = c.members.find((m) => m.alive() && m !== holder)!;
    const seen = await api<{ status: string; billing: unknown }>(survivor.url, t.key, 'GET', `/copywriter/jobs/${id}`);
    expect(seen.body).toMatchObject({ status: 'completed', billing: { charged: true, released: false } });
    expect(await ledgerOf(id)).toEqual([{ state: 'charged', units: JOB_UNITS }]);
    // One provider call per step key: the killed process's brief call never left the proxy.
    const calls = fake.requests.slice(before).filter((r) => r.key?.startsWith(`${runId}:`));
    expect(calls.map((r) => r.key)).toEqual(expect.arrayContaining([briefKey, `${runId}:draft:draft`]));
    for (const r of calls) expect(fake.callsFor(r.key!), r.key!).toBe(1);
    expect(survivor.stderr()).not.toMatch(/usage charge skipped/);
  });
});
