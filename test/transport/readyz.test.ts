import { mkdir, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { tempDir } from '../helpers/temp.ts';
import { ARCHIVE_EXTRACTOR_ID } from '../../src/archive-index.ts';
import { SAMPLE_ARCHIVE_PATH } from '../../src/config.ts';
import { searchIndexPath } from '../../src/providers/search/archive-search.ts';
import { createWebArchive } from '../../src/providers/web/archive/archive.ts';
import { expectedMigrations } from '../../src/store/migrations/index.ts';

describe('GET /readyz: the database answers and holds every migration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 200 ready with the dialect and the number of migrations', async () => {
    const r = await fetch(`${t.url}/readyz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      status: 'ready',
      database: process.env.AGENT_API_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite',
      migrations: expectedMigrations(t.db).length,
    });
  });

  it('answers 503 service_unavailable naming a migration that is missing, and 200 again once it is back', async () => {
    const last = expectedMigrations(t.db).at(-1)!;
    await sql`delete from kysely_migration where name = ${last}`.execute(t.db);
    const r = await fetch(`${t.url}/readyz`);
    expect(r.status).toBe(503);
    expect(await r.json()).toMatchObject({
      error: { code: 'service_unavailable', details: { missing_migrations: [last] } },
    });
    await sql`insert into kysely_migration (name, timestamp) values (${last}, ${new Date().toISOString()})`.execute(
      t.db,
    );
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
  });
});

/** Asks `probe` until it answers something (each ask is a real request), for at most `ms` of real time. */
async function until<T>(probe: () => Promise<T | null>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error('the condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('GET /readyz while the web archive is indexed', () => {
  it('answers 503 with indexing {done, total} while /healthz answers 200, then 200 once the index is built', async () => {
    const tmp = tempDir('readyz-index-');
    const indexDir = join(tmp.dir, 'index');
    // The URL index is built ahead and the search index's lock is held, as another process building it would: the
    // app's build waits at a known point (every page counted, none done) until the lock goes.
    const archive = createWebArchive({ path: SAMPLE_ARCHIVE_PATH, indexDir });
    const records = await archive.open();
    const total = records.pageCount();
    const lock = `${searchIndexPath(records, ARCHIVE_EXTRACTOR_ID)}.lock`;
    await archive.close();
    await mkdir(indexDir, { recursive: true });
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname() }));
    const t = await startTestApp({ background: true, env: { AGENT_API_ARCHIVE_INDEX_DIR: indexDir } });
    try {
      const waiting = await until(async () => {
        const r = await fetch(`${t.url}/readyz`);
        const body = (await r.json()) as { error?: { details?: { indexing?: { total?: number } } } };
        return body.error?.details?.indexing?.total === total ? { status: r.status, body } : null;
      });
      expect(total).toBeGreaterThan(20);
      expect(waiting).toEqual({
        status: 503,
        body: {
          error: {
            code: 'service_unavailable',
            message: 'The web archive is being indexed.',
            details: { indexing: { phase: 'pages', done: 0, total } },
          },
          indexing: { phase: 'pages', done: 0, total },
        },
      });
      const health = await fetch(`${t.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });

      await rm(lock);
      const ready = await until(async () => {
        const r = await fetch(`${t.url}/readyz`);
        return r.status === 200 ? r.json() : (await r.body?.cancel(), null);
      });
      expect(ready).toMatchObject({ status: 'ready' });
      // The build said what it did on the log (stderr), ending with the pages it indexed.
      const done = t
        .logs!.lines()
        .map((l) => JSON.parse(l) as { msg: string; indexing?: { done: number; total: number } })
        .filter((l) => l.msg === 'web archive indexed');
      expect(done).toEqual([expect.objectContaining({ indexing: expect.objectContaining({ done: total, total }) })]);
      // The probes' 503s are the expected answer during a start, not errors on the log.
      const errors = t
        .logs!.lines()
        .map((l) => JSON.parse(l) as { level: number; path?: string })
        .filter((l) => l.level >= 50);
      expect(errors).toEqual([]);
    } finally {
      await t.close();
      tmp.cleanup();
    }
  });
});
