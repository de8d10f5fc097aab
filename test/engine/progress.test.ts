import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPELINES } from '../../src/engine/pipelines.ts';
import type { Pipeline } from '../../src/engine/runner/types.ts';
import {
  CONTENT_RUN_KINDS,
  FINAL_STAGE,
  progressPosition,
  PROGRESS_STAGES,
  stagesOfKind,
  type ContentStage,
} from '../../src/engine/content/states.ts';
import { OPTIMIZATION_STAGE_VALUES } from '../../src/engine/optimize/states.ts';
import { jobDetail } from '../../src/engine/content/views.ts';
import { optimizationProgress } from '../../src/engine/optimize/views.ts';
import { CONTENT_KINDS, getContentJob, type ContentJobRow } from '../../src/store/repos/content.ts';
import { OPTIMIZATION_KIND } from '../../src/store/repos/optimizations.ts';
import { TRACKER_SCAN_KIND } from '../../src/store/repos/tracker.ts';
import type { OptimizationStage } from '../../src/store/schema.ts';
import type { TestApp } from '../helpers/app.ts';
import {
  approve,
  createdJob,
  getJob,
  PLUMBING,
  recordStatuses,
  settle,
  SOURDOUGH,
  startContentApp,
  startedAutopilot,
  tenant,
  type Tenant,
} from '../content/helpers/harness.ts';

/**
 * Progress read from the state tables: along every pipeline's steps, as the pipelines themselves
 * list them, each view's progress rises at every new stage and is never 0 once a run has left `queued`. A stage
 * added to a pipeline is walked here without editing this test; a pipeline added without saying how its progress
 * reads fails the first test.
 */

/** One way of reading progress: a stage's progress as a fraction of done (0 to 1). */
type Reading = { name: string; of: (stage: string) => number };

let t: TestApp;
let a: Tenant;
let row: ContentJobRow;

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t);
  // A real row for the detail view to render at each stage.
  const job = await createdJob(t, a.key, { topic: SOURDOUGH, client_id: a.clientId, page_contract: 'article' });
  row = (await getContentJob(t.db, a.orgId, job.job_id))!;
});
afterAll(async () => {
  await t?.close();
});

const contentReadings: Reading[] = [
  {
    name: 'get_content_job percent',
    of: (stage) => jobDetail({ ...row, stage: stage as ContentStage }).progress.percent / 100,
  },
  {
    name: 'MCP progress position',
    of: (stage) => progressPosition(stage as ContentStage) / (PROGRESS_STAGES.length - 1),
  },
];

/** Per pipeline kind: how its progress reads, and the stage a run rests in at the end; null: it reports none. */
const PROGRESS_OF: Record<string, { readings: Reading[]; final: string } | null> = {
  [CONTENT_KINDS.job]: { readings: contentReadings, final: FINAL_STAGE.job },
  [CONTENT_KINDS.autopilot]: { readings: contentReadings, final: FINAL_STAGE.autopilot },
  [OPTIMIZATION_KIND]: {
    readings: [
      {
        name: 'optimization MCP progress',
        of: (stage) => {
          const p =
            stage === 'queued' || stage === 'complete'
              ? optimizationProgress({ status: stage, stage: null })
              : optimizationProgress({ status: 'running', stage: stage as OptimizationStage });
          return p.progress / p.total;
        },
      },
    ],
    final: 'complete',
  },
  // A scan's row has no stage column and reports no progress (its platforms are measured in turn).
  [TRACKER_SCAN_KIND]: null,
};

/** The distinct consecutive stages of a pipeline's steps: the walk a run takes between queued and its end. */
function stagesOf(pipeline: Pipeline): string[] {
  return pipeline.steps.map((s) => s.stage).filter((s, i, all) => i === 0 || s !== all[i - 1]);
}

/** Fails unless each reading of `walk` rises at every step and is above 0 after the first stage (queued). */
function expectRising(label: string, walk: readonly string[], readings: readonly Reading[]): void {
  for (const reading of readings) {
    const values = walk.map((stage) => reading.of(stage));
    expect(values[0], `${label}, ${reading.name}: queued`).toBe(0);
    for (let i = 1; i < walk.length; i++) {
      const where = `${label}, ${reading.name}: ${walk[i - 1]} → ${walk[i]} (${values.join(', ')})`;
      expect(values[i]!, where).toBeGreaterThan(values[i - 1]!);
    }
    expect(values.at(-1), `${label}, ${reading.name}: the end`).toBe(1);
  }
}

describe('progress along every pipeline, from the pipelines’ own step lists', () => {
  const pipelines = () => PIPELINES.flatMap((make) => [make(t.engine)].flat());

  it('every pipeline says how its progress reads', () => {
    const kinds = pipelines().map((p) => p.kind);
    expect(kinds.length).toBeGreaterThanOrEqual(4);
    for (const kind of kinds) expect(Object.keys(PROGRESS_OF), `progress of ${kind}`).toContain(kind);
  });

  it('queued → each step’s stage → the end: rising at every stage, never 0 after queued', () => {
    for (const pipeline of pipelines()) {
      const progress = PROGRESS_OF[pipeline.kind];
      if (!progress) continue;
      expectRising(pipeline.kind, ['queued', ...stagesOf(pipeline), progress.final], progress.readings);
    }
  });

  it('the stages a content pipeline passes are the ones the state table gives its kind, in the same order', () => {
    for (const kind of CONTENT_RUN_KINDS) {
      const pipeline = pipelines().find((p) => p.kind === CONTENT_KINDS[kind])!;
      const table = stagesOfKind(kind);
      const walked = stagesOf(pipeline);
      expect(
        table.filter((s) => walked.includes(s)),
        kind,
      ).toEqual(walked);
    }
  });

  it('an optimization passes exactly the state table’s stages, in order', () => {
    const pipeline = pipelines().find((p) => p.kind === OPTIMIZATION_KIND)!;
    expect(stagesOf(pipeline)).toEqual([...OPTIMIZATION_STAGE_VALUES]);
  });

  it('a stepped content job rests at brief_ready after its brief: still rising through it', () => {
    const job = pipelines().find((p) => p.kind === CONTENT_KINDS.job)!;
    const stages = stagesOf(job);
    const brief = stages.indexOf('briefing');
    expect(brief).toBeGreaterThanOrEqual(0);
    const walk = ['queued', ...stages.slice(0, brief + 1), 'brief_ready', ...stages.slice(brief + 1), 'completed'];
    expectRising('stepped content job', walk, contentReadings);
  });
});

describe('real runs: the stages a job passes, as recorded, read rising', () => {
  it('auto and stepped content jobs and an Autopilot run', async () => {
    const log = await recordStatuses(t);
    const auto = await createdJob(t, a.key, { topic: SOURDOUGH, client_id: a.clientId, page_contract: 'article' });
    const stepped = await createdJob(t, a.key, {
      topic: PLUMBING,
      client_id: a.clientId,
      page_contract: 'commercial_service',
      mode: 'stepped',
    });
    const autopilot = await startedAutopilot(t, a.key, {
      topic: PLUMBING,
      client_id: a.clientId,
      page_contract: 'commercial_service',
    });
    expect(await settle(t, auto.job_id)).toBe('completed');
    expect(await settle(t, stepped.job_id)).toBe('brief_ready');
    expect((await approve(t, a.key, stepped.job_id)).status).toBe(200);
    expect(await settle(t, stepped.job_id)).toBe('completed');
    expect(await settle(t, autopilot.job_id)).toBe('completed');
    for (const [label, id] of [
      ['auto job', auto.job_id],
      ['stepped job', stepped.job_id],
      ['autopilot', autopilot.job_id],
    ] as const) {
      const stages = await log.stages(id);
      expect(stages[0], label).toBe('queued');
      expectRising(label, stages, contentReadings);
    }
    expect(await log.stages(stepped.job_id)).toContain('brief_ready');
  });

  it('get_content_job while the job is at scoring answers the table’s percent, not 0', async () => {
    const job = await createdJob(t, a.key, { topic: SOURDOUGH, client_id: a.clientId, page_contract: 'article' });
    // The runner goes through scoring in one step; the row is put there as the pipeline's enterStage leaves it.
    await t.db
      .updateTable('content_jobs')
      .set({ status: 'generating_draft', stage: 'scoring' })
      .where('id', '=', job.job_id)
      .execute();
    const d = await getJob(t, a.key, job.job_id);
    expect(d.status).toBe(200);
    expect(d.body.progress).toEqual({ stage: 'scoring', percent: 70 });
  });
});
