import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { updateOrganisation } from '../../src/store/repos/organisations.ts';
import { revokeApiKey } from '../../src/store/repos/api-keys.ts';
import { call, errorCode, nobody, project, scan, type Any } from './fixture.ts';

/** Every tracker route over REST: success shapes, and 400, 401, 402, 403, 404, 409, 422 and 429 where they apply. */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
let tenant: Awaited<ReturnType<TestApp['tenant']>>;
let projectId: string;
let other: Awaited<ReturnType<TestApp['tenant']>>;
let otherProject: string;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant('agency');
  projectId = await project(t, tenant.clientId, { platforms: ['organic', 'chatgpt'] });
  other = await t.tenant('agency');
  otherProject = await project(t, other.clientId);
});
afterAll(async () => {
  await t.close();
});

const READS: Array<[string, (p: string, c: string) => [string, Record<string, string | number>?]]> = [
  ['list_tracker_projects', () => ['/reporter/projects']],
  ['get_tracker_project', (p) => [`/reporter/projects/${p}`]],
  ['get_tracker_results', (p) => [`/reporter/projects/${p}/results`]],
  ['get_tracker_trends', (p) => [`/reporter/projects/${p}/trends`]],
  ['get_tracker_summary', () => ['/reporter/summary']],
  ['get_brand_summary', (_p, c) => ['/reporter/brand-summary', { client_id: c }]],
];

describe('authentication, scopes and subscription', () => {
  it.each(READS)('%s: 401 without a key, with a malformed key and with a revoked key', async (_name, route) => {
    const [path, query] = route(projectId, tenant.clientId);
    const revoked = await t.key(tenant.orgId);
    await revokeApiKey(t.db, revoked.keyId, t.clock.now());
    for (const key of [null, 'aapi_notarealkeyatall', revoked.apiKey]) {
      const r = await call(t, 'GET', path, key, { query });
      expect(r.status).toBe(401);
      expect(errorCode(r)).toBe('unauthorized');
    }
  });

  it.each(READS)(
    '%s: 403 forbidden without reporter:read; reporter:read and reporter:run both read',
    async (_name, route) => {
      const [path, query] = route(projectId, tenant.clientId);
      const narrow = (await t.key(tenant.orgId, ['optimize:run', 'prospector:write'])).apiKey;
      const r = await call(t, 'GET', path, narrow, { query });
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'reporter:read' } });
      for (const scopes of [['reporter:read'], ['reporter:run']]) {
        const k = (await t.key(tenant.orgId, scopes)).apiKey;
        expect((await call(t, 'GET', path, k, { query })).status).toBe(200);
      }
    },
  );

  it('start_tracker_scan: 401 without a key, 403 with only reporter:read, 402 without a subscription (reads keep working)', async () => {
    const path = `/reporter/projects/${projectId}/scans`;
    expect(errorCode(await call(t, 'POST', path, null))).toBe('unauthorized');
    const read = (await t.key(tenant.orgId, ['reporter:read'])).apiKey;
    const r = await call(t, 'POST', path, read);
    expect(r.status).toBe(403);
    expect(r.body.error.details).toEqual({ required_scope: 'reporter:run' });

    const lapsed = await t.tenant('agency', 'inactive');
    const id = await project(t, lapsed.clientId);
    const denied = await call(t, 'POST', `/reporter/projects/${id}/scans`, lapsed.key);
    expect(denied.status).toBe(402);
    expect(errorCode(denied)).toBe('subscription_required');
    expect(await t.db.selectFrom('tracker_scans').select('id').where('project_id', '=', id).execute()).toEqual([]);
    expect((await call(t, 'GET', `/reporter/projects/${id}`, lapsed.key)).status).toBe(200);
    // The subscription comes back: the scan is accepted.
    await updateOrganisation(t.db, lapsed.orgId, { subscription: 'active' }, t.clock.now());
    expect((await call(t, 'POST', `/reporter/projects/${id}/scans`, lapsed.key)).status).toBe(202);
    await t.engine.runner.runUntilIdle();
  });
});

describe("tenancy: another organisation's project or client is not found", () => {
  it.each([
    ['GET', ''],
    ['GET', '/results'],
    ['GET', '/trends'],
    ['POST', '/scans'],
  ] as const)('%s /reporter/projects/:project_id%s: 404 for a foreign or unknown project', async (method, suffix) => {
    for (const id of [otherProject, nobody()]) {
      const r = await call(t, method, `/reporter/projects/${id}${suffix}`, tenant.key);
      expect(r.status).toBe(404);
      expect(errorCode(r)).toBe('not_found');
    }
    expect(
      await t.db.selectFrom('tracker_scans').select('id').where('project_id', '=', otherProject).execute(),
    ).toEqual([]);
  });

  it.each([['/reporter/projects'], ['/reporter/summary'], ['/reporter/brand-summary']])(
    'GET %s?client_id=: 404 for a foreign or unknown client',
    async (path) => {
      for (const id of [other.clientId, nobody()]) {
        const r = await call(t, 'GET', path, tenant.key, { query: { client_id: id } });
        expect(r.status).toBe(404);
        expect(errorCode(r)).toBe('not_found');
      }
    },
  );
});

describe('input validation: 400 invalid_input naming the field', () => {
  it.each([
    [`trends`, { days: 91 }, 'days'],
    [`trends`, { days: 0 }, 'days'],
    [`trends`, { days: 'week' }, 'days'],
    [`results`, { snapshot: 'newest' }, 'snapshot'],
    [`results`, { snapshot: 'LATEST_RUN' }, 'snapshot'],
    [`results`, { platform: 'bing' }, 'platform'],
    [`results`, { extra: 1 }, 'extra'],
  ] as const)('GET …/%s?%j', async (route, query, field) => {
    const r = await call(t, 'GET', `/reporter/projects/${projectId}/${route}`, tenant.key, { query });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_input');
    expect(r.body.error.details.fields.map((f: Any) => f.path)).toEqual([field]);
  });

  it('lists: limit over 100 and a malformed client_id; brand-summary needs client_id; a malformed project id', async () => {
    expect(errorCode(await call(t, 'GET', '/reporter/projects', tenant.key, { query: { limit: 101 } }))).toBe(
      'invalid_input',
    );
    expect(errorCode(await call(t, 'GET', '/reporter/summary', tenant.key, { query: { client_id: 'abc' } }))).toBe(
      'invalid_input',
    );
    const missing = await call(t, 'GET', '/reporter/brand-summary', tenant.key);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields).toEqual([expect.objectContaining({ path: 'client_id' })]);
    expect(errorCode(await call(t, 'GET', '/reporter/projects/not-a-uuid', tenant.key))).toBe('invalid_input');
    expect(
      errorCode(
        await call(t, 'POST', `/reporter/projects/${projectId}/scans`, tenant.key, {
          body: { platforms: ['organic'] },
        }),
      ),
    ).toBe('invalid_input');
  });

  it('trends: 90 days is the most, one point per day', async () => {
    const r = await call(t, 'GET', `/reporter/projects/${projectId}/trends`, tenant.key, { query: { days: 90 } });
    expect(r.status).toBe(200);
    expect(r.body.points).toHaveLength(90);
    expect((await call(t, 'GET', `/reporter/projects/${projectId}/trends`, tenant.key)).body.points).toHaveLength(30);
  });
});

describe('reads', () => {
  it('list_tracker_projects: newest first, paginated, filtered by client; configuration without the query list', async () => {
    const { orgId, clientId, key } = await t.tenant('agency');
    const second = await t.client(orgId, { name: 'Second' });
    const a = await project(t, clientId, { name: 'A' });
    t.clock.advance(1_000);
    const b = await project(t, second.id, {
      name: 'B',
      platforms: ['perplexity', 'organic'],
      location: 'Austin, Texas',
      language: 'en-US',
    });
    const all = await call(t, 'GET', '/reporter/projects', key);
    expect(all.body.data.map((p: Any) => p.project_id)).toEqual([b, a]);
    expect(all.body.pagination).toEqual({ limit: 20, offset: 0, total: 2, has_more: false });
    expect(all.body.data[0]).toEqual({
      project_id: b,
      client_id: second.id,
      name: 'B',
      domain: 'rapidflowplumbing.com',
      brand_names: ['RapidFlow Plumbing'],
      query_kind: 'keywords',
      query_count: 2,
      platforms: ['organic', 'perplexity'],
      location: 'Austin, Texas',
      language: 'en-US',
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const page = await call(t, 'GET', '/reporter/projects', key, { query: { limit: 1, offset: 1 } });
    expect(page.body).toMatchObject({
      data: [{ project_id: a }],
      pagination: { limit: 1, offset: 1, total: 2, has_more: false },
    });
    const one = await call(t, 'GET', '/reporter/projects', key, { query: { client_id: clientId } });
    expect(one.body.data.map((p: Any) => p.project_id)).toEqual([a]);
  });

  it('start_tracker_scan: 202 with the run record; the optional Idempotency-Key replays the same run and reserves once', async () => {
    const { clientId, key } = await t.tenant('agency');
    const id = await project(t, clientId, { platforms: ['organic', 'claude'] });
    const a = await call(t, 'POST', `/reporter/projects/${id}/scans`, key, {
      headers: { 'Idempotency-Key': 'scan-1' },
    });
    expect(a.status).toBe(202);
    expect(a.body).toEqual({
      run_id: expect.stringMatching(UUID),
      project_id: id,
      status: 'queued',
      platforms: ['organic'],
      missing_platforms: ['claude'],
      query_count: 2,
      units: 2,
      spi: null,
      created_at: expect.stringMatching(ISO),
      started_at: null,
      completed_at: null,
      error: null,
      billing_status: 'reserved',
    });
    const b = await call(t, 'POST', `/reporter/projects/${id}/scans`, key, {
      headers: { 'Idempotency-Key': 'scan-1' },
    });
    expect(b.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.run_id).toBe(a.body.run_id);
    expect((await call(t, 'GET', '/usage', key)).body.windows['24h']).toMatchObject({ reserved: 2, used: 0 });
    await t.engine.runner.runUntilIdle();
    // The replay answers the run as it is now.
    const c = await call(t, 'POST', `/reporter/projects/${id}/scans`, key, {
      headers: { 'Idempotency-Key': 'scan-1' },
    });
    expect(c.body).toMatchObject({ run_id: a.body.run_id, status: 'complete', billing_status: 'finalized' });
    expect((await call(t, 'GET', '/usage', key)).body.windows['24h']).toMatchObject({ reserved: 0, used: 2 });
    // Without a key every call is a new scan.
    const d = await call(t, 'POST', `/reporter/projects/${id}/scans`, key);
    expect(d.body.run_id).not.toBe(a.body.run_id);
    await t.engine.runner.runUntilIdle();
  });

  it('start_tracker_scan: the same key for another project is 422; over the usage window is 429; no configured platform is 409', async () => {
    const { orgId, clientId, key } = await t.tenant('agency');
    const p1 = await project(t, clientId);
    const p2 = await project(t, clientId);
    expect(
      (await call(t, 'POST', `/reporter/projects/${p1}/scans`, key, { headers: { 'Idempotency-Key': 'k' } })).status,
    ).toBe(202);
    const reused = await call(t, 'POST', `/reporter/projects/${p2}/scans`, key, {
      headers: { 'Idempotency-Key': 'k' },
    });
    expect([reused.status, errorCode(reused)]).toEqual([422, 'idempotency_key_reused']);

    const small = await t.tenant('starter');
    const big = await project(t, small.clientId, { queries: Array.from({ length: 101 }, (_, i) => `query ${i}`) });
    const over = await call(t, 'POST', `/reporter/projects/${big}/scans`, small.key);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'usage_limit_reached', details: { window: '24h', requested: 101 } });
    expect(await t.db.selectFrom('tracker_scans').select('id').where('project_id', '=', big).execute()).toEqual([]);

    const aiOnly = await project(t, clientId, { platforms: ['chatgpt', 'claude'] });
    const none = await call(t, 'POST', `/reporter/projects/${aiOnly}/scans`, key);
    expect(none.status).toBe(409);
    expect(none.body.error).toMatchObject({
      code: 'invalid_state',
      details: { missing_platforms: ['chatgpt', 'claude'] },
    });
    await t.engine.runner.runUntilIdle();
    expect(orgId).toBeTruthy();
  });

  it('get_tracker_project: configuration with the query list, SPI with denominators, coverage and the newest run', async () => {
    const before = await call(t, 'GET', `/reporter/projects/${projectId}`, tenant.key);
    expect(before.body).toMatchObject({
      project_id: projectId,
      queries: ['emergency plumber', 'water heater repair'],
      spi: {
        method: 'latest_per_platform',
        overall: { spi: null, denominators: { pairs_measured: 0, pairs_present: 0, platforms_included: [] } },
        platforms: [],
      },
      latest_run: null,
    });
    expect(before.body.spi.coverage).toEqual({
      expected: ['organic', 'chatgpt'],
      present: [],
      missing: ['organic', 'chatgpt'],
      reasons: { organic: 'no_successful_result', chatgpt: 'not_configured' },
    });
    const run = await scan(t, tenant.key, projectId);
    const after = (await call(t, 'GET', `/reporter/projects/${projectId}`, tenant.key)).body;
    expect(after.latest_run).toMatchObject({
      run_id: run.run_id,
      status: 'complete',
      spi: 90,
      billing_status: 'finalized',
      started_at: expect.stringMatching(ISO),
      completed_at: expect.stringMatching(ISO),
    });
    // emergency plumber: RapidFlow 3rd (0.8; Austin Pipe Pros and HomeFix's list rank above it); water heater
    // repair: 1st (1.0) → 100 * 1.8 / 2.
    expect(after.spi.overall).toEqual({
      spi: 90,
      denominators: { pairs_measured: 2, pairs_present: 2, platforms_included: ['organic'] },
    });
    expect(after.spi.platforms).toEqual([
      {
        platform: 'organic',
        status: 'complete',
        source_run_id: run.run_id,
        run_status: 'complete',
        provider: 'archive',
        measured_at: expect.stringMatching(ISO),
        spi: 90,
        denominators: {
          queries_tracked: 2,
          queries_measured: 2,
          queries_failed: 0,
          present: 2,
          mentioned: 2,
          cited: 2,
          ranked: 2,
          average_position: 2,
        },
        error: null,
      },
    ]);
    expect(after.spi.coverage).toMatchObject({
      present: ['organic'],
      missing: ['chatgpt'],
      reasons: { chatgpt: 'not_configured' },
    });
  });

  it('get_tracker_summary: organisation scorecards and the pooled SPI; client scope filters', async () => {
    const { orgId, clientId, key } = await t.tenant('agency');
    const second = await t.client(orgId, { name: 'Second' });
    const a = await project(t, clientId);
    t.clock.advance(1_000);
    const b = await project(t, second.id, { domain: 'austinpipepros.com', brandNames: ['Austin Pipe Pros'] });
    await scan(t, key, a);
    await scan(t, key, b);
    const org = (await call(t, 'GET', '/reporter/summary', key)).body;
    expect(org).toMatchObject({
      scope: 'organisation',
      client_id: null,
      snapshot: { method: 'latest_per_platform' },
      pagination: { total: 2 },
    });
    expect(org.data.map((s: Any) => s.project_id)).toEqual([b, a]);
    const card = org.data[1];
    expect(card).toMatchObject({
      project_id: a,
      client_id: clientId,
      spi: 90,
      platforms: { organic: { spi: 90, status: 'complete', run_status: 'complete' } },
      run_status: 'complete',
      coverage: { missing: [] },
    });
    const bSpi = org.data[0].spi as number;
    expect(org.overall).toEqual({
      spi: Math.round(((90 + bSpi) / 2) * 10) / 10,
      denominators: { pairs_measured: 4, pairs_present: expect.any(Number), projects_measured: 2 },
    });
    const client = (await call(t, 'GET', '/reporter/summary', key, { query: { client_id: second.id } })).body;
    expect(client).toMatchObject({
      scope: 'client',
      client_id: second.id,
      data: [{ project_id: b }],
      overall: { spi: bSpi, denominators: { pairs_measured: 2, projects_measured: 1 } },
    });
  });

  it('get_brand_summary: a client whose projects track no AI platform has no AI data, not zeros', async () => {
    const r = await call(t, 'GET', '/reporter/brand-summary', tenant.key, { query: { client_id: tenant.clientId } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      client_id: tenant.clientId,
      projects: 1,
      totals: { answers_measured: 0, mentioned: 0, cited: 0, mention_rate: null, citation_rate: null },
      platforms: [],
      top_cited_urls: [],
      coverage: { expected: ['chatgpt'], present: [], missing: ['chatgpt'], reasons: { chatgpt: 'not_configured' } },
    });
  });
});
