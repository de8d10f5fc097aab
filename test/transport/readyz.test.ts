import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
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
