import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { Db, OpenedDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import {
  claimRun,
  getRunFor,
  insertRun,
  renewLease,
  resumeWaitingRun,
  updateLeasedRun,
  type RunRow,
} from '../../src/store/repos/runs.ts';
import { createRunner, type RunnerOptions } from '../../src/engine/runner/runner.ts';
import {
  definePipeline,
  PermanentError,
  RetryableError,
  type Checkpoint,
  type Pipeline,
  type StepContext,
  type StepOf,
  type StepOutputs,
} from '../../src/engine/runner/types.ts';
import { ProviderError } from '../../src/providers/types.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { createFakeClock, type FakeClock } from '../helpers/clock.ts';
import { captureLogger } from '../helpers/logs.ts';
import { onPostgres, openTestStore } from '../helpers/store.ts';
import { startTestApp } from '../helpers/app.ts';
import { createMetrics } from '../../src/engine/platform/metrics.ts';
import { startBillableProvider } from '../helpers/billable-provider.ts';
import { widgetOperations, widgetPipeline } from '../helpers/widget.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Harness {
  db: Db;
  dbPath: string;
  clock: FakeClock;
  logs: ReturnType<typeof captureLogger>;
  orgId: string;
  /** A second connection to the same store (a second worker). */
  connect(): Promise<Db>;
}

async function harness(): Promise<Harness> {
  const store = await openTestStore();
  cleanups.push(() => store.close());
  const track = (o: OpenedDatabase) => (cleanups.push(() => o.close()), o.db);
  const db = store.db;
  await migrateToLatest(db);
  const clock = createFakeClock();
  const org = await createOrganisation(db, { name: 'Runner org', plan: 'agency', subscription: 'active' }, clock.now());
  return {
    db,
    dbPath: store.dbPath,
    clock,
    logs: captureLogger('info'),
    orgId: org.id,
    connect: async () => track(store.open()),
  };
}

function makeRunner(h: Harness, pipelines: Pipeline[], overrides: Partial<RunnerOptions> = {}) {
  const r = createRunner({
    db: h.db,
    clock: h.clock,
    logger: h.logs.logger,
    pipelines,
    concurrency: 4,
    leaseMs: 60_000,
    retryBaseMs: 1_000,
    pollMs: 60_000,
    owner: 'worker-1',
    ...overrides,
  });
  cleanups.push(() => r.stop(0));
  return r;
}

async function enqueue(
  h: Harness,
  kind: string,
  state: 'pending' | 'waiting' = 'pending',
  maxAttempts = 3,
  input?: unknown,
): Promise<RunRow> {
  return insertRun(h.db, { kind, resourceId: randomUUID(), orgId: h.orgId, maxAttempts, state, input }, h.clock.now());
}

async function row(db: Db, id: string): Promise<RunRow> {
  return db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** A step of the untyped test pipelines: any name, any stage, any output. */
type AnyStep = StepOf<string, unknown, StepOutputs>;

/**
 * A pipeline whose hooks record what happened: `before:<index>:<step>` when a step is claimed (each step's stage is
 * its name, so entering the stage names the step) and `after:<index>:<step>` when its output is persisted (then the
 * step's own `persist`, if any, decides whether the run pauses).
 */
function recording(kind: string, steps: AnyStep[]) {
  const events: string[] = [];
  const completed: Checkpoint<unknown, StepOutputs>[] = [];
  const failed: string[] = [];
  const pipeline = definePipeline<string, unknown, StepOutputs>({
    kind,
    steps: steps.map((step, index): AnyStep => ({
      ...step,
      persist: async (ctx, output) => {
        events.push(`after:${index}:${step.name}`);
        return step.persist?.(ctx, output);
      },
    })),
    enterStage: async (_ctx, stage) => void events.push(`before:${steps.findIndex((s) => s.stage === stage)}:${stage}`),
    onComplete: async (ctx) => void completed.push(ctx.checkpoint),
    onFail: async (_ctx, message) => void failed.push(message),
  });
  return { pipeline, events, completed, failed };
}

/** A promise the test resolves by hand. */
function gate<T = void>() {
  let open!: (v: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

describe('durable runner', () => {
  it('runs a multi-step pipeline, handing each step the checkpointed outputs of the steps before it', async () => {
    const h = await harness();
    const seen: StepContext<unknown, StepOutputs>[] = [];
    const steps: AnyStep[] = [
      { name: 'research', stage: 'research', transient: false, run: async (ctx) => (seen.push(ctx), { sources: 3 }) },
      {
        name: 'brief',
        stage: 'brief',
        transient: false,
        run: async (ctx) => (
          seen.push(ctx),
          { outline: `from ${(ctx.checkpoint.research as { sources: number }).sources} sources` }
        ),
      },
      {
        name: 'draft',
        stage: 'draft',
        transient: false,
        run: async (ctx) => (seen.push(ctx), `draft of ${(ctx.checkpoint.brief as { outline: string }).outline}`),
      },
    ];
    const p = recording('job', steps);
    const run = await enqueue(h, 'job');
    await makeRunner(h, [p.pipeline]).runUntilIdle();

    const done = await row(h.db, run.id);
    expect(done).toMatchObject({
      state: 'done',
      step: 3,
      attempts: 0,
      lease_owner: null,
      lease_expires_at: null,
      lease_token: 3,
      last_error: null,
    });
    const checkpoint = {
      research: { sources: 3 },
      brief: { outline: 'from 3 sources' },
      draft: 'draft of from 3 sources',
    };
    expect(JSON.parse(done.checkpoint)).toEqual(checkpoint);
    expect(p.completed).toEqual([checkpoint]);
    expect(p.events).toEqual([
      'before:0:research',
      'after:0:research',
      'before:1:brief',
      'after:1:brief',
      'before:2:draft',
      'after:2:draft',
    ]);
    expect(seen.map((c) => c.attempt)).toEqual([1, 1, 1]);
    expect(seen[1]!.idempotencyKey()).toBe(`${run.id}:brief`);
    expect(seen[1]!.idempotencyKey('page-2')).toBe(`${run.id}:brief:page-2`);
    expect(seen[0]!.resourceId).toBe(run.resource_id);
  });

  it('a retried step resumes from the checkpoint: finished steps are not run again', async () => {
    const h = await harness();
    let researchCalls = 0;
    let briefCalls = 0;
    const p = recording('job', [
      { name: 'research', stage: 'research', transient: false, run: async () => ++researchCalls },
      {
        name: 'brief',
        stage: 'brief',
        transient: false,
        run: async (ctx) => {
          briefCalls++;
          if (ctx.attempt === 1) throw new RetryableError('the search provider timed out');
          return { research: ctx.checkpoint.research };
        },
      },
    ]);
    const run = await enqueue(h, 'job');
    const runner = makeRunner(h, [p.pipeline]);
    await runner.runUntilIdle();
    expect(await row(h.db, run.id)).toMatchObject({
      state: 'pending',
      step: 1,
      attempts: 1,
      run_after: h.clock.now() + 1_000,
      last_error: 'the search provider timed out',
      lease_owner: null,
    });
    expect(JSON.parse((await row(h.db, run.id)).checkpoint)).toEqual({ research: 1 });

    h.clock.advance(1_000);
    await runner.runUntilIdle();
    expect(await row(h.db, run.id)).toMatchObject({ state: 'done', last_error: null });
    expect(researchCalls).toBe(1);
    expect(briefCalls).toBe(2);
    expect(p.completed).toEqual([{ research: 1, brief: { research: 1 } }]);
  });

  it('records claims, step outcomes (ok, retry, failed) and run durations on the engine clock (the /metrics figures)', async () => {
    const h = await harness();
    const metrics = createMetrics();
    const p = recording('job', [
      {
        name: 'research',
        stage: 'research',
        transient: false,
        run: async (ctx) => {
          h.clock.advance(2_000);
          if (ctx.attempt === 1) throw new RetryableError('the search provider timed out');
          return 1;
        },
      },
      { name: 'brief', stage: 'brief', transient: false, run: async () => 2 },
    ]);
    const f = recording('doomed', [
      {
        name: 'fetch',
        stage: 'fetch',
        transient: false,
        run: async () => {
          throw new PermanentError('the page is gone');
        },
      },
    ]);
    const ok = await enqueue(h, 'job');
    await enqueue(h, 'doomed');
    const runner = makeRunner(h, [p.pipeline, f.pipeline], { metrics });
    await runner.runUntilIdle();
    h.clock.advance(5_000);
    await runner.runUntilIdle();
    expect(await row(h.db, ok.id)).toMatchObject({ state: 'done' });
    const figures = await metrics.registry.getMetricsAsJSON();
    const values = (name: string) =>
      figures.find((m) => m.name === name)!.values as { labels: object; value: number; metricName?: string }[];
    const count = (name: string, labels: object) =>
      values(name).find((v) => v.metricName === `${name}_count` && JSON.stringify(v.labels) === JSON.stringify(labels))
        ?.value ?? 0;
    const sum = (name: string, labels: object) =>
      values(name).find((v) => v.metricName === `${name}_sum` && JSON.stringify(v.labels) === JSON.stringify(labels))
        ?.value ?? 0;
    expect(count('agent_api_run_claim_wait_seconds', { kind: 'job' })).toBe(3);
    // The retry became due 1 s after the failure and was claimed 5 s later: 4 s of waiting in all.
    expect(sum('agent_api_run_claim_wait_seconds', { kind: 'job' })).toBe(4);
    expect(count('agent_api_run_step_seconds', { kind: 'job', outcome: 'retry' })).toBe(1);
    expect(sum('agent_api_run_step_seconds', { kind: 'job', outcome: 'retry' })).toBe(2);
    expect(count('agent_api_run_step_seconds', { kind: 'job', outcome: 'ok' })).toBe(2);
    expect(count('agent_api_run_step_seconds', { kind: 'doomed', outcome: 'failed' })).toBe(1);
    expect(count('agent_api_run_seconds', { kind: 'job', outcome: 'done' })).toBe(1);
    expect(sum('agent_api_run_seconds', { kind: 'job', outcome: 'done' })).toBe(9);
    expect(count('agent_api_run_seconds', { kind: 'doomed', outcome: 'failed' })).toBe(1);
    const failures = values('agent_api_run_step_failures_total');
    expect(failures.map((v) => [v.labels, v.value])).toEqual(
      expect.arrayContaining([
        [{ kind: 'job', disposition: 'retry' }, 1],
        [{ kind: 'doomed', disposition: 'final' }, 1],
      ]),
    );
  });

  it('retries back off exponentially on the injected clock, stop at max attempts, and never show internal error text', async () => {
    const h = await harness();
    const attempts: number[] = [];
    const p = recording('flaky', [
      {
        name: 'fetch',
        stage: 'fetch',
        transient: false,
        run: async (ctx) => {
          attempts.push(ctx.attempt);
          throw new Error('connect ECONNREFUSED 10.0.0.7:5432 (secret upstream detail)');
        },
      },
    ]);
    // The limit travels with the run row (set from AGENT_API_MAX_ATTEMPTS when the run is created).
    const run = await enqueue(h, 'flaky', 'pending', 4);
    const runner = makeRunner(h, [p.pipeline]);
    const t0 = h.clock.now();

    await runner.runUntilIdle();
    expect(attempts).toEqual([1]);
    expect((await row(h.db, run.id)).run_after).toBe(t0 + 1_000);
    for (const [wait, expected] of [
      [1_000, [1, 2]],
      [2_000, [1, 2, 3]],
      [4_000, [1, 2, 3, 4]],
    ] as const) {
      h.clock.advance(wait - 1);
      await runner.runUntilIdle();
      expect(attempts).toHaveLength(expected.length - 1);
      h.clock.advance(1);
      await runner.runUntilIdle();
      expect(attempts).toEqual(expected);
    }
    const failed = await row(h.db, run.id);
    expect(failed).toMatchObject({
      state: 'failed',
      lease_owner: null,
      last_error: 'fetch failed with an internal error',
    });
    expect(p.failed).toEqual(['fetch failed with an internal error']);
    expect(p.completed).toEqual([]);

    h.clock.advance(7 * 24 * 3_600_000);
    await runner.runUntilIdle();
    expect(attempts).toHaveLength(4);
    expect(h.logs.text()).toContain('secret upstream detail');
  });

  it('a PermanentError fails the run at once with its message; later steps never run', async () => {
    const h = await harness();
    let later = 0;
    const p = recording('job', [
      {
        name: 'check',
        stage: 'check',
        transient: false,
        run: async () => {
          throw new PermanentError('the page is not HTML');
        },
      },
      { name: 'write', stage: 'write', transient: false, run: async () => ++later },
    ]);
    const run = await enqueue(h, 'job');
    await makeRunner(h, [p.pipeline]).runUntilIdle();
    expect(await row(h.db, run.id)).toMatchObject({
      state: 'failed',
      attempts: 1,
      last_error: 'the page is not HTML',
      lease_owner: null,
    });
    expect(p.failed).toEqual(['the page is not HTML']);
    expect(later).toBe(0);
    expect(p.completed).toEqual([]);
  });

  it('a non-retryable ProviderError fails at once, named by its step; a retryable one is retried', async () => {
    const h = await harness();
    const p = recording('job', [
      {
        name: 'search',
        stage: 'search',
        transient: false,
        run: async (ctx) => {
          if (ctx.attempt === 1) throw new ProviderError('serpapi', 'rate limited', { retryable: true, status: 429 });
          throw new ProviderError('serpapi', 'the account is suspended', { retryable: false, status: 403 });
        },
      },
    ]);
    const run = await enqueue(h, 'job');
    const runner = makeRunner(h, [p.pipeline]);
    await runner.runUntilIdle();
    expect(await row(h.db, run.id)).toMatchObject({ state: 'pending', last_error: 'search: rate limited' });
    h.clock.advance(1_000);
    await runner.runUntilIdle();
    expect(await row(h.db, run.id)).toMatchObject({
      state: 'failed',
      attempts: 2,
      last_error: 'search: the account is suspended',
    });
    expect(p.failed).toEqual(['search: the account is suspended']);
  });

  it('a run claimed past its max attempts (a crash loop) fails without running the step again', async () => {
    const h = await harness();
    let calls = 0;
    const p = recording('job', [{ name: 'crashy', stage: 'crashy', transient: false, run: async () => ++calls }]);
    const run = await enqueue(h, 'job');
    // Three workers claimed the run and died without a write-back.
    for (let i = 0; i < 3; i++) {
      expect(await claimRun(h.db, ['job'], `dead-${i}`, h.clock.now(), 1_000)).toBeDefined();
      h.clock.advance(1_000);
    }
    await makeRunner(h, [p.pipeline]).runUntilIdle();
    expect(calls).toBe(0);
    expect(await row(h.db, run.id)).toMatchObject({
      state: 'failed',
      attempts: 4,
      lease_token: 4,
      last_error: 'crashy did not finish after 3 attempts',
    });
    expect(p.failed).toEqual(['crashy did not finish after 3 attempts']);
  });

  it('a step whose persist answers "pause" parks the run in waiting until resumeWaitingRun; then it continues from the checkpoint', async () => {
    const h = await harness();
    let draftCalls = 0;
    const p = recording('stepped', [
      {
        name: 'brief',
        stage: 'brief',
        transient: false,
        run: async () => ({ outline: ['a', 'b'] }),
        persist: async () => 'pause',
      },
      {
        name: 'draft',
        stage: 'draft',
        transient: false,
        run: async (ctx) => (draftCalls++, { from: ctx.checkpoint.brief }),
      },
    ]);
    const run = await enqueue(h, 'stepped');
    const runner = makeRunner(h, [p.pipeline]);
    await runner.runUntilIdle();
    expect(await row(h.db, run.id)).toMatchObject({ state: 'waiting', step: 1, attempts: 0, lease_owner: null });
    expect(p.completed).toEqual([]);

    h.clock.advance(30 * 24 * 3_600_000);
    await runner.runUntilIdle();
    expect(draftCalls).toBe(0);

    expect(await resumeWaitingRun(h.db, 'stepped', run.resource_id, h.clock.now())).toBe(true);
    expect(await resumeWaitingRun(h.db, 'stepped', run.resource_id, h.clock.now())).toBe(false);
    expect(await resumeWaitingRun(h.db, 'other-kind', run.resource_id, h.clock.now())).toBe(false);
    await runner.runUntilIdle();
    expect(draftCalls).toBe(1);
    expect(await row(h.db, run.id)).toMatchObject({ state: 'done', step: 2 });
    expect(p.completed).toEqual([{ brief: { outline: ['a', 'b'] }, draft: { from: { outline: ['a', 'b'] } } }]);
    expect(await resumeWaitingRun(h.db, 'stepped', run.resource_id, h.clock.now())).toBe(false);
  });

  it('a run that ends keeps only its non-transient outputs: transient ones and its input are dropped on completion and on failure', async () => {
    const h = await harness();
    /** What the last step and the end hook saw, by pipeline kind. */
    const seen: Record<string, Record<string, unknown>[]> = { completes: [], fails: [] };
    const hooks: Record<string, Record<string, unknown>[]> = { completes: [], fails: [] };
    const pipeline = (kind: string, last: AnyStep) =>
      definePipeline<string, unknown, StepOutputs>({
        kind,
        steps: [
          { name: 'kept', stage: 'kept', transient: false, run: async (ctx) => ({ from: ctx.input }) },
          { name: 'scratch', stage: 'scratch', transient: true, run: async () => 'only for later steps' },
          last,
        ],
        enterStage: async () => undefined,
        onComplete: async (ctx) => void hooks[kind]!.push({ ...ctx.checkpoint }),
        onFail: async (ctx) => void hooks[kind]!.push({ ...ctx.checkpoint }),
      });
    const finish: AnyStep = {
      name: 'finish',
      stage: 'finish',
      transient: true,
      run: async (ctx) => (seen.completes!.push({ ...ctx.checkpoint }), ctx.output('scratch')),
    };
    const doomed: AnyStep = {
      name: 'doomed',
      stage: 'doomed',
      transient: false,
      run: async (ctx) => {
        seen.fails!.push({ ...ctx.checkpoint });
        if (ctx.attempt === 1) throw new RetryableError('try again later');
        throw new PermanentError('the step cannot succeed');
      },
    };
    const ok = await enqueue(h, 'completes', 'pending', 3, { topic: 'ramen' });
    const bad = await enqueue(h, 'fails', 'pending', 3, { topic: 'udon' });
    expect(JSON.parse(ok.checkpoint)).toEqual({ input: { topic: 'ramen' } });
    const runner = makeRunner(h, [pipeline('completes', finish), pipeline('fails', doomed)]);
    await runner.runUntilIdle();

    // Completed: the steps and the end hook saw the input and every output; the stored checkpoint keeps `kept` only.
    const ramen = { input: { topic: 'ramen' }, kept: { from: { topic: 'ramen' } }, scratch: 'only for later steps' };
    expect(seen.completes).toEqual([ramen]);
    expect(hooks.completes).toEqual([{ ...ramen, finish: 'only for later steps' }]);
    const done = await row(h.db, ok.id);
    expect(done).toMatchObject({ state: 'done', step: 3 });
    expect(JSON.parse(done.checkpoint)).toEqual({ kept: { from: { topic: 'ramen' } } });

    // Not ended yet (a retry is due): the transient output and the input stay, for the next attempt.
    const udon = { input: { topic: 'udon' }, kept: { from: { topic: 'udon' } }, scratch: 'only for later steps' };
    expect(await row(h.db, bad.id)).toMatchObject({ state: 'pending', step: 2, last_error: 'try again later' });
    expect(JSON.parse((await row(h.db, bad.id)).checkpoint)).toEqual(udon);

    // Failed: the same drop.
    h.clock.advance(1_000);
    await runner.runUntilIdle();
    expect(seen.fails).toEqual([udon, udon]);
    expect(hooks.fails).toEqual([udon]);
    const failed = await row(h.db, bad.id);
    expect(failed).toMatchObject({ state: 'failed', last_error: 'the step cannot succeed' });
    expect(JSON.parse(failed.checkpoint)).toEqual({ kept: { from: { topic: 'udon' } } });
  });

  it("a pipeline declaration is type-checked: its stages, its step names and each step's output type", () => {
    const typed = definePipeline<'a' | 'b', { topic: string }, { s: number; t: string }>({
      kind: 'typed',
      steps: [
        {
          name: 's',
          stage: 'a',
          transient: true,
          run: async (ctx) => {
            expectTypeOf(ctx.input).toEqualTypeOf<{ topic: string }>();
            return ctx.input.topic.length;
          },
        },
        {
          name: 't',
          stage: 'b',
          transient: false,
          run: async (ctx) => {
            expectTypeOf(ctx.output('s')).toEqualTypeOf<number>();
            expectTypeOf(ctx.checkpoint.s).toEqualTypeOf<number | undefined>();
            // @ts-expect-error no step is named u
            ctx.output('u');
            return String(ctx.output('s'));
          },
          persist: async (_ctx, output) => {
            expectTypeOf(output).toEqualTypeOf<string>();
          },
        },
      ],
      enterStage: async (_ctx, stage) => {
        expectTypeOf(stage).toEqualTypeOf<'a' | 'b'>();
      },
      onComplete: async (ctx) => {
        expectTypeOf(ctx.output('t')).toEqualTypeOf<string>();
      },
      onFail: async () => undefined,
    });
    expectTypeOf(typed).toEqualTypeOf<Pipeline>();
    expect(typed.steps.map((s) => s.stage)).toEqual(['a', 'b']);

    const hooks = {
      enterStage: async () => undefined,
      onComplete: async () => undefined,
      onFail: async () => undefined,
    };
    definePipeline<'a' | 'b', void, { s: number }>({
      kind: 'unknown-stage',
      steps: [
        {
          name: 's',
          // @ts-expect-error unknown stage
          stage: 'c',
          transient: true,
          run: async () => 1,
        },
      ],
      ...hooks,
    });
    definePipeline<'a' | 'b', void, { s: number }>({
      kind: 'unknown-step',
      steps: [
        {
          // @ts-expect-error unknown step name
          name: 'x',
          stage: 'a',
          transient: true,
          run: async () => 1,
        },
      ],
      ...hooks,
    });
    definePipeline<'a' | 'b', void, { s: number }>({
      kind: 'wrong-output',
      steps: [
        {
          name: 's',
          stage: 'a',
          transient: true,
          // @ts-expect-error the output of s is a number
          run: async () => 'one',
        },
      ],
      ...hooks,
    });
    definePipeline<'a' | 'b', void, { s: number }>({
      kind: 'wrong-persist',
      steps: [
        {
          name: 's',
          stage: 'a',
          transient: true,
          run: async () => 1,
          // @ts-expect-error persist receives the step's output, a number
          persist: async (_ctx, output: string) => void output,
        },
      ],
      ...hooks,
    });
    definePipeline<'a' | 'b', void, { s: number }>({
      kind: 'missing-transient',
      steps: [
        // @ts-expect-error every step says whether its output is transient
        { name: 's', stage: 'a', run: async () => 1 },
      ],
      ...hooks,
    });
  });

  it('a run created waiting is not claimed until resumed', async () => {
    const h = await harness();
    let calls = 0;
    const p = recording('job', [{ name: 'only', stage: 'only', transient: false, run: async () => ++calls }]);
    const run = await enqueue(h, 'job', 'waiting');
    const runner = makeRunner(h, [p.pipeline]);
    await runner.runUntilIdle();
    expect(calls).toBe(0);
    await resumeWaitingRun(h.db, 'job', run.resource_id, h.clock.now());
    await runner.runUntilIdle();
    expect(calls).toBe(1);
  });

  it('fencing: an update or renewal with a superseded lease changes nothing', async () => {
    const h = await harness();
    const run = await enqueue(h, 'job');
    const first = (await claimRun(h.db, ['job'], 'w1', h.clock.now(), 1_000))!;
    expect(await claimRun(h.db, ['job'], 'w2', h.clock.now(), 1_000)).toBeUndefined();
    h.clock.advance(1_000);
    const second = (await claimRun(h.db, ['job'], 'w2', h.clock.now(), 1_000))!;
    expect([first.lease_token, second.lease_token]).toEqual([1, 2]);

    const stale = { runId: run.id, owner: 'w1', token: first.lease_token };
    expect(await updateLeasedRun(h.db, stale, { state: 'done', checkpoint: '{"zombie":true}' }, h.clock.now())).toBe(
      false,
    );
    expect(await renewLease(h.db, stale, h.clock.now() + 60_000)).toBe(false);
    // Same owner name but an old token is still stale (a restarted worker that reuses its name).
    expect(
      await updateLeasedRun(h.db, { runId: run.id, owner: 'w2', token: 1 }, { state: 'done' }, h.clock.now()),
    ).toBe(false);
    expect(await row(h.db, run.id)).toMatchObject({
      state: 'pending',
      checkpoint: '{}',
      lease_owner: 'w2',
      lease_token: 2,
    });
    expect(
      await updateLeasedRun(h.db, { runId: run.id, owner: 'w2', token: 2 }, { checkpoint: '{"ok":1}' }, h.clock.now()),
    ).toBe(true);
  });

  it('G.77 a stalled worker loses its lease; the other worker finishes; the stale write-back is rejected by fencing', async () => {
    const h = await harness();
    const stalled = gate<string>();
    const started = gate();
    const executions: string[] = [];
    const completions: string[] = [];
    const pipelineFor = (worker: string): Pipeline =>
      definePipeline<string, unknown, StepOutputs>({
        kind: 'job',
        steps: [
          {
            name: 'write',
            stage: 'write',
            transient: false,
            async run() {
              executions.push(worker);
              if (worker === 'worker-1') {
                started.open();
                return stalled.promise;
              }
              return `output of ${worker}`;
            },
          },
        ],
        enterStage: async () => undefined,
        onComplete: async (ctx) => void completions.push(`${worker}:${JSON.stringify(ctx.checkpoint)}`),
        onFail: async () => undefined,
      });
    const run = await enqueue(h, 'job');
    const w1 = makeRunner(h, [pipelineFor('worker-1')], { owner: 'worker-1' });
    const w2 = makeRunner({ ...h, db: await h.connect() }, [pipelineFor('worker-2')], { owner: 'worker-2' });

    const w1Done = w1.runUntilIdle();
    await started.promise;
    expect(await row(h.db, run.id)).toMatchObject({ lease_owner: 'worker-1', lease_token: 1 });

    // Worker 1 is stuck (event loop blocked, GC pause, ...) past its lease.
    h.clock.advance(60_000);
    await w2.runUntilIdle();
    expect(await row(h.db, run.id)).toMatchObject({ state: 'done', lease_owner: null, lease_token: 2 });

    stalled.open('late output of worker-1');
    await w1Done;
    const final = await row(h.db, run.id);
    expect(final).toMatchObject({ state: 'done', lease_token: 2 });
    expect(JSON.parse(final.checkpoint)).toEqual({ write: 'output of worker-2' });
    expect(executions).toEqual(['worker-1', 'worker-2']);
    expect(completions).toEqual(['worker-2:{"write":"output of worker-2"}']);
    expect(h.logs.text()).toContain('lease lost');
  });

  it('a worker that re-claims its own run after its lease lapsed drops the stale attempt and keeps tracking the new one', async () => {
    const h = await harness();
    const gates = [gate<string>(), gate<string>()];
    const started = [gate(), gate()];
    const signals: AbortSignal[] = [];
    const pipeline = definePipeline<string, unknown, StepOutputs>({
      kind: 'job',
      steps: [
        {
          name: 'slow',
          stage: 'slow',
          transient: false,
          run: (ctx) => {
            const n = signals.push(ctx.signal) - 1;
            started[n]!.open();
            return gates[n]!.promise;
          },
        },
      ],
      enterStage: async () => undefined,
      onComplete: async () => undefined,
      onFail: async () => undefined,
    });
    const run = await enqueue(h, 'job');
    const w = makeRunner(h, [pipeline]);
    const first = w.runUntilIdle();
    await started[0]!.promise;
    // The event loop stalled past the lease (no renewal ran); the worker's own poll finds the run due again.
    h.clock.advance(60_000);
    w.notify();
    await started[1]!.promise;
    expect(await row(h.db, run.id)).toMatchObject({ lease_owner: 'worker-1', lease_token: 2 });
    expect(signals[0]!.aborted).toBe(true);
    expect(w.inFlight()).toBe(1);

    gates[0]!.open('stale');
    await vi.waitFor(() => expect(h.logs.text()).toContain('lease lost'));
    expect(w.inFlight()).toBe(1);
    const stopped = w.stop(10_000);
    gates[1]!.open('fresh');
    await stopped;
    await first;
    expect(await row(h.db, run.id)).toMatchObject({ state: 'done', lease_token: 2 });
    expect(JSON.parse((await row(h.db, run.id)).checkpoint)).toEqual({ slow: 'fresh' });
  });

  it('renews the lease while a long step runs, so no other worker can take the run', async () => {
    const h = await harness();
    const release = gate();
    const started = gate();
    let calls = 0;
    const pipeline = definePipeline<string, unknown, StepOutputs>({
      kind: 'job',
      steps: [
        { name: 'slow', stage: 'slow', transient: false, run: async () => (calls++, started.open(), release.promise) },
      ],
      enterStage: async () => undefined,
      onComplete: async () => undefined,
      onFail: async () => undefined,
    });
    const run = await enqueue(h, 'job');
    const w1 = makeRunner(h, [pipeline], { owner: 'worker-1', leaseMs: 300 });
    const w2 = makeRunner(h, [pipeline], { owner: 'worker-2', leaseMs: 300 });
    const t0 = h.clock.now();
    const w1Done = w1.runUntilIdle();
    await started.promise;
    h.clock.advance(200);
    await vi.waitFor(async () => expect((await row(h.db, run.id)).lease_expires_at).toBe(t0 + 500), {
      timeout: 5_000,
      interval: 20,
    });
    h.clock.advance(200);
    await w2.runUntilIdle();
    expect(calls).toBe(1);
    release.open();
    await w1Done;
    expect(await row(h.db, run.id)).toMatchObject({ state: 'done', lease_token: 1 });
  });

  it('stop(grace) aborts a step that outlasts the grace period and hands its run back without spending an attempt', async () => {
    const h = await harness();
    const started = gate();
    const attempts: number[] = [];
    const pipeline = definePipeline<string, unknown, StepOutputs>({
      kind: 'job',
      steps: [
        {
          name: 'call',
          stage: 'call',
          transient: false,
          run: (ctx) =>
            new Promise((resolve, reject) => {
              attempts.push(ctx.attempt);
              if (ctx.attempt > 1 || attempts.length > 1) return resolve('second time');
              started.open();
              ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
            }),
        },
      ],
      enterStage: async () => undefined,
      onComplete: async () => undefined,
      onFail: async () => undefined,
    });
    const run = await enqueue(h, 'job');
    const w1 = makeRunner(h, [pipeline], { owner: 'worker-1' });
    const w1Done = w1.runUntilIdle();
    await started.promise;
    await w1.stop(20);
    await w1Done;
    expect(await row(h.db, run.id)).toMatchObject({
      state: 'pending',
      step: 0,
      attempts: 0,
      lease_owner: null,
      lease_expires_at: null,
      last_error: null,
    });

    const w2 = makeRunner(h, [pipeline], { owner: 'worker-2' });
    await w2.runUntilIdle();
    expect(attempts).toEqual([1, 1]);
    expect(await row(h.db, run.id)).toMatchObject({ state: 'done' });
  });

  it('stop() while a claim is on its way: the run it claims is handed back untouched, and stop returns only after that', async () => {
    const h = await harness();
    const claimed = gate();
    const hold = gate();
    let armed = true;
    // The claim commits, then its answer is held on its way back to the runner while stop() begins.
    const db = h.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        const first = args.result.rows[0] as Partial<RunRow> | undefined;
        if (armed && first?.lease_owner === 'worker-1') {
          armed = false;
          claimed.open();
          await hold.promise;
        }
        return args.result;
      },
    });
    const ran: number[] = [];
    const pipeline = definePipeline<string, unknown, StepOutputs>({
      kind: 'job',
      steps: [{ name: 'call', stage: 'call', transient: false, run: async (ctx) => void ran.push(ctx.attempt) }],
      enterStage: async () => undefined,
      onComplete: async () => undefined,
      onFail: async () => undefined,
    });
    const run = await enqueue(h, 'job');
    const w1 = makeRunner(h, [pipeline], { db });
    w1.notify();
    await claimed.promise;
    let stopped = false;
    const stopping = w1.stop(10_000).then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    hold.open();
    await stopping;
    expect(ran).toEqual([]);
    expect(w1.inFlight()).toBe(0);
    expect(await row(h.db, run.id)).toMatchObject({ state: 'pending', step: 0, attempts: 0, lease_owner: null });

    const w2 = makeRunner(h, [pipeline], { owner: 'worker-2' });
    await w2.runUntilIdle();
    expect(ran).toEqual([1]);
    expect(await row(h.db, run.id)).toMatchObject({ state: 'done' });
  });

  it('a stage entered with the claim: when entering throws, the claim rolls back with it and the run is claimed alone; a stage that never enters fails the run after its attempts', async () => {
    const h = await harness();
    let failEntries = 1;
    const entered: string[] = [];
    const pipeline = definePipeline<string, unknown, StepOutputs>({
      kind: 'job',
      steps: [{ name: 'call', stage: 'calling', transient: false, run: async () => 'ok' }],
      enterStage: async (ctx, stage) => {
        await ctx.trx
          .updateTable('runs')
          .set({ last_error: 'written by a failed entry' })
          .where('id', '=', ctx.runId)
          .execute();
        if (failEntries-- > 0) throw new Error('stage table unavailable');
        entered.push(stage);
      },
      onComplete: async () => undefined,
      onFail: async () => undefined,
    });
    const once = await enqueue(h, 'job');
    const w = makeRunner(h, [pipeline]);
    await w.runUntilIdle();
    expect(entered).toEqual(['calling']);
    expect(await row(h.db, once.id)).toMatchObject({ state: 'done', attempts: 0, lease_owner: null, last_error: null });
    expect(h.logs.text()).toContain('entering a stage failed; claiming alone');

    failEntries = Infinity;
    const never = await enqueue(h, 'job', 'pending', 2);
    await w.runUntilIdle();
    // The claim alone holds the run; entering in execute fails too, so the lease must expire before another attempt.
    // Both failed entries' writes rolled back with them.
    expect(await row(h.db, never.id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lease_owner: 'worker-1',
      last_error: null,
    });
    for (let i = 0; i < 2; i++) {
      h.clock.advance(60_001);
      await w.runUntilIdle();
    }
    expect(await row(h.db, never.id)).toMatchObject({ state: 'failed', lease_owner: null });
    expect(entered).toEqual(['calling']);
  });

  // SQLite has one connection: a write-back cannot commit while a claim's transaction holds it, so the race is
  // PostgreSQL's alone.
  it.skipIf(!onPostgres)(
    'a step that ends while a claim that found nothing is still on its way: its next step is claimed at once, not at the next poll',
    async () => {
      const h = await harness();
      const claims = new Set<string>();
      const emptyClaim = gate();
      const release = gate();
      let armed = false;
      // Holds the first claim that finds nothing on its way back, until the step before has written back.
      const db = h.db.withPlugin({
        transformQuery: (args) => {
          if (args.node.kind === 'UpdateQueryNode' && args.node.returning) claims.add(args.queryId.queryId);
          return args.node;
        },
        transformResult: async (args) => {
          if (armed && claims.has(args.queryId.queryId) && args.result.rows.length === 0) {
            armed = false;
            emptyClaim.open();
            await release.promise;
          }
          return args.result;
        },
      });
      const stepOneRunning = gate();
      const finishStepOne = gate();
      const pipeline = definePipeline<string, unknown, StepOutputs>({
        kind: 'job',
        steps: [
          {
            name: 'one',
            stage: 'one',
            transient: false,
            run: async () => (stepOneRunning.open(), await finishStepOne.promise, 1),
          },
          { name: 'two', stage: 'two', transient: false, run: async () => 2 },
        ],
        enterStage: async () => undefined,
        onComplete: async () => undefined,
        onFail: async () => undefined,
      });
      const run = await enqueue(h, 'job');
      // Polling is an hour away: only the runner's own rescheduling can claim step two in time.
      const w = makeRunner(h, [pipeline], { db, pollMs: 3_600_000 });
      armed = true;
      await w.start();
      await stepOneRunning.promise;
      await emptyClaim.promise;
      finishStepOne.open();
      const deadline = Date.now() + 5_000;
      while ((await row(h.db, run.id)).step < 1 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await row(h.db, run.id)).toMatchObject({ step: 1, state: 'pending' });
      release.open();
      while ((await row(h.db, run.id)).state !== 'done' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await row(h.db, run.id)).toMatchObject({ state: 'done', step: 2 });
    },
  );

  it('stop(grace) lets a step that finishes within the grace period write back', async () => {
    const h = await harness();
    const started = gate();
    const release = gate<string>();
    const pipeline = definePipeline<string, unknown, StepOutputs>({
      kind: 'job',
      steps: [{ name: 'call', stage: 'call', transient: false, run: () => (started.open(), release.promise) }],
      enterStage: async () => undefined,
      onComplete: async () => undefined,
      onFail: async () => undefined,
    });
    const run = await enqueue(h, 'job');
    const w1 = makeRunner(h, [pipeline]);
    const w1Done = w1.runUntilIdle();
    await started.promise;
    const stopped = w1.stop(10_000);
    release.open('finished in time');
    await stopped;
    await w1Done;
    expect(await row(h.db, run.id)).toMatchObject({ state: 'done', lease_owner: null });
    expect(JSON.parse((await row(h.db, run.id)).checkpoint)).toEqual({ call: 'finished in time' });
  });

  it('G.78 max attempts exceeded: the run fails, its reservation is released, the client sees a stable error, no more retries', async () => {
    const provider = await startBillableProvider();
    cleanups.push(provider.close);
    const t = await startTestApp({
      env: { AGENT_API_MAX_ATTEMPTS: '3' },
      operations: [...OPERATIONS, ...widgetOperations()],
      pipelines: (e) => [widgetPipeline(e, () => provider.url)],
    });
    cleanups.push(t.close);
    const { clientId, key } = await t.tenant('pro');
    provider.failNext(1_000);
    const created = await t.request<{ widget_id: string }>('POST', '/widgets', {
      key,
      body: { client_id: clientId, label: 'doomed', units: 7 },
    });
    expect(created.status).toBe(201);
    const id = created.body.widget_id;
    const usageBefore = await t.request<{ windows: { '24h': { reserved: number } } }>('GET', '/usage', { key });
    expect(usageBefore.body.windows['24h'].reserved).toBe(7);

    for (let i = 0; i < 10; i++) {
      await t.engine.runner.runUntilIdle();
      t.clock.advance(10 * 60_000);
    }
    const run = (await getRunFor(t.db, 'widget', id))!;
    expect(run.state).toBe('failed');
    expect(provider.calls.get(`${run.id}:call`)).toBe(3);

    const seen = await t.request('GET', `/widgets/${id}`, { key });
    expect(seen.body).toMatchObject({
      status: 'failed',
      billing: 'released',
      error: 'call failed with an internal error',
    });
    expect(seen.text).not.toContain('provider answered');
    const usage = await t.request<{ windows: { '24h': { reserved: number; used: number } } }>('GET', '/usage', { key });
    expect(usage.body.windows['24h']).toMatchObject({ reserved: 0, used: 0 });

    t.clock.advance(7 * 24 * 3_600_000);
    await t.engine.runner.runUntilIdle();
    expect(provider.calls.get(`${run.id}:call`)).toBe(3);
    const again = await t.request('GET', `/widgets/${id}`, { key });
    expect(again.body).toEqual(seen.body);
    const ledger = await t.db.selectFrom('usage_ledger').selectAll().where('resource_id', '=', id).execute();
    expect(ledger.map((l) => l.state)).toEqual(['released']);
  });
});
