import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structured } from '../helpers/mcp.ts';
import {
  call,
  drain,
  getOptimization,
  mcpClient,
  pause,
  resume,
  settle,
  started,
  startWorld,
  type ErrorBody,
  type Optimization,
  type OptimizationResult,
  type World,
  expectSameError,
  tool,
} from './helpers/harness.ts';
import { KEYWORD } from './helpers/web.ts';
import { partialSpec } from './helpers/pages.ts';
import { SCORE_FULL_FIELDS } from './helpers/draft.ts';

/**
 * score_content (POST /optimizations/:optimization_id/score, MCP score_content): draft content scored against a
 * complete run's saved competitors with the run's formula, synchronously, with no search, fetch or charge.
 */

type Scored = Pick<
  OptimizationResult,
  | 'rankabilityScore'
  | 'categoryScores'
  | 'scoreDetails'
  | 'recommendations'
  | 'entities'
  | 'sourceWordCount'
  | 'competitorCount'
  | 'scoringVersion'
> & { optimization_id: string };

let w: World;
let orgId: string;
let key: string;
/** A complete run of the partial page (three of the ranking pages' sections missing). */
let run: Optimization;
/** The partial page's HTML as the web serves it. */
let html: string;

beforeAll(async () => {
  w = await startWorld();
  ({ orgId, key } = await w.t.tenant('agency'));
  const o = await started(w.t, key, { url: w.web.url('/target/partial'), keyword: KEYWORD });
  await settle(w.t, o.optimization_id);
  run = (await getOptimization(w.t, key, o.optimization_id, { view: 'full' })).body;
  expect(run.status).toBe('complete');
  html = await (await fetch(w.web.url('/target/partial'))).text();
}, 60_000);
afterAll(async () => {
  await w?.close();
});

/** The whole answer (view=full): these tests read every check's evidence; score-summary.test.ts has the default. */
function score(body: Record<string, unknown>, id = run.optimization_id, k = key) {
  return call<Scored & ErrorBody>(w.t, 'POST', `/optimizations/${id}/score`, {
    key: k,
    body: { view: 'full', ...body },
  });
}

const detail = (s: Scored, id: string) => s.scoreDetails.find((d) => d.id === id)!;

describe('scoring drafts', () => {
  it("scores the page's own HTML within 0.5 of the run's score, the same over REST and MCP", async () => {
    const rest = await score({ content: html, format: 'html' });
    expect(rest.status).toBe(200);
    expect(Object.keys(rest.body).sort()).toEqual(SCORE_FULL_FIELDS);
    const r = run.result!;
    expect(rest.body).toMatchObject({
      optimization_id: run.optimization_id,
      competitorCount: r.competitorCount,
      scoringVersion: r.scoringVersion,
      sourceWordCount: r.sourceWordCount,
    });
    expect(Math.abs(rest.body.rankabilityScore - r.rankabilityScore)).toBeLessThanOrEqual(0.5);
    // The same formula against the same saved competitors: the same checks, advice and term rows (model.ts).
    expect(rest.body.scoreDetails).toEqual(r.scoreDetails);
    expect(rest.body.recommendations).toEqual(r.recommendations);
    expect(rest.body.entities).toEqual(r.entities);
    const mcp = await tool(w.t, key, 'score_content', {
      optimization_id: run.optimization_id,
      content: html,
      format: 'html',
      view: 'full',
    });
    expect(mcp.isError).toBeFalsy();
    expect(structured(mcp)).toEqual(rest.body);
  });

  it('the score rises when a section using the missing terms is added, and falls when a section is removed', async () => {
    const base = (await score({ content: html, format: 'html' })).body;
    const missing = run
      .result!.recommendations.filter((x) => x.kind === 'add_term')
      .map((x) => x.term!)
      .slice(0, 6);
    expect(missing.length).toBeGreaterThan(0);
    const section =
      `<h2>Before you call: ${missing.slice(0, 2).join(' and ')}</h2>` +
      `<p>${missing.map((t) => `Ask about ${t} before the work starts.`).join(' ')}</p>`;
    expect(html).toContain('</article>');
    const added = (await score({ content: html.replace('</article>', `${section}\n</article>`), format: 'html' })).body;
    expect(added.rankabilityScore).toBeGreaterThan(base.rankabilityScore);
    const stillMissing = added.recommendations.filter((x) => x.kind === 'add_term').map((x) => x.term);
    for (const t of missing) expect(stillMissing, t).not.toContain(t);

    const repairs = /<h2>Common emergency plumbing repairs<\/h2>[\s\S]*?(?=<h2>)/;
    expect(html).toMatch(repairs);
    const removed = (await score({ content: html.replace(repairs, ''), format: 'html' })).body;
    expect(removed.rankabilityScore).toBeLessThan(base.rankabilityScore);
  });

  it('scores markdown (headings read as headings) and plain text; both score above 0', async () => {
    const spec = partialSpec(w.web.origin);
    const markdown = [
      `# ${spec.h1}`,
      ...spec.intro,
      ...spec.sections.flatMap((s) => [
        `## ${s.heading}`,
        ...s.paragraphs,
        ...(s.list ? [s.list.map((i) => `- ${i}`).join('\n')] : []),
      ]),
    ].join('\n\n');
    const md = await score({
      content: markdown,
      format: 'markdown',
      title: spec.title,
      meta_description: spec.description,
    });
    expect(md.status).toBe(200);
    expect(md.body.rankabilityScore).toBeGreaterThan(0);
    expect(md.body.sourceWordCount).toBeGreaterThan(200);
    expect(detail(md.body, 'headings.h1').earned).toBe(detail(md.body, 'headings.h1').possible);
    expect(detail(md.body, 'headings.h1_keyword').evidence.h1).toBe(spec.h1);
    expect(detail(md.body, 'headings.sections').evidence.subheadings).toBe(spec.sections.length);
    expect(detail(md.body, 'structure.lists').evidence.lists).toBeGreaterThan(0);

    const plain = [spec.h1, ...spec.intro, ...spec.sections.flatMap((s) => [s.heading, ...s.paragraphs])].join('\n\n');
    const text = await score({ content: plain, format: 'text' });
    expect(text.status).toBe(200);
    expect(text.body.rankabilityScore).toBeGreaterThan(0);
    expect(text.body.sourceWordCount).toBeGreaterThan(200);
    // Plain text has no headings to read; markdown's structure scores higher.
    expect(detail(text.body, 'headings.sections').evidence.subheadings).toBe(0);
    expect(md.body.rankabilityScore).toBeGreaterThan(text.body.rankabilityScore);
  });

  it("title and meta_description replace the page's own in the metadata checks", async () => {
    const own = (await score({ content: html, format: 'html' })).body;
    for (const id of ['metadata.title_keyword', 'metadata.title_length', 'metadata.description_length'])
      expect(detail(own, id).earned, id).toBe(detail(own, id).possible);

    const overridden = (await score({ content: html, format: 'html', title: 'Plumbing', meta_description: 'Call us.' }))
      .body;
    expect(detail(overridden, 'metadata.title_keyword')).toMatchObject({ earned: 0, evidence: { title: 'Plumbing' } });
    expect(detail(overridden, 'metadata.title_length').earned).toBe(0);
    expect(detail(overridden, 'metadata.description')).toMatchObject({ evidence: { description: 'Call us.' } });
    expect(detail(overridden, 'metadata.description_length').earned).toBe(0);
    expect(detail(overridden, 'metadata.description_keyword').earned).toBe(0);
    expect(overridden.rankabilityScore).toBeLessThan(own.rankabilityScore);

    // Markdown has no head of its own: without a title the title checks earn nothing, with one they earn it all.
    const bare = (await score({ content: `# ${KEYWORD}\n\nCall an emergency plumber.`, format: 'markdown' })).body;
    expect(detail(bare, 'metadata.title').earned).toBe(0);
    const titled = (
      await score({
        content: `# ${KEYWORD}\n\nCall an emergency plumber.`,
        format: 'markdown',
        title: 'Emergency Plumber: What to Do',
        meta_description: 'What to do in a plumbing emergency and how to choose an emergency plumber you can trust.',
      })
    ).body;
    for (const id of [
      'metadata.title',
      'metadata.title_keyword',
      'metadata.description',
      'metadata.description_keyword',
    ])
      expect(detail(titled, id).earned, id).toBe(detail(titled, id).possible);
  });
});

describe('errors', () => {
  it("answers 404 not_found for another organisation's optimization, with the same body as an unknown id (REST and MCP)", async () => {
    const other = await w.t.tenant('agency');
    const theirs = await score({ content: html, format: 'html' }, run.optimization_id, other.key);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('not_found');
    const unknown = await score({ content: html, format: 'html' }, 'opt_01ARZ3NDEKTSV4RRFFQ69G5FAV', other.key);
    expect(unknown.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    expectSameError(
      await tool(w.t, other.key, 'score_content', {
        optimization_id: run.optimization_id,
        content: 'x',
        format: 'text',
      }),
      theirs,
    );
  });

  it('answers 409 invalid_state for a queued (REST and MCP), a running and a failed run', async () => {
    await pause(w.t);
    try {
      const queued = await started(w.t, key, { url: w.web.url('/target/thorough'), keyword: KEYWORD });
      const r = await score({ content: html, format: 'html' }, queued.optimization_id);
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'invalid_state', details: { status: 'queued' } });
      expectSameError(
        await tool(w.t, key, 'score_content', {
          optimization_id: queued.optimization_id,
          content: 'x',
          format: 'text',
        }),
        r,
      );
    } finally {
      await resume(w.t);
    }
    await drain(w.t);

    // Running: the runner holds the run in its fetch of the page.
    w.web.hold('/target/thin');
    const running = await started(w.t, key, { url: w.web.url('/target/thin'), keyword: KEYWORD });
    const runner = drain(w.t);
    try {
      await w.web.waitFor('/target/thin');
      const r = await score({ content: html, format: 'html' }, running.optimization_id);
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'invalid_state', details: { status: 'running' } });
    } finally {
      w.web.release();
      await runner;
    }

    const failed = await started(w.t, key, { url: w.web.url('/target/missing'), keyword: KEYWORD });
    await settle(w.t, failed.optimization_id);
    const f = await score({ content: html, format: 'html' }, failed.optimization_id);
    expect(f.status).toBe(409);
    expect(f.body.error).toMatchObject({ code: 'invalid_state', details: { status: 'failed' } });
  });

  it('answers 400 validation_error naming format for an unknown format and content for empty content (REST and MCP)', async () => {
    for (const [body, field] of [
      [{ content: html, format: 'pdf' }, 'format'],
      [{ content: '', format: 'html' }, 'content'],
      [{ content: '   ', format: 'text' }, 'content'],
      [{ format: 'html' }, 'content'],
    ] as const) {
      const r = await score(body);
      expect(r.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      const fields = r.body.error.details!.fields as { path: string }[];
      expect(fields.map((f) => f.path)).toEqual([field]);
      expectSameError(await tool(w.t, key, 'score_content', { optimization_id: run.optimization_id, ...body }), r);
    }
  });

  it('answers 413 payload_too_large for a REST body over 1 MiB', async () => {
    const r = await score({ content: `<p>${'pipe '.repeat(220_000)}</p>`, format: 'html' });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });

  it('answers 403 forbidden naming optimize:run for a key with optimize:read only (REST and MCP)', async () => {
    const reader = (await w.t.key(orgId, ['optimize:read'])).apiKey;
    // The reader can see the run, but not score against it.
    expect((await getOptimization(w.t, reader, run.optimization_id)).status).toBe(200);
    const r = await score({ content: html, format: 'html' }, run.optimization_id, reader);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'optimize:run' } });
    expectSameError(
      await tool(w.t, reader, 'score_content', { optimization_id: run.optimization_id, content: 'x', format: 'text' }),
      r,
    );
  });
});

describe('side effects and discovery', () => {
  it('changes no usage and makes no search or fetch', async () => {
    const usage = async () => (await call(w.t, 'GET', '/usage', { key })).body;
    const before = await usage();
    const searches = w.serp.fake.requests.length;
    const fetches = w.web.requests.length;
    const rows = await w.t.db.selectFrom('usage_ledger').select('id').where('org_id', '=', orgId).execute();
    for (const format of ['html', 'markdown', 'text'] as const)
      expect((await score({ content: html, format })).status).toBe(200);
    const mcp = await tool(w.t, key, 'score_content', {
      optimization_id: run.optimization_id,
      content: html,
      format: 'html',
    });
    expect(mcp.isError).toBeFalsy();
    expect(await usage()).toEqual(before);
    expect(w.serp.fake.requests.length).toBe(searches);
    expect(w.web.requests.length).toBe(fetches);
    expect(await w.t.db.selectFrom('usage_ledger').select('id').where('org_id', '=', orgId).execute()).toEqual(rows);
  });

  it('is listed over MCP as read-only, with a description of the start_optimization ... score_content loop', async () => {
    const c = await mcpClient(w.t, key);
    try {
      const tools = (await c.client.listTools()).tools;
      const t = tools.find((x) => x.name === 'score_content');
      expect(t).toBeDefined();
      expect(t!.annotations?.readOnlyHint).toBe(true);
      expect(t!.description).toMatch(/start_optimization[\s\S]*score_content/);
      expect(Object.keys((t!.inputSchema as { properties: object }).properties).sort()).toEqual([
        'content',
        'format',
        'meta_description',
        'optimization_id',
        'title',
        'view',
      ]);
    } finally {
      await c.close();
    }
  });
});
