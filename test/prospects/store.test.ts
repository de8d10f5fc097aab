import { randomUUID } from 'node:crypto';
import { Kysely, sql, SqliteDialect, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import {
  createList,
  deleteProspect,
  listItems,
  saveProspect,
  updateProspect,
} from '../../src/engine/prospects/service.ts';
import { checkUrl } from '../../src/providers/web/safe-fetch.ts';
import { immediate, openDatabase, type OpenedDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createClient } from '../../src/store/repos/clients.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import {
  getItemByDedupeKey,
  getOwnedItem,
  getOwnedList,
  insertProspectItem,
  insertProspectList,
  listProspectItems,
  listProspectLists,
  PROSPECT_STATUSES,
} from '../../src/store/repos/prospects.ts';
import type { DB, ProspectStatus } from '../../src/store/schema.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { countRows, sqlRows } from '../helpers/rows.ts';
import { onPostgres, openTestStore, type TestStore } from '../helpers/store.ts';

/** The prospect tables: the queries the routes run are indexed, and the per-status counters never drift. */

let store: TestStore;
let opened: OpenedDatabase;
let orgId: string;
let clientId: string;
const clock = createFakeClock();
// The service needs only the clock and the URL check of the engine.
const engine = { clock, providers: { checkUrl: (u: string) => checkUrl(u) } } as unknown as Engine;

beforeAll(async () => {
  store = await openTestStore();
  opened = store.opened;
  await migrateToLatest(opened.db);
  orgId = (await createOrganisation(opened.db, { name: 'o', plan: 'agency', subscription: 'active' }, clock.now())).id;
  clientId = (await createClient(opened.db, { orgId, name: 'c' }, clock.now())).id;
});
afterAll(async () => {
  await store.close();
});

describe('prospect store', () => {
  // SQLite's query planner (EXPLAIN QUERY PLAN over the raw handle); PostgreSQL's plans depend on its statistics.
  it.skipIf(onPostgres)('every read a route runs uses an index: no table scan, no sort of the rows', async () => {
    const raw = opened.raw;
    const list = await insertProspectList(
      opened.db,
      { id: randomUUID(), orgId, clientId, name: 'big', opportunityType: null },
      clock.now(),
    );
    raw.transaction(() => {
      const stmt = raw.prepare(
        `INSERT INTO prospect_items (id, list_id, org_id, client_id, url, dedupe_key, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (let i = 0; i < 2_000; i++) {
        stmt.run(
          randomUUID(),
          list.id,
          orgId,
          clientId,
          `https://s${i}.example.com/`,
          `s${i}.example.com`,
          PROSPECT_STATUSES[i % 5],
          i,
          i,
        );
      }
    })();
    raw.exec('ANALYZE');
    const captured: CompiledQuery[] = [];
    const db = new Kysely<DB>({
      dialect: new SqliteDialect({ database: raw }),
      log: (e) => void captured.push(e.query),
    });
    await listProspectLists(db, orgId, clientId, { limit: 20, offset: 0 });
    await getOwnedList(db, orgId, clientId, list.id);
    await listProspectItems(db, list.id, undefined, { limit: 20, offset: 0 });
    await listProspectItems(db, list.id, 'won', { limit: 20, offset: 0 });
    await getItemByDedupeKey(db, list.id, 's7.example.com');
    await getOwnedItem(db, orgId, list.id, randomUUID());
    expect(captured).toHaveLength(7);
    for (const q of captured) {
      const plan = (
        raw.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[]
      ).map((r) => r.detail);
      expect(plan.join(' | '), q.sql).not.toMatch(
        /TEMP B-TREE|SCAN prospect_items(?! USING)|SCAN prospect_lists(?! USING)/,
      );
      expect(plan.join(' | '), q.sql).toMatch(/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY|PRIMARY KEY/);
    }
    // The status breakdown is read from the list row itself: no statement over the items at all.
    const read = await listItems(
      db,
      orgId,
      { client_id: clientId, list_id: list.id, status: 'won' },
      { limit: 1, offset: 0 },
    );
    expect(read.total).toBe(0); // Rows inserted behind the service's back are not counted: the counters are the source.
    // Not destroyed: that would close the shared connection.
  });

  it('UNIQUE(list_id, dedupe_key) decides: a second insert of the key answers nothing and adds no row', async () => {
    const list = await insertProspectList(
      opened.db,
      { id: randomUUID(), orgId, clientId, name: 'u', opportunityType: null },
      clock.now(),
    );
    const row = {
      list_id: list.id,
      org_id: orgId,
      client_id: clientId,
      url: 'https://x.com/',
      dedupe_key: 'x.com',
      target_name: null,
      opportunity_type: null,
      status: 'identified' as const,
      notes: null,
      contact_path: null,
      created_at: 1,
      updated_at: 1,
    };
    expect(await insertProspectItem(opened.db, { ...row, id: randomUUID() })).toMatchObject({ dedupe_key: 'x.com' });
    expect(await insertProspectItem(opened.db, { ...row, id: randomUUID(), url: 'http://www.x.com/' })).toBeUndefined();
    expect(await countRows(opened.db, 'prospect_items', { list_id: list.id })).toBe(1);
  });

  it('the per-status counters equal a count of the rows after a random mix of saves, updates and deletes', async () => {
    const list = await immediate(opened.db, (trx) =>
      createList(engine, trx, orgId, { client_id: clientId, name: 'soak', opportunity_type: null }),
    );
    let seed = 42;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const hosts = Array.from({ length: 25 }, (_, i) => `h${i}.example.com`);
    const variant = (h: string) => [`https://${h}/`, `http://www.${h}`, `https://${h}/#x`][rnd(3)]!;
    const saved = new Map<string, { item_id: string; url: string }>();
    for (let i = 0; i < 400; i++) {
      clock.advance(1);
      const host = hosts[rnd(hosts.length)]!;
      const op = rnd(3);
      await immediate(opened.db, async (trx) => {
        const existing = saved.get(host);
        if (op === 0 || !existing) {
          const status = PROSPECT_STATUSES[rnd(5)] as ProspectStatus;
          const r = await saveProspect(engine, trx, orgId, {
            client_id: clientId,
            list_id: list.list_id,
            url: variant(host),
            target_name: null,
            status,
            notes: null,
            contact_path: null,
          });
          expect(r.created).toBe(!existing);
          saved.set(host, r.item);
        } else if (op === 1) {
          await updateProspect(engine, trx, orgId, {
            client_id: clientId,
            list_id: list.list_id,
            item_id: existing.item_id,
            status: PROSPECT_STATUSES[rnd(5)] as ProspectStatus,
          });
        } else {
          await deleteProspect(engine, trx, orgId, { client_id: clientId, list_id: list.list_id, url: existing.url });
          saved.delete(host);
        }
      });
    }
    const counts = await sqlRows(
      opened.db,
      sql<{
        status: ProspectStatus;
        n: number;
      }>`SELECT status, count(*) AS n FROM prospect_items WHERE list_id = ${list.list_id} GROUP BY status`,
    );
    const row = (await opened.db
      .selectFrom('prospect_lists')
      .selectAll()
      .where('id', '=', list.list_id)
      .executeTakeFirstOrThrow()) as unknown as Record<string, number>;
    for (const s of PROSPECT_STATUSES) expect(row[`count_${s}`], s).toBe(counts.find((c) => c.status === s)?.n ?? 0);
    expect(counts.reduce((n, c) => n + c.n, 0)).toBe(saved.size);
  });

  it('deleting a client removes its lists and items (cascade); constraints hold at the storage level', async () => {
    const other = await createClient(opened.db, { orgId, name: 'gone' }, clock.now());
    const list = await immediate(opened.db, (trx) =>
      createList(engine, trx, orgId, { client_id: other.id, name: 'l', opportunity_type: 'other' }),
    );
    await immediate(opened.db, (trx) =>
      saveProspect(engine, trx, orgId, {
        client_id: other.id,
        list_id: list.list_id,
        url: 'https://a.example.com/',
        target_name: null,
        status: 'won',
        notes: null,
        contact_path: null,
      }),
    );
    await opened.db.deleteFrom('clients').where('id', '=', other.id).execute();
    expect(await countRows(opened.db, 'prospect_items', { client_id: other.id })).toBe(0);
    expect(await countRows(opened.db, 'prospect_lists', { client_id: other.id })).toBe(0);
    // Constraints hold at the storage level too (SQLite: "CHECK constraint failed"; PostgreSQL: "violates check constraint").
    const check = /CHECK constraint failed|violates check constraint/;
    await expect(sql`UPDATE prospect_lists SET count_won = -1`.execute(opened.db)).rejects.toThrow(check);
    await expect(sql`UPDATE prospect_items SET status = 'ghosted'`.execute(opened.db)).rejects.toThrow(check);
  });

  // SQLite's migrations are the incremental ones with a down step; PostgreSQL's schema is one frozen migration.
  it.skipIf(onPostgres)('the prospects migration rolls back cleanly', async () => {
    const { MIGRATIONS } = await import('../../src/store/migrations/index.ts');
    const scratch = openDatabase(':memory:');
    await migrateToLatest(scratch.db);
    await MIGRATIONS['0003-prospects']!.down!(scratch.db as unknown as Kysely<unknown>);
    const tables = scratch.raw
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'prospect%'")
      .all();
    expect(tables).toEqual([]);
    await scratch.close();
  });
});
