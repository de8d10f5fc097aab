import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledEntry } from '../helpers/entry-bundle.ts';
import { findPostgresBin, PG_AVAILABLE, sharedPostgres, type PgCluster } from '../helpers/postgres.ts';

/** The test harness's own PostgreSQL cluster: started by the tests, databases isolated, nothing left behind. */

if (!PG_AVAILABLE) await sharedPostgres(); // prints the loud skip line

const HELPER = fileURLToPath(new URL('../helpers/postgres.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not reaped) still answers kill 0: read its state.
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function postmasterPid(dir: string): number {
  return Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe('findPostgresBin', () => {
  it('honours AGENT_API_TEST_PG_BIN, and answers null when it does not hold the binaries', () => {
    const saved = process.env.AGENT_API_TEST_PG_BIN;
    try {
      process.env.AGENT_API_TEST_PG_BIN = '/nonexistent/pg/bin';
      expect(findPostgresBin()).toBeNull();
      delete process.env.AGENT_API_TEST_PG_BIN;
      const found = findPostgresBin();
      if (PG_AVAILABLE) {
        expect(found).not.toBeNull();
        expect(existsSync(join(found!, 'initdb'))).toBe(true);
        process.env.AGENT_API_TEST_PG_BIN = found!;
        expect(findPostgresBin()).toBe(found);
      }
    } finally {
      if (saved === undefined) delete process.env.AGENT_API_TEST_PG_BIN;
      else process.env.AGENT_API_TEST_PG_BIN = saved;
    }
  });
});

describe.skipIf(!PG_AVAILABLE)('the shared PostgreSQL cluster', () => {
  let cluster: PgCluster;
  const urls: string[] = [];

  beforeAll(async () => {
    const t0 = performance.now();
    cluster = (await sharedPostgres())!;
    const started = performance.now() - t0;
    const t1 = performance.now();
    urls.push(await cluster.createDatabase());
    const first = performance.now() - t1;
    const t2 = performance.now();
    urls.push(await cluster.createDatabase());
    const second = performance.now() - t2;
    process.stderr.write(
      `postgres harness: PostgreSQL ${cluster.version} on port ${cluster.port}: cluster start ${started.toFixed(0)} ms, ` +
        `createDatabase ${first.toFixed(0)} ms then ${second.toFixed(0)} ms\n`,
    );
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('is memoised per process', async () => {
    expect(await sharedPostgres()).toBe(await sharedPostgres());
    expect((await sharedPostgres())!.port).toBe(cluster.port);
  });

  it('serves each database over TCP as postgres, writes and reads, and keeps the databases apart', async () => {
    expect(urls[0]).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_[a-z0-9]+$/);
    expect(urls[0]).not.toBe(urls[1]);
    for (const [i, url] of urls.entries()) {
      await withClient(url, async (c) => {
        const { rows } = await c.query<{ version: string }>('select version()');
        expect(rows[0]!.version).toMatch(/^PostgreSQL \d+/);
        const who = await c.query<{ u: string; db: string }>('select current_user as u, current_database() as db');
        expect(who.rows[0]).toEqual({ u: 'postgres', db: url.split('/').pop() });
        await c.query('create table t (id int primary key, v text)');
        await c.query('insert into t values ($1, $2)', [i, `db${i}`]);
        expect((await c.query('select id, v from t')).rows).toEqual([{ id: i, v: `db${i}` }]);
      });
    }
    // Each database sees its own row only.
    for (const [i, url] of urls.entries()) {
      await withClient(url, async (c) => {
        expect((await c.query('select id, v from t')).rows).toEqual([{ id: i, v: `db${i}` }]);
      });
    }
  });

  it('drops a database, even with a connection open', async () => {
    const url = await cluster.createDatabase();
    const name = url.split('/').pop()!;
    const held = new pg.Client({ connectionString: url });
    held.on('error', () => {});
    await held.connect();
    await cluster.dropDatabase(name);
    await held.end().catch(() => {});
    await expect(withClient(url, async () => {})).rejects.toThrow(/does not exist/);
  });

  it('stops cleanly: no postmaster, no folder, and the next call starts a new cluster', async () => {
    const dir = cluster.dir;
    const pid = postmasterPid(dir);
    expect(alive(pid)).toBe(true);
    await cluster.stop();
    expect(existsSync(dir)).toBe(false);
    expect(await waitFor(() => !alive(pid), 2_000)).toBe(true);
    await expect(withClient(urls[0]!, async () => {})).rejects.toThrow();
    await cluster.stop(); // idempotent
    const t0 = performance.now();
    cluster = (await sharedPostgres())!;
    process.stderr.write(`postgres harness: second cluster start ${(performance.now() - t0).toFixed(0)} ms\n`);
    expect(cluster.dir).not.toBe(dir);
    await withClient(await cluster.createDatabase(), async (c) => {
      expect((await c.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    });
  });
});

describe.skipIf(!PG_AVAILABLE)('a test process that ends without stop() leaves no cluster behind', () => {
  let scratch = '';
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'agent-api-pg-harness-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** A process that starts a cluster, says where, then ends as `how` says (or waits to be killed). */
  async function orphan(how: 'exit' | 'throw' | 'SIGTERM' | 'SIGKILL') {
    const script = join(scratch, `${how}.mts`);
    writeFileSync(
      script,
      `import { startPostgresCluster } from ${JSON.stringify(HELPER)};\n` +
        `const c = await startPostgresCluster();\n` +
        `process.stdout.write(c.dir + '\\n');\n` +
        (how === 'exit'
          ? 'process.exit(0);\n'
          : how === 'throw'
            ? `throw new Error('crash');\n`
            : 'setInterval(() => {}, 1000);\n'),
    );
    const child = spawn(process.execPath, [await bundledEntry(script)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    expect(await waitFor(() => out.includes('\n') || child.exitCode !== null, 30_000)).toBe(true);
    const dir = out.trim();
    expect(dir, err).toMatch(/agent-api-pg-/);
    const pid = existsSync(join(dir, 'data', 'postmaster.pid')) ? postmasterPid(dir) : 0;
    if (how === 'SIGTERM' || how === 'SIGKILL') child.kill(how);
    await exited;
    return { dir, pid, err };
  }

  it.each(['exit', 'throw', 'SIGTERM'] as const)('%s: stopped and removed by the process itself', async (how) => {
    const { dir, pid } = await orphan(how);
    expect(existsSync(dir)).toBe(false);
    if (pid) expect(await waitFor(() => !alive(pid), 2_000)).toBe(true);
  });

  it('SIGKILL: stopped and removed by the watchdog', async () => {
    const { dir, pid } = await orphan('SIGKILL');
    expect(pid).toBeGreaterThan(0);
    expect(await waitFor(() => !existsSync(dir) && !alive(pid), 10_000)).toBe(true);
  });
});
