import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import {
  approve,
  createdJob,
  expectSameError,
  getArtifacts,
  getJob,
  ledgerOf,
  mcpClient,
  settle,
  startContentApp,
  tenant,
  tool,
  type Tenant,
} from './helpers/harness.ts';

/**
 * approve_content_brief with a body: an edited brief (outline, FAQs, SEO metadata, custom instructions) replaces the
 * written one before drafting, and the draft follows the edited outline heading for heading; or `draft_body`, a draft
 * the caller wrote, completes the job with no writer, scored against the job's research and fact-checked against it.
 */
let t: TestApp;
let a: Tenant;

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t, 'agency', { name: 'Hill Country Plumbing', domain: 'hillcountryplumbing.example' });
});
afterAll(async () => {
  await t?.close();
});

const TOPIC = 'water heater repair';

async function steppedAtBrief(): Promise<string> {
  const job = await createdJob(t, a.key, {
    topic: TOPIC,
    client_id: a.clientId,
    page_contract: 'article',
    mode: 'stepped',
    word_count_target: 600,
  });
  const status = await settle(t, job.job_id);
  expect(status, (await getJob(t, a.key, job.job_id)).body.error ?? '').toBe('brief_ready');
  return job.job_id;
}

const h2s = (markdown: string) =>
  [...markdown.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim()).filter((h) => !/^sources$/i.test(h));

describe('approve with an edited brief', () => {
  const outline = [
    { heading: 'Signs a water heater needs repair', points: ['no hot water', 'leaks', 'noises'] },
    { heading: 'Repair or replace a water heater' },
    { heading: 'Water heater repair costs', level: 2 },
  ];

  it('the draft H2s equal the edited headings; the artifacts show the edited brief', async () => {
    const id = await steppedAtBrief();
    const r = await approve(t, a.key, id, {
      body: {
        outline,
        faqs: [{ question: 'How long does a water heater last?', answer: 'Most last 8 to 12 years.' }],
        seo_metadata: { title: 'Water heater repair in Austin', slug: 'water-heater-repair' },
        custom_instructions: 'Keep it short.',
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ status: 'generating_draft', custom_instructions: 'Keep it short.' });
    // The edited brief is what the artifacts show from the moment of approval.
    const brief = (await getArtifacts(t, a.key, id)).body;
    expect(brief.outline!.map((o) => o.heading)).toEqual(outline.map((o) => o.heading));
    expect(brief.outline![0]!.points).toEqual(['no hot water', 'leaks', 'noises']);
    expect(brief.faqs).toEqual([
      { question: 'How long does a water heater last?', answer: 'Most last 8 to 12 years.', sourceUrl: null },
    ]);
    expect(brief.seo_metadata).toMatchObject({ title: 'Water heater repair in Austin', slug: 'water-heater-repair' });
    expect(await settle(t, id)).toBe('completed');
    const art = (await getArtifacts(t, a.key, id)).body;
    expect(h2s(art.draft!.content)).toEqual(outline.map((o) => o.heading));
  });

  it('MCP approve takes the same edits', async () => {
    const id = await steppedAtBrief();
    const result = await tool(t, a.key, 'approve_content_brief', { job_id: id, outline: outline.slice(0, 2) });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toMatchObject({ job_id: id, status: 'generating_draft' });
    expect(await settle(t, id)).toBe('completed');
    expect(h2s((await getArtifacts(t, a.key, id)).body.draft!.content)).toEqual(
      outline.slice(0, 2).map((o) => o.heading),
    );
  });

  it('an unknown field: 400 invalid_input naming it on REST; MCP refuses the call naming it', async () => {
    const id = await steppedAtBrief();
    const rest = await approve(t, a.key, id, { body: { outline_v2: [] } });
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('invalid_input');
    expect(JSON.stringify(rest.body.error)).toContain('outline_v2');
    await expect(tool(t, a.key, 'approve_content_brief', { job_id: id, outline_v2: [] })).rejects.toThrow(/outline_v2/);
    expect((await getJob(t, a.key, id)).body.status).toBe('brief_ready');
  });

  it.each([
    ['an unknown outline field', { outline: [{ heading: 'A', text: 'x' }] }, 'outline'],
    ['an empty outline', { outline: [] }, 'outline'],
    ['a level other than 2 or 3', { outline: [{ heading: 'A', level: 1 }] }, 'outline'],
    ['a slug with spaces', { seo_metadata: { slug: 'water heater' } }, 'seo_metadata'],
    ['a FAQ without a question', { faqs: [{ answer: 'x' }] }, 'faqs'],
  ])(
    '%s: 400 invalid_input naming the field on REST and MCP; the job stays at brief_ready',
    async (_l, body, field) => {
      const id = await steppedAtBrief();
      const rest = await approve(t, a.key, id, { body });
      const mcp = await tool(t, a.key, 'approve_content_brief', { job_id: id, ...body });
      expectSameError(mcp, rest, 400, 'invalid_input');
      expect(JSON.stringify(rest.body.error)).toContain(field);
      expect((await getJob(t, a.key, id)).body.status).toBe('brief_ready');
    },
  );

  it('an edit to a job not at brief_ready stays 409 invalid_state', async () => {
    const id = await steppedAtBrief();
    expect((await approve(t, a.key, id)).status).toBe(200);
    const again = await approve(t, a.key, id, { body: { outline } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
  });
});

describe('approve with draft_body: the assistant writes, the service checks', () => {
  const body = [
    '# Water heater repair: what to check first',
    '',
    'A water heater that stops making hot water usually has a failed heating element, a tripped thermostat or a pilot light that went out.',
    '',
    '## Signs of trouble',
    '',
    '- Rusty or cloudy hot water.',
    '- Rumbling or popping noises from sediment at the bottom of the tank.',
    '- Water pooling around the base of the tank.',
    '',
    '## Costs',
    '',
    'Every water heater repair in 2023 cost exactly $5,555 in Austin.',
    '',
    'Call Hill Country Plumbing to book a repair visit.',
    '',
  ].join('\n');

  it('REST: completed with the body as the draft, an Optimize score with recommendations, claims checked, charged once', async () => {
    const id = await steppedAtBrief();
    const r = await approve(t, a.key, id, { body: { draft_body: body } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.has_draft_body).toBe(true);
    expect(await settle(t, id)).toBe('completed');
    const art = (await getArtifacts(t, a.key, id)).body;
    expect(art.writer).toBe('supplied');
    expect(art.draft!.content).toBe(body);
    const score = art.score as unknown as { rankabilityScore: number; recommendations: unknown[] };
    expect(score.rankabilityScore).toEqual(expect.any(Number));
    expect(score.recommendations.length).toBeGreaterThan(0);
    const review = art.review!;
    expect(review.claims_checked).toBeGreaterThan(0);
    expect(review.claims_removed).toBe(0);
    // The invented cost is flagged, not removed; the client's own call to action is not a claim.
    expect(review.flagged_claims).toContain('Every water heater repair in 2023 cost exactly $5,555 in Austin.');
    expect(JSON.stringify(review)).not.toContain('Call Hill Country Plumbing');
    expect(review.claims_checked).toBe(
      review.claims_supported + review.claims_single_source + review.claims_removed + review.claims_flagged,
    );
    expect(await ledgerOf(t, id)).toEqual([{ state: 'charged', units: 10 }]);
  });

  it('MCP, end to end: create a stepped job, read the brief, approve with a draft, read the score and flagged claims', async () => {
    const c = await mcpClient(t, a.key);
    try {
      const created = structured<{ job_id: string }>(
        await c.client.callTool({
          name: 'create_content_job',
          arguments: { topic: TOPIC, client_id: a.clientId, page_contract: 'article', mode: 'stepped' },
        }),
      );
      expect(await settle(t, created.job_id)).toBe('brief_ready');
      const brief = structured<{ outline: { heading: string }[] }>(
        await c.client.callTool({
          name: 'get_content_artifacts',
          arguments: { job_id: created.job_id, include: ['all'] },
        }),
      );
      expect(brief.outline.length).toBeGreaterThan(0);
      const written = `# ${TOPIC}\n\n${brief.outline.map((o) => `## ${o.heading}\n\nA water heater with no hot water often has a failed heating element. Every tank sold in 2024 lasts 40 years.\n`).join('\n')}`;
      const approved = await c.client.callTool({
        name: 'approve_content_brief',
        arguments: { job_id: created.job_id, draft_body: written },
      });
      expect(approved.isError).toBeFalsy();
      expect(await settle(t, created.job_id)).toBe('completed');
      const art = structured<{
        draft: { content: string };
        score: { rankabilityScore: number; recommendations: unknown[] };
        review: { claims_checked: number; flagged_claims: string[] };
      }>(
        await c.client.callTool({
          name: 'get_content_artifacts',
          arguments: { job_id: created.job_id, include: ['all'] },
        }),
      );
      expect(art.draft.content).toBe(written);
      expect(art.score.rankabilityScore).toEqual(expect.any(Number));
      // Each section repeats an invented claim: nothing supports it, so it is flagged, and the draft is unchanged.
      expect(art.review.claims_checked).toBeGreaterThan(0);
      expect(art.review.flagged_claims).toContain('Every tank sold in 2024 lasts 40 years.');
      expect(await ledgerOf(t, created.job_id)).toEqual([{ state: 'charged', units: 10 }]);
    } finally {
      await c.close();
    }
  });
});
