import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structured } from '../helpers/mcp.ts';
import {
  call,
  getOptimization,
  settle,
  started,
  startWorld,
  tool,
  type ErrorBody,
  type Optimization,
  type OptimizationResult,
  type World,
} from './helpers/harness.ts';
import { KEYWORD } from './helpers/web.ts';
import { JSON_COLUMNS } from '../../src/store/json-columns.ts';
import { buildCompetitorModel } from '../../src/engine/analysis/score/index.ts';
import { CATEGORIES } from '../../src/engine/analysis/score/types.ts';

/**
 * Score versions through a real app: a run saved by version 2 (its competitor model without version 3's part) keeps
 * reading as it was stored and keeps scoring drafts by version 2, while a fresh run is scored by version 3. The
 * version-2 run is made from a finished run by rewriting its stored model and result in the store, as a run
 * finished before version 3 would have left them.
 */

type Scored = Pick<OptimizationResult, 'rankabilityScore' | 'categoryScores' | 'scoreDetails' | 'recommendations'> & {
  scoringVersion: string;
};

let w: World;
let key: string;
/** The partial page's HTML as the web serves it. */
let html: string;

beforeAll(async () => {
  w = await startWorld();
  ({ key } = await w.t.tenant('agency'));
  html = await (await fetch(w.web.url('/target/partial'))).text();
}, 60_000);
afterAll(async () => {
  await w?.close();
});

async function finishedRun(): Promise<Optimization> {
  const o = await started(w.t, key, { url: w.web.url('/target/partial'), keyword: KEYWORD });
  await settle(w.t, o.optimization_id);
  const run = (await getOptimization(w.t, key, o.optimization_id, { view: 'full' })).body;
  expect(run.status).toBe('complete');
  return run;
}

async function scoreDraft(id: string) {
  const rest = await call<Scored & ErrorBody>(w.t, 'POST', `/optimizations/${id}/score`, {
    key,
    body: { content: html, format: 'html', view: 'full' },
  });
  expect(rest.status, rest.text).toBe(200);
  const mcp = await tool(w.t, key, 'score_content', {
    optimization_id: id,
    content: html,
    format: 'html',
    view: 'full',
  });
  expect(mcp.isError).toBeFalsy();
  expect(structured(mcp)).toEqual(rest.body);
  return rest.body;
}

const ids = (s: Scored) => s.scoreDetails.map((d) => d.id);
const possible = (s: Scored, id: string) => s.scoreDetails.find((d) => d.id === id)!.possible;

/** Rewrites the run as version 2 saved it: the model without `v3`, the result and evidence of version 2. */
async function makeVersion2(id: string) {
  const row = await w.t.db
    .selectFrom('optimizations')
    .select(['scoring_model', 'result', 'evidence'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const C = JSON_COLUMNS.optimizations;
  const model = C.scoring_model.read(row.scoring_model!);
  expect(model.v3).toBeDefined();
  const { v3: _v3, ...v2Model } = model;
  const result = C.result.read(row.result!);
  expect(result.scoringVersion).toBe('3');
  const evidence = C.evidence.read(row.evidence!);
  expect(evidence.scoringVersion).toBe('3');
  await w.t.db
    .updateTable('optimizations')
    .set({
      scoring_model: C.scoring_model.write(v2Model),
      result: C.result.write({ ...result, scoringVersion: '2' }),
      evidence: C.evidence.write({ ...evidence, scoringVersion: '2' }),
    })
    .where('id', '=', id)
    .execute();
  return v2Model;
}

describe('score versions', () => {
  it('a run saved by version 2 reads as stored and scores drafts by version 2; a fresh run is scored by version 3', async () => {
    const run = await finishedRun();
    const id = run.optimization_id;
    const v2Model = await makeVersion2(id);

    // The model without version 3's part is exactly what version 2 builds from the same ranking pages.
    const a = w.t.engine.analysis;
    const pages = await Promise.all(
      run.result!.competitors.map(async (c) => {
        const body = await (await fetch(c.url)).text();
        return a.analyze(c.url, a.extract(body, c.url), run.language);
      }),
    );
    expect(JSON.stringify(buildCompetitorModel(a.analyzer, pages, KEYWORD, run.language, '2'))).toBe(
      JSON.stringify(v2Model),
    );

    // Read back as stored: the same record, its result's version 2.
    const after = await getOptimization(w.t, key, id, { view: 'full' });
    expect(after.status).toBe(200);
    expect(after.body).toEqual({
      ...run,
      result: { ...run.result!, scoringVersion: '2' },
      evidence: { ...run.evidence!, scoringVersion: '2' },
    });
    expect(after.body.result!.rankabilityScore).toBe(run.result!.rankabilityScore);
    const summary = await getOptimization(w.t, key, id);
    expect(summary.body.summary!.rankabilityScore).toBe(run.result!.rankabilityScore);

    // Drafts scored against it: version 2's formula, its categories and checks.
    const v2 = await scoreDraft(id);
    expect(v2.scoringVersion).toBe('2');
    expect(Object.keys(v2.categoryScores).sort()).toEqual([...CATEGORIES].sort());
    expect(possible(v2, 'readability.reading_ease')).toBe(3);
    expect(ids(v2).filter((x) => /^(prose|facts|originality|answer)\./.test(x))).toEqual([]);
    expect(v2.scoreDetails.reduce((s, d) => s + d.possible, 0)).toBeCloseTo(100, 6);
    for (const r of v2.recommendations) expect(['add_term', 'use_more', 'use_less', 'fix']).toContain(r.kind);
    expect(await scoreDraft(id)).toEqual(v2);

    // A fresh run of the same page: version 3, and its drafts too, while the version-2 run stays version 2.
    const fresh = await finishedRun();
    expect(fresh.result!.scoringVersion).toBe('3');
    expect(fresh.evidence!.scoringVersion).toBe('3');
    const v3 = await scoreDraft(fresh.optimization_id);
    expect(v3.scoringVersion).toBe('3');
    expect(ids(v3)).toEqual(expect.arrayContaining(['prose.sentences', 'originality.copied', 'answer.first']));
    expect(possible(v3, 'readability.reading_ease')).toBe(4);
    expect(Math.abs(v3.rankabilityScore - fresh.result!.rankabilityScore)).toBeLessThanOrEqual(0.5);
    expect((await scoreDraft(id)).scoringVersion).toBe('2');
    expect((await getOptimization(w.t, key, id, { view: 'full' })).body.result!.scoringVersion).toBe('2');
  }, 60_000);
});
