import { copyFileSync, openSync, writeSync, closeSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertHealthyDatabase,
  immediate,
  openDatabase,
  readPragmas,
  type OpenedDatabase,
} from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp } from '../helpers/app.ts';
import { startBillableProvider } from '../helpers/billable-provider.ts';
import { captureLogger } from '../helpers/logs.ts';
import { tempDir } from '../helpers/temp.ts';
import { widgetOperations, widgetPipeline } from '../helpers/widget.ts';
import { SQLITE_DRIVER } from '../../src/sqlite-driver.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tracked(opened: OpenedDatabase): OpenedDatabase {
  cleanups.push(() => opened.close().catch(() => undefined));
  return opened;
}

/** A migrated database file with enough rows to span several pages; closed (WAL checkpointed) when returned. */
async function populatedFile(): Promise<string> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const opened = openDatabase(tmp.dbPath);
  await migrateToLatest(opened.db);
  await immediate(opened.db, async (trx) => {
    for (let i = 0; i < 300; i++) {
      await createOrganisation(
        trx,
        { name: `Organisation number ${i} with a longer name to fill pages`, plan: 'starter', subscription: 'active' },
        1_000 + i,
      );
    }
  });
  await opened.close();
  return tmp.dbPath;
}

/** Overwrites `length` bytes at `offset` with a fixed garbage pattern. */
function scribble(file: string, offset: number, length: number): void {
  const fd = openSync(file, 'r+');
  const garbage = Buffer.alloc(length, 0);
  for (let i = 0; i < length; i++) garbage[i] = (i * 131 + 17) & 0xff;
  writeSync(fd, garbage, 0, length, offset);
  closeSync(fd);
}

describe('SQLite store', () => {
  it('G.73 openDatabase runs WAL, synchronous=FULL, foreign keys, a busy timeout, and passes integrity_check', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const opened = tracked(openDatabase(tmp.dbPath));
    await migrateToLatest(opened.db);
    const p = readPragmas(opened.raw);
    expect(p).toEqual({
      journal_mode: 'wal',
      synchronous: 2,
      foreign_keys: 1,
      busy_timeout: 5_000,
      integrity_check: 'ok',
    });
    expect(assertHealthyDatabase(opened.raw)).toEqual(p);
    const custom = tracked(openDatabase(`${tmp.dir}/other.db`, { busyTimeoutMs: 250 }));
    expect(readPragmas(custom.raw).busy_timeout).toBe(250);
  });

  it('G.73 assertHealthyDatabase names each setting that is off', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const opened = tracked(openDatabase(tmp.dbPath));
    opened.raw.pragma('synchronous = NORMAL');
    expect(() => assertHealthyDatabase(opened.raw)).toThrow(/synchronous is 1, expected 2/);
    opened.raw.pragma('synchronous = FULL');
    opened.raw.pragma('foreign_keys = OFF');
    expect(() => assertHealthyDatabase(opened.raw)).toThrow(/foreign_keys is off/);
    opened.raw.pragma('foreign_keys = ON');
    opened.raw.pragma('busy_timeout = 0');
    expect(() => assertHealthyDatabase(opened.raw)).toThrow(/busy_timeout is 0/);
    opened.raw.pragma('busy_timeout = 5000');
    opened.raw.pragma('journal_mode = DELETE');
    expect(() => assertHealthyDatabase(opened.raw)).toThrow(/journal_mode is delete, expected wal/);
  });

  it('G.73 a corrupted copy of a database file fails assertHealthyDatabase, and the server refuses to start on it', async () => {
    const file = await populatedFile();
    const original = tracked(openDatabase(file));
    expect(assertHealthyDatabase(original.raw).integrity_check).toBe('ok');
    await original.close();

    const pageSize = 4096;
    expect(statSync(file).size).toBeGreaterThan(pageSize * 4);
    const copy = `${file}.corrupt`;
    copyFileSync(file, copy);
    // Garbage over the b-tree pages after the schema page: the header stays readable, the content does not.
    scribble(copy, pageSize + 8, pageSize * 2);
    expect(() => {
      const bad = tracked(openDatabase(copy));
      assertHealthyDatabase(bad.raw);
    }).toThrow(/integrity_check|malformed|not a database/);

    const logs = captureLogger();
    await expect(
      createApp({ config: loadConfig({ AGENT_API_DB: copy, AGENT_API_LOG_LEVEL: 'silent' }), logger: logs.logger }),
    ).rejects.toThrow(/integrity_check|malformed|not a database/);
  });

  it('G.73 a file whose header is garbage is refused', async () => {
    const file = await populatedFile();
    const copy = `${file}.badheader`;
    copyFileSync(file, copy);
    scribble(copy, 0, 100);
    expect(() => {
      const bad = tracked(openDatabase(copy));
      assertHealthyDatabase(bad.raw);
    }).toThrow();
  });

  it('immediate() commits, rolls back on a throw, and joins an open transaction when nested', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const { db } = tracked(openDatabase(tmp.dbPath));
    await migrateToLatest(db);
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('organisations')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    await immediate(db, async (trx) => {
      await createOrganisation(trx, { name: 'a', plan: 'starter', subscription: 'active' }, 1);
      await immediate(trx, (inner) =>
        createOrganisation(inner, { name: 'b', plan: 'starter', subscription: 'active' }, 2),
      );
    });
    expect(await count()).toBe(2);

    await expect(
      immediate(db, async (trx) => {
        await createOrganisation(trx, { name: 'c', plan: 'starter', subscription: 'active' }, 3);
        await immediate(trx, (inner) =>
          createOrganisation(inner, { name: 'd', plan: 'starter', subscription: 'active' }, 4),
        );
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await count()).toBe(2);
  });

  it('G.80 50 concurrent writers over REST plus a second connection writing in BEGIN IMMEDIATE: no SQLITE_BUSY reaches a client', async () => {
    const provider = await startBillableProvider();
    cleanups.push(provider.close);
    const t = await startTestApp({
      operations: [...OPERATIONS, ...widgetOperations()],
      pipelines: (e) => [widgetPipeline(e, () => provider.url)],
    });
    cleanups.push(t.close);
    const { orgId, clientId, key } = await t.tenant('agency');
    const side = await t.org('agency');

    // The second connection lives on its own thread (a same-thread connection would block the event loop while the
    // first one holds the lock). It keeps writing ledger rows in BEGIN IMMEDIATE transactions that hold the lock a
    // little, until told to stop.
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `
      const { workerData, parentPort } = require('node:worker_threads');
      const Database = require(workerData.modulePath);
      const db = new Database(workerData.dbPath);
      db.pragma('busy_timeout = 5000');
      const insert = db.prepare("insert into usage_ledger (id, org_id, operation, resource_kind, resource_id, units, state, created_at, settled_at) values (?, ?, 'content_job', 'side', ?, 1, 'reserved', ?, null)");
      const charge = db.prepare("update usage_ledger set state = 'charged', settled_at = ? where resource_kind = 'side' and resource_id = ? and state = 'reserved'");
      const pause = new Int32Array(new SharedArrayBuffer(4));
      let done = 0; const errors = [];
      parentPort.postMessage({ ready: true });
      for (let i = 0; Atomics.load(workerData.stop, 0) === 0 && i < 100000; i++) {
        try {
          db.exec('BEGIN IMMEDIATE');
          const id = 'side-' + i;
          insert.run(id, workerData.orgId, id, workerData.now);
          Atomics.wait(pause, 0, 0, 2);
          charge.run(workerData.now, id);
          db.exec('COMMIT');
          done++;
        } catch (err) {
          errors.push(String(err.code || err.message));
          try { db.exec('ROLLBACK'); } catch {}
        }
        Atomics.wait(pause, 0, 0, 1);
      }
      db.close();
      parentPort.postMessage({ done, errors });
    `,
      {
        eval: true,
        workerData: {
          // The driver this Node loads: 12.x aborts on Node 24 when a statement is collected off-thread.
          modulePath: createRequire(import.meta.url).resolve(SQLITE_DRIVER),
          dbPath: t.dbPath,
          orgId: side.id,
          now: t.clock.now(),
          stop,
        },
      },
    );
    const report = new Promise<{ done: number; errors: string[] }>((resolve, reject) => {
      worker.on('message', (m: { ready?: boolean; done?: number; errors?: string[] }) => {
        if (!m.ready) resolve({ done: m.done ?? 0, errors: m.errors ?? [] });
      });
      worker.on('error', reject);
    });
    await new Promise<void>((resolve) => worker.once('message', () => resolve()));

    const requests = Array.from({ length: 50 }, (_, i) =>
      t.request('POST', '/widgets', {
        key,
        body: { client_id: clientId, label: `w${i}` },
        headers: i % 2 ? { 'idempotency-key': `g80-${i}` } : {},
      }),
    );
    // The runner charges finished widgets while creations are still arriving.
    const running = (async () => {
      for (let i = 0; i < 5; i++) await t.engine.runner.runUntilIdle();
    })();
    const responses = await Promise.all(requests);
    await running;
    await t.engine.runner.runUntilIdle();
    Atomics.store(stop, 0, 1);
    const side2 = await report;
    await worker.terminate();

    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(side2.errors).toEqual([]);
    expect(side2.done).toBeGreaterThan(0);
    expect(t.logs!.text()).not.toMatch(/SQLITE_BUSY|database is locked/);
    const ledger = await t.db.selectFrom('usage_ledger').select('state').where('org_id', '=', orgId).execute();
    expect(ledger).toHaveLength(50);
    expect(ledger.every((r) => r.state === 'charged')).toBe(true);
    expect(provider.runs()).toBe(50);
    const sideRows = await t.db
      .selectFrom('usage_ledger')
      .select('state')
      .where('resource_kind', '=', 'side')
      .execute();
    expect(sideRows).toHaveLength(side2.done);
    expect(sideRows.every((r) => r.state === 'charged')).toBe(true);
  });
});
