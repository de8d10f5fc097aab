import type { Engine } from '../engine.ts';
import { CONTENT_KINDS, contentJobById, contentJobStartedAt, updateContentJob } from '../../store/repos/content.ts';
import { definePipeline, type Pipeline } from '../runner/types.ts';
import { CONTENT_STAGES, FINAL_STAGE, type ContentStage } from './states.ts';
import type { Brief } from './types.ts';
import type { ContentOutputs } from './draft-artifact.ts';
import { createStepKit, type WCtx } from './step-kit.ts';
import { briefStep, draftStep, researchStep, scoreStep } from './writing-steps.ts';
import { factCheckStep, finalizeStep, optimizeSteps } from './autopilot-steps.ts';

export {
  draftArtifact,
  hideExcludedTitles,
  stopReason,
  SUPPLIED_WRITER,
  TARGET_SCORE,
  WORD_TOLERANCE,
  type ContentOutputs,
  type DraftScore,
  type OptimizePass,
  type Review,
} from './draft-artifact.ts';

/** The hooks of a content pipeline: the stage table moves status and stage; the end charges or releases. */
function contentHooks(engine: Engine, kind: 'job' | 'autopilot') {
  return {
    async enterStage(ctx: WCtx, stage: ContentStage) {
      const startedAt = await contentJobStartedAt(ctx.trx, ctx.resourceId);
      await updateContentJob(
        ctx.trx,
        ctx.resourceId,
        { status: CONTENT_STAGES[stage].status, stage, started_at: startedAt ?? ctx.now },
        ctx.now,
      );
    },
    async onComplete(ctx: WCtx) {
      const stage = FINAL_STAGE[kind];
      await updateContentJob(
        ctx.trx,
        ctx.resourceId,
        { status: CONTENT_STAGES[stage].status, stage, completed_at: ctx.now },
        ctx.now,
      );
      await engine.usage.chargeOrDefer(ctx.trx, CONTENT_KINDS[kind], ctx.resourceId);
    },
    async onFail(ctx: WCtx, message: string, code?: string) {
      await updateContentJob(
        ctx.trx,
        ctx.resourceId,
        { status: 'failed', stage: 'failed', error: message, error_code: code ?? null, completed_at: ctx.now },
        ctx.now,
      );
      await engine.usage.release(ctx.trx, CONTENT_KINDS[kind], ctx.resourceId);
    },
  };
}

/** The steps and hooks both content pipelines share, built once per engine. */
const shared = new WeakMap<Engine, ReturnType<typeof contentParts>>();

function contentParts(engine: Engine) {
  const kit = createStepKit(engine);
  return {
    research: researchStep(kit),
    brief: briefStep(kit),
    saveBrief: kit.saveBrief,
    draft: draftStep(kit),
    score: scoreStep(kit),
    optimizePasses: optimizeSteps(kit),
    factCheckStep: factCheckStep(kit),
    finalize: finalizeStep(kit),
    hooks: (kind: 'job' | 'autopilot') => contentHooks(engine, kind),
  };
}

const partsOf = (engine: Engine) => {
  let parts = shared.get(engine);
  if (!parts) shared.set(engine, (parts = contentParts(engine)));
  return parts;
};

/**
 * A content job: research, brief, draft, and the draft's score against the research. A stepped job pauses at `brief_ready` after its brief until
 * approve_content_brief resumes it; an auto job's brief is approved at once.
 */
export function contentJobPipeline(engine: Engine): Pipeline {
  const p = partsOf(engine);
  return definePipeline<ContentStage, void, ContentOutputs>({
    kind: CONTENT_KINDS.job,
    steps: [
      p.research,
      {
        ...p.brief,
        async persist(ctx: WCtx, output: Brief) {
          await p.saveBrief(ctx, output);
          const { mode } = await contentJobById(ctx.trx, ctx.resourceId);
          if (mode === 'stepped') {
            await updateContentJob(ctx.trx, ctx.resourceId, { status: 'brief_ready', stage: 'brief_ready' }, ctx.now);
            return 'pause';
          }
          // Auto mode: the brief is approved automatically.
          await updateContentJob(ctx.trx, ctx.resourceId, { status: 'generating_draft', stage: 'drafting' }, ctx.now);
        },
      },
      p.draft,
      p.score,
    ],
    ...p.hooks('job'),
  });
}

/** Autopilot: a content job's steps, then optimization passes, a fact check and a review, without a pause. */
export function autopilotPipeline(engine: Engine): Pipeline {
  const p = partsOf(engine);
  return definePipeline<ContentStage, void, ContentOutputs>({
    kind: CONTENT_KINDS.autopilot,
    steps: [p.research, p.brief, p.draft, ...p.optimizePasses, p.factCheckStep, p.finalize],
    ...p.hooks('autopilot'),
  });
}
