import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import {
  approve,
  createdJob,
  expectSameError,
  footprint,
  getArtifacts,
  getAutopilot,
  getJob,
  idem,
  listJobs,
  mcpClient,
  NO_MATCH,
  PLUMBING,
  postAutopilot,
  postJob,
  run,
  startContentApp,
  startedAutopilot,
  tenant,
  tool,
  type Tenant,
} from './helpers/harness.ts';

/**
 * Every error code of create_content_job, create_content_autopilot and the content reads (docs/api.md §1-§3.2),
 * over REST and MCP with the same body, and what each failure leaves behind: nothing. The runner is held, so
 * accepted work stays queued and costs nothing.
 */

let t: TestApp;
let a: Tenant;

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t, 'agency', { serviceArea: 'Austin, TX', serviceLat: 30.2672, serviceLng: -97.7431 });
});
afterAll(async () => {
  await t?.close();
});
// A fresh per-minute request allowance for every test (the clock is fake; usage windows are far from full).
beforeEach(() => t.clock.advance(61_000));

const job = (extra: Record<string, unknown> = {}) => ({
  topic: PLUMBING,
  client_id: a.clientId,
  page_contract: 'article',
  ...extra,
});
const pilot = (extra: Record<string, unknown> = {}) => ({
  topic: PLUMBING,
  client_id: a.clientId,
  page_contract: 'commercial_service',
  ...extra,
});

/** REST and MCP answer 400 invalid_input with the same body naming `field`; nothing is created. */
async function expectInvalid(
  route: 'job' | 'autopilot',
  body: Record<string, unknown>,
  field: string,
  message?: RegExp,
) {
  const before = await footprint(t, a.orgId);
  const rest =
    route === 'job' ? await postJob(t, a.key, body, idem('bad')) : await postAutopilot(t, a.key, body, idem('bad'));
  const mcp = await tool(t, a.key, route === 'job' ? 'create_content_job' : 'create_content_autopilot', body);
  expectSameError(mcp, rest, 400, 'invalid_input');
  const fields = rest.body.error.details!.fields as { path: string; message: string }[];
  const hit = fields.find((f) => f.path === field);
  expect(hit, JSON.stringify(fields)).toBeDefined();
  if (message) expect(hit!.message).toMatch(message);
  const after = await footprint(t, a.orgId);
  expect([after.jobs, after.reservations, after.runs, after.keys]).toEqual([
    before.jobs,
    before.reservations,
    before.runs,
    before.keys,
  ]);
}

describe('400 invalid_input: POST /copywriter/jobs', () => {
  it.each([
    ['missing topic', { topic: undefined }, 'topic'],
    ['empty topic', { topic: '  ', page_contract: 'article' }, 'topic'],
    ['missing client_id', { client_id: undefined }, 'client_id'],
    ['client_id not a UUID', { client_id: 'client-1' }, 'client_id'],
    ['missing page_contract without draft_body', { page_contract: undefined }, 'page_contract'],
    ['page_contract not an enum value', { page_contract: 'landing_page' }, 'page_contract'],
    ['intent not an enum value', { intent: 'sell' }, 'intent'],
    ['mode not an enum value', { mode: 'fast' }, 'mode'],
    ['tone not an enum value', { tone: 'angry' }, 'tone'],
    ['project_mode not an enum value', { project_mode: 'rewrite' }, 'project_mode'],
    ['word_count_target 99', { word_count_target: 99 }, 'word_count_target'],
    ['word_count_target 10001', { word_count_target: 10_001 }, 'word_count_target'],
    ['word_count_target not an integer', { word_count_target: 500.5 }, 'word_count_target'],
    ['source_url missing with project_mode optimize', { project_mode: 'optimize' }, 'source_url'],
    [
      'unsafe source_url (loopback)',
      { project_mode: 'optimize', source_url: 'http://127.0.0.1:8080/admin' },
      'source_url',
    ],
    [
      'unsafe source_url (metadata address)',
      { project_mode: 'optimize', source_url: 'http://169.254.169.254/latest/meta-data/' },
      'source_url',
    ],
    ['unsafe source_url (not http)', { project_mode: 'optimize', source_url: 'file:///etc/passwd' }, 'source_url'],
    ['language not a supported code', { language: 'xx' }, 'language'],
    ['language not a code at all', { language: 'English' }, 'language'],
    ['research_platforms with an unknown platform', { research_platforms: ['bing'] }, 'research_platforms.0'],
    ['research_platforms empty', { research_platforms: [] }, 'research_platforms'],
    ['research_platforms repeated', { research_platforms: ['organic', 'organic'] }, 'research_platforms'],
  ])('%s', async (_label, extra, field) => {
    const body = Object.fromEntries(
      Object.entries(job(extra as Record<string, unknown>)).filter(([, v]) => v !== undefined),
    );
    await expectInvalid('job', body, field);
  });

  it('a research platform without a configured provider names the setting that enables it', async () => {
    await expectInvalid(
      'job',
      job({ research_platforms: ['youtube_search'] }),
      'research_platforms',
      /SERP_PROVIDER=dataforseo or serpapi/,
    );
    await expectInvalid(
      'job',
      job({ research_platforms: ['organic', 'chatgpt'] }),
      'research_platforms',
      /OPENAI_API_KEY/,
    );
  });

  it('several bad fields are all named', async () => {
    const rest = await postJob(t, a.key, { topic: '', client_id: 'nope', word_count_target: 5, intent: 'x' });
    expect(rest.status).toBe(400);
    const paths = (rest.body.error.details!.fields as { path: string }[]).map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['topic', 'client_id', 'word_count_target', 'intent']));
  });

  it('an unknown field: REST 400 invalid_input naming it; MCP rejects the unknown argument (JSON-RPC -32602) with the same body as data', async () => {
    const rest = await postJob(t, a.key, job({ colour: 'blue' }));
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({
      code: 'invalid_input',
      details: { fields: [{ path: 'colour', message: 'Unknown field.' }] },
    });
    const c = await mcpClient(t, a.key);
    try {
      const err = await c.client.callTool({ name: 'create_content_job', arguments: job({ colour: 'blue' }) }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(-32602);
      expect((err as McpError).data).toEqual(rest.body);
    } finally {
      await c.close();
    }
  });

  it('boundaries are accepted: word_count_target 100 and 10000, a language with a region, draft_body without page_contract', async () => {
    for (const extra of [
      { word_count_target: 100 },
      { word_count_target: 10_000 },
      { language: 'pt-BR' },
      { page_contract: undefined, draft_body: '# Mine\n\nMy page.' },
    ]) {
      const body = Object.fromEntries(Object.entries(job(extra)).filter(([, v]) => v !== undefined));
      const r = await postJob(t, a.key, body);
      expect(r.status, `${JSON.stringify(extra)}: ${r.text}`).toBe(201);
    }
  });
});

describe('400 invalid_input: POST /copywriter/autopilot', () => {
  it.each([
    ['missing page_contract (required for Autopilot)', { page_contract: undefined }, 'page_contract'],
    ['missing topic', { topic: undefined }, 'topic'],
    ['missing client_id', { client_id: undefined }, 'client_id'],
    ['context of 2001 characters', { context: 'x'.repeat(2_001) }, 'context'],
    ['intent not an enum value', { intent: 'sell' }, 'intent'],
    ['location_lat out of range', { location_lat: 91, location_lng: 0 }, 'location_lat'],
    ['allow_location_conflict not a boolean', { allow_location_conflict: 'yes' }, 'allow_location_conflict'],
    ['language not a supported code', { language: 'klingon' }, 'language'],
    [
      'research_platforms without a configured provider',
      { research_platforms: ['google_video_pack'] },
      'research_platforms',
    ],
  ])('%s', async (_label, extra, field) => {
    const body = Object.fromEntries(
      Object.entries(pilot(extra as Record<string, unknown>)).filter(([, v]) => v !== undefined),
    );
    await expectInvalid('autopilot', body, field);
  });

  it('fields of content jobs are unknown to Autopilot (REST 400 naming them)', async () => {
    const r = await postAutopilot(t, a.key, pilot({ mode: 'stepped', draft_body: '# Mine', project_mode: 'new' }));
    expect(r.status).toBe(400);
    expect((r.body.error.details!.fields as { path: string }[]).map((f) => f.path).sort()).toEqual([
      'draft_body',
      'mode',
      'project_mode',
    ]);
  });

  it('context of exactly 2000 characters is accepted', async () => {
    const r = await postAutopilot(t, a.key, pilot({ context: 'y'.repeat(2_000) }));
    expect(r.status, r.text).toBe(202);
  });
});

describe('403 plan_required / 402 subscription_required: an inactive organisation; reads keep working', () => {
  it('content creation and approval answer 403 plan_required, Autopilot 402 subscription_required; nothing is created; reads answer', async () => {
    const b = await tenant(t, 'pro');
    const existing = await createdJob(t, b.key, { topic: PLUMBING, client_id: b.clientId, page_contract: 'article' });
    const run1 = await startedAutopilot(t, b.key, { topic: PLUMBING, client_id: b.clientId, page_contract: 'article' });
    await t.db
      .updateTable('organisations')
      .set({ subscription_status: 'inactive' })
      .where('id', '=', b.orgId)
      .execute();
    const before = await footprint(t, b.orgId);

    const body = { topic: PLUMBING, client_id: b.clientId, page_contract: 'article' };
    expectSameError(
      await tool(t, b.key, 'create_content_job', body),
      await postJob(t, b.key, body, idem('sub')),
      403,
      'plan_required',
    );
    expectSameError(
      await tool(t, b.key, 'create_content_autopilot', body),
      await postAutopilot(t, b.key, body, idem('sub')),
      402,
      'subscription_required',
    );
    expectSameError(
      await tool(t, b.key, 'approve_content_brief', { job_id: existing.job_id }),
      await approve(t, b.key, existing.job_id),
      403,
      'plan_required',
    );
    const after = await footprint(t, b.orgId);
    expect([after.jobs, after.reservations, after.runs, after.keys]).toEqual([
      before.jobs,
      before.reservations,
      before.runs,
      before.keys,
    ]);

    expect((await getJob(t, b.key, existing.job_id)).status).toBe(200);
    expect((await getArtifacts(t, b.key, existing.job_id)).status).toBe(200);
    expect((await getAutopilot(t, b.key, run1.job_id)).status).toBe(200);
    // The list holds the content job and the Autopilot run.
    expect((await listJobs(t, b.key)).body.pagination.total).toBe(2);
    expect((await listJobs(t, b.key, { kind: 'content_job' })).body.pagination.total).toBe(1);
    expect((await tool(t, b.key, 'get_autopilot_status', { job_id: run1.job_id })).isError).toBeFalsy();
  });
});

describe('403 forbidden: scopes', () => {
  it('a key without copywriter:run cannot create, start or approve (details.required_scope); copywriter:read still reads', async () => {
    const existing = await createdJob(t, a.key, job({ mode: 'stepped' }));
    const reader = (await t.key(a.orgId, ['copywriter:read'])).apiKey;
    expectSameError(
      await tool(t, reader, 'create_content_job', job()),
      await postJob(t, reader, job()),
      403,
      'forbidden',
    );
    expectSameError(
      await tool(t, reader, 'create_content_autopilot', pilot()),
      await postAutopilot(t, reader, pilot()),
      403,
      'forbidden',
    );
    const rest = await approve(t, reader, existing.job_id);
    expectSameError(
      await tool(t, reader, 'approve_content_brief', { job_id: existing.job_id }),
      rest,
      403,
      'forbidden',
    );
    expect(rest.body.error.details).toEqual({ required_scope: 'copywriter:run' });
    expect((await getJob(t, reader, existing.job_id)).status).toBe(200);
    expect((await listJobs(t, reader)).status).toBe(200);
  });

  it('a key without copywriter:read (or :run) cannot read: detail, list, artifacts, Autopilot status', async () => {
    const existing = await createdJob(t, a.key, job());
    const other = (await t.key(a.orgId, ['optimize:run', 'reporter:read'])).apiKey;
    const cases: Array<[Promise<{ status: number; body: unknown; text: string }>, string, Record<string, unknown>]> = [
      [getJob(t, other, existing.job_id), 'get_content_job', { job_id: existing.job_id }],
      [getArtifacts(t, other, existing.job_id), 'get_content_artifacts', { job_id: existing.job_id }],
      [getAutopilot(t, other, existing.job_id), 'get_autopilot_status', { job_id: existing.job_id }],
      [listJobs(t, other), 'list_content_jobs', {}],
    ];
    for (const [restP, name, args] of cases) {
      const rest = (await restP) as Awaited<ReturnType<typeof getJob>>;
      expectSameError(await tool(t, other, name, args), rest, 403, 'forbidden');
      expect(rest.body.error.details).toEqual({ required_scope: 'copywriter:read' });
    }
    expectSameError(
      await tool(t, other, 'create_content_job', job()),
      await postJob(t, other, job()),
      403,
      'forbidden',
    );
  });
});

describe('404 not_found: foreign and missing ids', () => {
  let b: Tenant;
  let foreignJob: string;
  let foreignPilot: string;
  beforeAll(async () => {
    b = await tenant(t);
    foreignJob = (
      await createdJob(t, b.key, { topic: PLUMBING, client_id: b.clientId, page_contract: 'article', mode: 'stepped' })
    ).job_id;
    foreignPilot = (
      await startedAutopilot(t, b.key, { topic: PLUMBING, client_id: b.clientId, page_contract: 'article' })
    ).job_id;
  });

  it("another organisation's client_id: 404, the same body as a missing client; nothing created, reserved or stored for the key", async () => {
    const before = await footprint(t, a.orgId);
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [route, tool_, post] of [
      ['job', 'create_content_job', postJob],
      ['autopilot', 'create_content_autopilot', postAutopilot],
    ] as const) {
      const base = route === 'job' ? job() : pilot();
      const foreign = await post(t, a.key, { ...base, client_id: b.clientId }, idem('foreign'));
      expectSameError(await tool(t, a.key, tool_, { ...base, client_id: b.clientId }), foreign, 404, 'not_found');
      const absent = await post(t, a.key, { ...base, client_id: missing }, idem('missing'));
      expect(absent.body).toEqual(foreign.body);
    }
    const after = await footprint(t, a.orgId);
    expect([after.jobs, after.reservations, after.runs, after.keys]).toEqual([
      before.jobs,
      before.reservations,
      before.runs,
      before.keys,
    ]);
    const bf = await footprint(t, b.orgId);
    expect([bf.jobs, bf.reservations]).toEqual([2, 2]);
  });

  it("another organisation's job and Autopilot ids on every read route (and approve): 404, the same body as a missing id (REST and MCP)", async () => {
    const missing = '00000000-0000-4000-8000-000000000001';
    const routes: Array<[string, (id: string) => Promise<Awaited<ReturnType<typeof getJob>>>, string]> = [
      ['get_content_job', (id) => getJob(t, a.key, id), 'job_id'],
      ['get_content_artifacts', (id) => getArtifacts(t, a.key, id) as never, 'job_id'],
      ['get_autopilot_status', (id) => getAutopilot(t, a.key, id) as never, 'job_id'],
      ['approve_content_brief', (id) => approve(t, a.key, id), 'job_id'],
    ];
    for (const [name, rest, field] of routes) {
      for (const id of name === 'get_autopilot_status'
        ? [foreignPilot]
        : [foreignJob, foreignPilot].slice(0, name === 'approve_content_brief' ? 1 : 2)) {
        const foreign = await rest(id);
        expectSameError(await tool(t, a.key, name, { [field]: id }), foreign, 404, 'not_found');
        const absent = await rest(missing);
        expect(absent.status).toBe(404);
        expect(absent.body, name).toEqual(foreign.body);
      }
    }
    // Listing by another organisation's client answers as for a missing client.
    const foreignList = await listJobs(t, a.key, { client_id: b.clientId });
    expectSameError(
      await tool(t, a.key, 'list_content_jobs', { client_id: b.clientId }),
      foreignList,
      404,
      'not_found',
    );
    expect((await listJobs(t, a.key, { client_id: missing })).body).toEqual(foreignList.body);
    // The foreign job did not move.
    expect((await getJob(t, b.key, foreignJob)).body.status).toBe('queued');
  });
});

describe('409 location_conflict (Autopilot): compared by normalised name, or by distance with coordinates', () => {
  it('a different market: 409 with details.requested and details.saved, before any paid work (REST and MCP)', async () => {
    const before = await footprint(t, a.orgId);
    const body = pilot({ location: 'Denver, CO' });
    const rest = await postAutopilot(t, a.key, body, idem('loc'));
    expectSameError(await tool(t, a.key, 'create_content_autopilot', body), rest, 409, 'location_conflict');
    expect(rest.body.error.details).toEqual({
      requested: { location: 'Denver, CO', lat: null, lng: null },
      saved: { service_area: 'Austin, TX', lat: 30.2672, lng: -97.7431 },
    });
    const after = await footprint(t, a.orgId);
    expect([after.jobs, after.reservations, after.runs, after.keys]).toEqual([
      before.jobs,
      before.reservations,
      before.runs,
      before.keys,
    ]);
  });

  it('allow_location_conflict: true confirms the different market: 202', async () => {
    const r = await postAutopilot(t, a.key, pilot({ location: 'Denver, CO', allow_location_conflict: true }));
    expect(r.status, r.text).toBe(202);
  });

  it('the same place written differently is not a conflict; coordinates within 50 km are not, further away they are', async () => {
    for (const location of ['Austin, Texas', 'austin, tx, USA', 'Austin']) {
      const r = await postAutopilot(t, a.key, pilot({ location }));
      expect(r.status, `${location}: ${r.text}`).toBe(202);
    }
    // Round Rock is about 27 km from the saved Austin coordinates: same market whatever the name.
    const near = await postAutopilot(
      t,
      a.key,
      pilot({ location: 'Round Rock, TX', location_lat: 30.5083, location_lng: -97.6789 }),
    );
    expect(near.status, near.text).toBe(202);
    // San Antonio is about 120 km away.
    const far = await postAutopilot(
      t,
      a.key,
      pilot({ location: 'Austin, TX', location_lat: 29.4241, location_lng: -98.4936 }),
    );
    expect(far.status).toBe(409);
    expect(far.body.error.details).toMatchObject({
      requested: { location: 'Austin, TX', lat: 29.4241, lng: -98.4936 },
    });
  });

  it("content jobs take any location (the check is Autopilot's)", async () => {
    expect((await postJob(t, a.key, job({ location: 'Denver, CO' }))).status).toBe(201);
  });
});

describe('503 service_unavailable: the content queue past AGENT_API_QUEUE_MAX_DEPTH', () => {
  it('with depth 1: the second job (and an Autopilot start) answer 503 with Retry-After; nothing created; accepted again once the queue drains', async () => {
    const q = await startContentApp({ env: { AGENT_API_QUEUE_MAX_DEPTH: '1' } });
    try {
      const c = await tenant(q);
      const first = await postJob(q, c.key, { topic: NO_MATCH, client_id: c.clientId, page_contract: 'article' });
      expect(first.status).toBe(201);
      const before = await footprint(q, c.orgId);
      const body = { topic: PLUMBING, client_id: c.clientId, page_contract: 'article' };
      const rest = await postJob(q, c.key, body, idem('full'));
      expectSameError(await tool(q, c.key, 'create_content_job', body), rest, 503, 'service_unavailable');
      expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
      const pilotRest = await postAutopilot(q, c.key, body, idem('full'));
      expectSameError(await tool(q, c.key, 'create_content_autopilot', body), pilotRest, 503, 'service_unavailable');
      expect(Number(pilotRest.headers.get('retry-after'))).toBeGreaterThan(0);
      const after = await footprint(q, c.orgId);
      expect([after.jobs, after.reservations, after.runs, after.keys]).toEqual([
        before.jobs,
        before.reservations,
        before.runs,
        before.keys,
      ]);
      // The queued job runs (and fails: nothing matches); the queue has room again.
      await run(q);
      expect(
        (await postJob(q, c.key, { topic: NO_MATCH, client_id: c.clientId, page_contract: 'article' })).status,
      ).toBe(201);
    } finally {
      await q.close();
    }
  });
});

describe('429 usage_limit_reached: the starter pool (100 units per 24 h; a content job reserves 10, Autopilot 25)', () => {
  it('ten jobs fill the window; the eleventh and an Autopilot start answer 429 naming the window and its recovery; nothing reserved', async () => {
    const s = await tenant(t, 'starter');
    for (let i = 0; i < 10; i++)
      expect(
        (await postJob(t, s.key, { topic: PLUMBING, client_id: s.clientId, page_contract: 'article' })).status,
      ).toBe(201);
    const before = await footprint(t, s.orgId);
    const body = { topic: PLUMBING, client_id: s.clientId, page_contract: 'article' };
    const rest = await postJob(t, s.key, body, idem('full'));
    expectSameError(await tool(t, s.key, 'create_content_job', body), rest, 429, 'usage_limit_reached');
    expect(rest.body.error.details).toMatchObject({
      window: '24h',
      limit: 100,
      requested: 10,
      recovers_at: expect.any(String),
    });
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    const pilotRest = await postAutopilot(t, s.key, body, idem('full'));
    expectSameError(await tool(t, s.key, 'create_content_autopilot', body), pilotRest, 429, 'usage_limit_reached');
    expect(pilotRest.body.error.details).toMatchObject({ window: '24h', requested: 25 });
    const after = await footprint(t, s.orgId);
    expect([after.jobs, after.reservations, after.runs, after.keys]).toEqual([
      before.jobs,
      before.reservations,
      before.runs,
      before.keys,
    ]);
    expect(structured(await tool(t, s.key, 'get_usage', {}))).toMatchObject({ windows: { '24h': { limit: 100 } } });
  });
});
