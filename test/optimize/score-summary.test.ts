import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import { call, idem, run, startContentApp, tenant, tool, type Tenant } from '../content/helpers/harness.ts';
import { RAPIDFLOW_EMERGENCY } from '../content/helpers/harness.ts';
import {
  ESPRESSO_DESCRIPTION,
  ESPRESSO_KEYWORD,
  ESPRESSO_PAGE,
  ESPRESSO_TITLE,
  espressoArticle,
  SCORE_FULL_FIELDS,
} from './helpers/draft.ts';

/**
 * score_content's default answer, sized for an assistant's rewrite-and-score loop: the score, the category scores,
 * the top 10 recommendations and every other field of the whole answer in short form, plus `delta`, what changed
 * since the previous score of the same optimization; `view=full` is the whole answer. Real optimizations of the
 * offline sample archive, scored over REST and a real MCP client.
 */

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MAX_DEFAULT_BYTES = 6 * 1024;

let t: TestApp;
let a: Tenant;
/** An optimization of the espresso page, and one of the plumbing page. */
let espresso: string;
let plumbing: string;

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');
const draft = espressoArticle(3_000);
const body = { content: draft, format: 'markdown', title: ESPRESSO_TITLE, meta_description: ESPRESSO_DESCRIPTION };

async function rest(id: string, extra: Record<string, unknown> = {}): Promise<Any> {
  const r = await call<Any>(t, 'POST', `/optimizations/${id}/score`, { key: a.key, body: { ...body, ...extra } });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

async function mcp(id: string, extra: Record<string, unknown> = {}) {
  const result = await tool(t, a.key, 'score_content', { optimization_id: id, ...body, ...extra });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  return { result, body: structured<Any>(result) };
}

async function optimize(url: string, keyword: string): Promise<string> {
  const r = await call<Any>(t, 'POST', '/optimize', {
    key: a.key,
    body: { url, keyword },
    headers: { 'idempotency-key': idem('opt') },
  });
  expect(r.status, r.text).toBe(202);
  return r.body.optimization_id as string;
}

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t);
  espresso = await optimize(ESPRESSO_PAGE, ESPRESSO_KEYWORD);
  plumbing = await optimize(RAPIDFLOW_EMERGENCY, 'emergency plumber austin');
  await run(t);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('the default answer', () => {
  it('a 3,000-word draft: at most 6 KB on REST and as the whole MCP result; view=full is the whole answer', async () => {
    expect(draft.split(/\s+/).length).toBeGreaterThanOrEqual(3_000);
    const full = await rest(espresso, { view: 'full' });
    expect(Object.keys(full).sort()).toEqual(SCORE_FULL_FIELDS);
    expect(full.scoreDetails[0]).toHaveProperty('evidence');
    expect(full.recommendations.length).toBeGreaterThan(10);

    const summary = await rest(espresso);
    const m = await mcp(espresso);
    console.info(
      `score_content, 3,000-word draft: default ${bytes(summary)} bytes (MCP result ${bytes(m.result)}); view=full ${bytes(full)} bytes`,
    );
    expect(bytes(summary)).toBeLessThanOrEqual(MAX_DEFAULT_BYTES);
    expect(bytes(m.result)).toBeLessThanOrEqual(MAX_DEFAULT_BYTES);
    expect(bytes(full)).toBeGreaterThan(2 * MAX_DEFAULT_BYTES);

    // The same draft scores the same: the figures are the whole answer's, the bulky fields in short form.
    expect(summary).toMatchObject({
      optimization_id: espresso,
      rankabilityScore: full.rankabilityScore,
      categoryScores: full.categoryScores,
      recommendations: full.recommendations.slice(0, 10),
      recommendationCount: full.recommendations.length,
      sourceWordCount: full.sourceWordCount,
      competitorCount: full.competitorCount,
      scoringVersion: full.scoringVersion,
    });
    expect(summary.scoreDetails).toEqual(
      full.scoreDetails.map((d: Any) => ({ id: d.id, earned: d.earned, possible: d.possible })),
    );
    const important = [...full.entities].sort((x: Any, y: Any) => y.importance - x.importance).slice(0, 15);
    expect(summary.entities).toEqual(important.map((e: Any) => ({ term: e.term, status: e.status })));
    // MCP answers the REST body (a later score of the same run: its delta compares with the REST one).
    const { delta: restDelta, ...restRest } = summary;
    const { delta: mcpDelta, ...mcpRest } = m.body;
    expect(mcpRest).toEqual(restRest);
    expect(restDelta.scoreChange).toBe(0);
    expect(mcpDelta).toMatchObject({ previousScore: summary.rankabilityScore, scoreChange: 0, resolved: [], new: [] });
  });
});

describe('delta', () => {
  it('is absent on the first score of an optimization and present on the next, saying what changed', async () => {
    const thin = espressoArticle(300);
    const first = await rest(plumbing, { content: thin, title: undefined, meta_description: undefined });
    expect(first).not.toHaveProperty('delta');

    // A score of another optimization between the two is not this run's previous score.
    await rest(espresso, { content: thin });
    t.clock.advance(90_000);
    const firstAt = t.clock.now() - 90_000;

    const rewritten = `# Emergency plumber in Austin\n\n${thin}\n\n## Burst pipe repair\n\nCall an emergency plumber in Austin for a burst pipe, a water heater leak or a sewer backup.`;
    const second = (await mcp(plumbing, { content: rewritten, title: 'Emergency plumber in Austin, TX' })).body;
    const delta = second.delta as Any;
    expect(delta).toBeDefined();
    expect(delta.since).toBe(new Date(firstAt).toISOString());
    expect(delta.previousScore).toBe(first.rankabilityScore);
    expect(delta.scoreChange).toBe(Math.round((second.rankabilityScore - first.rankabilityScore) * 10) / 10);
    expect(delta.scoreChange).not.toBe(0);
    for (const [category, change] of Object.entries(delta.categoryChanges as Record<string, number>))
      expect(change, category).toBeCloseTo(second.categoryScores[category] - first.categoryScores[category], 5);
    expect(Object.keys(delta.categoryChanges).length).toBeGreaterThan(0);

    // Recommendations compared by id over the whole lists (the default shows only the top 10).
    const fullFirst = await rest(plumbing, {
      content: thin,
      title: undefined,
      meta_description: undefined,
      view: 'full',
    });
    const fullSecond = await rest(plumbing, {
      content: rewritten,
      title: 'Emergency plumber in Austin, TX',
      view: 'full',
    });
    const before = new Set<string>(fullFirst.recommendations.map((r: Any) => r.id));
    const after = new Set<string>(fullSecond.recommendations.map((r: Any) => r.id));
    const resolved = [...before].filter((id) => !after.has(id));
    const added = [...after].filter((id) => !before.has(id));
    expect(delta.resolvedCount).toBe(resolved.length);
    expect(delta.resolved).toEqual(resolved.slice(0, 10));
    expect(delta.newCount).toBe(added.length);
    expect(delta.new).toEqual(added.slice(0, 10));
    expect(delta.resolvedCount + delta.newCount).toBeGreaterThan(0);

    // view=full answers no delta but is remembered: the next default compares with it.
    expect(fullSecond).not.toHaveProperty('delta');
    const third = await rest(plumbing, { content: rewritten, title: 'Emergency plumber in Austin, TX' });
    expect(third.delta).toMatchObject({
      previousScore: fullSecond.rankabilityScore,
      scoreChange: 0,
      categoryChanges: {},
      resolvedCount: 0,
      newCount: 0,
    });
  });

  it("a refused score records nothing: another organisation's is 404 and the next delta still compares with the last answered one", async () => {
    const last = await rest(espresso, { view: 'full' });
    const lastAt = t.clock.now();
    t.clock.advance(5_000);
    const other = await tenant(t);
    const refused = await call<Any>(t, 'POST', `/optimizations/${espresso}/score`, {
      key: other.key,
      body: { content: espressoArticle(200), format: 'markdown' },
    });
    expect(refused.status).toBe(404);
    const next = await rest(espresso);
    expect(next.delta).toMatchObject({ since: new Date(lastAt).toISOString(), previousScore: last.rankabilityScore });
  });
});
