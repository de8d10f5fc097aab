import { textStats } from '../analysis/score/readability.ts';
import { countOptimizePass, saveArtifacts } from '../../store/repos/content.ts';
import { OPTIMIZE_PASS_CAP } from './service.ts';
import { stopReason, TARGET_SCORE, WORD_TOLERANCE, type OptimizePass } from './draft-artifact.ts';
import { latestDraft, type ContentStep, type StepKit } from './step-kit.ts';

/** Autopilot's optimization passes: each revises the latest draft toward the target score, kept when it scores higher. */
export function optimizeSteps({
  writingInput,
  briefOf,
  scoreDraft,
  contentWriter,
  saveDraft,
}: StepKit): ContentStep<`optimize_${number}`>[] {
  return Array.from({ length: OPTIMIZE_PASS_CAP }, (_, i) => ({
    name: `optimize_${i + 1}`,
    stage: 'optimizing',
    transient: true,
    async run(ctx): Promise<OptimizePass> {
      const input = await writingInput(ctx);
      const brief = briefOf(ctx, input.request);
      const draft = latestDraft(ctx);
      const before = scoreDraft(draft, brief, input, input.research);
      if (!before || before.rankabilityScore >= TARGET_SCORE)
        return { revised: false, score: before?.rankabilityScore ?? null };
      const goals = {
        missingTerms: before.entities.filter((e) => e.status === 'missing').map((e) => e.term),
        underusedTerms: before.entities.filter((e) => e.status === 'under').map((e) => e.term),
        recommendations: before.scoreDetails.filter((d) => d.recommendation).map((d) => d.recommendation!),
        score: before.rankabilityScore,
        targetScore: TARGET_SCORE,
      };
      const revised = await contentWriter().revise({ ...input, brief, draft, goals });
      const after = scoreDraft(revised, brief, input, input.research);
      // A pass that does not improve the score, or that grows the draft past its length tolerance, is not kept.
      const tooLong =
        revised.wordCount > draft.wordCount && revised.wordCount > input.request.wordCountTarget * (1 + WORD_TOLERANCE);
      if (!after || after.rankabilityScore <= before.rankabilityScore || tooLong)
        return { revised: false, score: before.rankabilityScore, attempted: true };
      return { revised: true, draft: revised, scoreBefore: before.rankabilityScore, score: after.rankabilityScore };
    },
    async persist(ctx, output) {
      if (!output.revised) return;
      await saveDraft(ctx, output.draft);
      await countOptimizePass(ctx.trx, ctx.resourceId, ctx.now);
    },
  }));
}

/** Fact-checks the latest draft against the research and the client's knowledge base. */
export function factCheckStep({ checkFacts, jobContext, saveDraft }: StepKit): ContentStep<'fact_check'> {
  return {
    name: 'fact_check',
    stage: 'fact_checking',
    transient: true,
    async run(ctx) {
      return checkFacts(latestDraft(ctx), await jobContext(ctx.db, ctx.resourceId), ctx.output('research'));
    },
    persist: (ctx, output) => saveDraft(ctx, output.draft, output.citations),
  };
}

/** The review: word count, scores before and after, passes, readability and the fact-check figures. */
export function finalizeStep({
  jobContext,
  briefOf,
  scoreDraft,
  claimFigures,
  contentWriter,
}: StepKit): ContentStep<'finalize'> {
  return {
    name: 'finalize',
    stage: 'finalizing',
    transient: true,
    async run(ctx) {
      const job = await jobContext(ctx.db, ctx.resourceId);
      const res = ctx.output('research');
      const brief = briefOf(ctx, job.request);
      const check = ctx.output('fact_check');
      const first = scoreDraft(ctx.output('draft'), brief, job, res);
      const final = scoreDraft(check.draft, brief, job, res);
      const stats = textStats(
        check.draft.markdown.replace(/\[\d+\]/g, ''),
        job.request.language.split('-')[0]!.toLowerCase(),
      );
      const outputs = Array.from({ length: OPTIMIZE_PASS_CAP }, (_, i) => ctx.checkpoint[`optimize_${i + 1}`]);
      const passes = outputs.filter((p) => p?.revised).length;
      return {
        word_count: check.draft.wordCount,
        word_count_target: job.request.wordCountTarget,
        within_tolerance:
          Math.abs(check.draft.wordCount - job.request.wordCountTarget) <= job.request.wordCountTarget * WORD_TOLERANCE,
        score_before: first?.rankabilityScore ?? null,
        score_after: final?.rankabilityScore ?? null,
        target_score: TARGET_SCORE,
        optimize_passes: passes,
        stop_reason: stopReason(outputs),
        readability: {
          flesch_reading_ease: stats.fleschReadingEase === null ? null : Math.round(stats.fleschReadingEase * 10) / 10,
          average_sentence_words: Math.round(stats.avgSentenceWords * 10) / 10,
        },
        ...claimFigures(check),
        sources: res.sources.length,
        writer: contentWriter().name,
      };
    },
    persist: (ctx, output) => saveArtifacts(ctx.trx, ctx.resourceId, { review: output }, ctx.now),
  };
}
