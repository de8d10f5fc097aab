import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/engine/platform/rate-limit.ts';
import { createSharedRateLimiter } from '../../src/engine/platform/rate-limit-shared.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres, openTestStore, type TestStore } from '../helpers/store.ts';
import { REDIRECT_URI, registerRequest } from '../helpers/oauth.ts';

/**
 * The shared limiter keeps each key's GCRA state in PostgreSQL: it must decide exactly as the in-process limiter does,
 * and two servers on one database must share one allowance per key. PostgreSQL only (SQLite keeps the in-process one).
 */
describe.skipIf(!onPostgres)('the request limiter shared through PostgreSQL', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore();
    await migrateToLatest(store.db);
  });
  afterAll(async () => {
    await store.close();
  });

  it('decides every request of a mixed sequence exactly as the in-process limiter (bursts, waits, a limit change)', async () => {
    const clock = createFakeClock();
    const local = createRateLimiter(clock);
    const shared = createSharedRateLimiter(store.db, clock, 'seq:');
    const steps: Array<[advanceMs: number, limit: number]> = [
      ...Array.from({ length: 35 }, () => [0, 30] as [number, number]),
      [1_000, 30],
      [1_999, 30],
      [1, 30],
      ...Array.from({ length: 5 }, () => [0, 30] as [number, number]),
      [10_000, 120],
      ...Array.from({ length: 100 }, () => [50, 120] as [number, number]),
      [30_000, 30],
      ...Array.from({ length: 10 }, () => [0, 30] as [number, number]),
      [61_000, 30],
    ];
    for (const [i, [advance, limit]] of steps.entries()) {
      clock.advance(advance);
      const want = local.take('k', limit);
      const got = await shared.take('k', limit);
      expect(got, `request ${i}`).toEqual(want);
      expect(await shared.wouldAllow('k', limit), `request ${i}`).toBe(local.wouldAllow('k', limit));
    }
  });

  it('keys are apart: one key at its limit leaves another whole', async () => {
    const clock = createFakeClock();
    const shared = createSharedRateLimiter(store.db, clock, 'apart:');
    for (let i = 0; i < 30; i++) expect((await shared.take('a', 30)).allowed).toBe(true);
    expect((await shared.take('a', 30)).allowed).toBe(false);
    expect((await shared.take('b', 30)).allowed).toBe(true);
  });

  describe('two servers on one database', () => {
    const apps: TestApp[] = [];
    afterAll(async () => {
      for (const a of apps.reverse()) await a.close();
    });

    it('a starter key (30 a minute) sending 45 requests spread over both, at once: exactly 30 pass', async () => {
      const a = await startTestApp();
      apps.push(a);
      const b = await startTestApp({ dbPath: a.dbPath, clock: a.clock });
      apps.push(b);
      const { key } = await a.tenant('starter');
      const answers = await Promise.all(
        Array.from({ length: 45 }, (_, i) => (i % 2 ? a : b).request('GET', '/usage', { key })),
      );
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(30);
      expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    });

    it('failed authentication is counted once for both: 5 a minute, 8 bad keys spread over both, then 429 on either; a good key still passes', async () => {
      const env = { AGENT_API_FAILED_AUTH_PER_MINUTE: '5' };
      const a = await startTestApp({ env });
      apps.push(a);
      const b = await startTestApp({ env, dbPath: a.dbPath, clock: a.clock });
      apps.push(b);
      const { key } = await a.tenant('starter');
      const bad = `${key.slice(0, -4)}zzzz`;
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await (i % 2 ? a : b).request('GET', '/usage', { key: bad })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      // Malformed tokens from the address are refused by both with no lookup.
      expect((await a.request('GET', '/usage', { key: 'junk' })).status).toBe(429);
      expect((await b.request('GET', '/usage', { key: 'junk' })).status).toBe(429);
      expect((await b.request('GET', '/usage', { key })).status).toBe(200);
      // A minute on, the address has its allowance back on both.
      a.clock.advance(60_000);
      expect((await b.request('GET', '/usage', { key: bad })).status).toBe(401);
    });

    it('OAuth client registrations are counted once for both: 10 a minute from one address spread over both, then 429 on either', async () => {
      const a = await startTestApp();
      apps.push(a);
      const b = await startTestApp({ dbPath: a.dbPath, clock: a.clock });
      apps.push(b);
      const register = (app: TestApp, i: number) =>
        registerRequest(app.url, {
          client_name: `Client ${i}`,
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
        });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await register(i % 2 ? a : b, i)).status);
      expect(statuses).toEqual([...Array(10).fill(201), 429, 429]);
      a.clock.advance(61_000);
      expect((await register(a, 12)).status).toBe(201);
    });
  });
});
