import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/store.ts';

/**
 * Two processes' worth of servers on one PostgreSQL database: work accepted by one wakes the other's runner at once
 * (LISTEN/NOTIFY), though that runner polls only every minute. SQLite has one process per file, so PostgreSQL only.
 */
describe.skipIf(!onPostgres)('the wake channel between servers sharing a PostgreSQL store', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const a of apps.reverse()) await a.close();
  });

  it('an optimization accepted by server A is run by server B without waiting for B to poll', async () => {
    const a = await startTestApp({ env: { AGENT_API_POLL_MS: '60000' } });
    apps.push(a);
    const b = await startTestApp({ dbPath: a.dbPath, background: true, env: { AGENT_API_POLL_MS: '60000' } });
    apps.push(b);
    // A only serves requests: its runner is stopped, so accepting work cannot start it here.
    await a.engine.runner.stop();
    const { key } = await a.tenant();
    const started = await a.request('POST', '/optimize', {
      key,
      body: { url: 'https://www.rapidflowplumbing.com/', keyword: 'emergency plumber' },
      headers: { 'idempotency-key': 'wake-1' },
    });
    expect(started.status).toBe(202);
    const id = (started.body as { optimization_id: string }).optimization_id;
    // B's poll is a minute away: only the notification can start the run within the deadline.
    let status = '';
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      // Read from the store: the fake clock never moves, so the key's per-minute limit would end REST polling.
      const row = await a.db.selectFrom('optimizations').select('status').where('id', '=', id).executeTakeFirst();
      status = row?.status ?? '';
      if (status === 'complete' || status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe('complete');
  });
});
