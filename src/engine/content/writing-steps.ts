import { saveArtifacts } from '../../store/repos/content.ts';
import { research, researchSummary } from './research.ts';
import { countWords } from './extractive/index.ts';
import { isSupplied, SUPPLIED_WRITER } from './draft-artifact.ts';
import type { ContentStep, StepKit } from './step-kit.ts';

/** Researches the topic: search, fetch and extraction of the pages to write from. */
export function researchStep({ engine, analysis, jobContext, contentWriter }: StepKit): ContentStep<'research'> {
  return {
    name: 'research',
    stage: 'researching',
    transient: true,
    async run(ctx) {
      const { request, client } = await jobContext(ctx.db, ctx.resourceId);
      return research(engine, analysis, request, client, ctx);
    },
    persist: async (ctx, output) =>
      saveArtifacts(
        ctx.trx,
        ctx.resourceId,
        { research: researchSummary(output), writer: contentWriter().name },
        ctx.now,
      ),
  };
}

/** Writes the brief: outline, SEO metadata, entities and FAQs. */
export function briefStep({ writingInput, contentWriter, nothingToWrite, saveBrief }: StepKit): ContentStep<'brief'> {
  return {
    name: 'brief',
    stage: 'briefing',
    transient: true,
    async run(ctx) {
      const input = await writingInput(ctx);
      const out = await contentWriter().brief(input);
      if (out.outline.length === 0 && !input.request.draftBody) throw nothingToWrite('a brief', input.request.topic);
      return out;
    },
    persist: saveBrief,
  };
}

/** Writes the draft from the brief (or keeps the one the caller supplied). */
export function draftStep({
  writingInput,
  contentWriter,
  briefOf,
  nothingToWrite,
  saveDraft,
}: StepKit): ContentStep<'draft'> {
  return {
    name: 'draft',
    stage: 'drafting',
    transient: true,
    async run(ctx) {
      const input = await writingInput(ctx);
      if (input.request.draftBody) {
        // A supplied draft is kept as it is: no writing, no charge for writing it.
        return {
          markdown: input.request.draftBody,
          wordCount: countWords(input.request.draftBody),
          sentences: [],
        };
      }
      const out = await contentWriter().draft({ ...input, brief: briefOf(ctx, input.request) });
      if (out.sentences.length === 0) throw nothingToWrite('a draft', input.request.topic);
      return out;
    },
    persist: (ctx, output) => saveDraft(ctx, output),
  };
}

/** The draft scored against the researched pages; null when research kept no page to compare with. */
export function scoreStep({
  jobContext,
  scoreDraft,
  briefOf,
  checkFacts,
  claimFigures,
}: StepKit): ContentStep<'score'> {
  return {
    name: 'score',
    stage: 'scoring',
    transient: true,
    async run(ctx) {
      const job = await jobContext(ctx.db, ctx.resourceId);
      const research = ctx.output('research');
      const draft = ctx.output('draft');
      const scored = scoreDraft(draft, briefOf(ctx, job.request), job, research);
      if (!scored) return null;
      // A draft the caller wrote is also fact-checked: its claims are flagged, never edited.
      const check = isSupplied(draft, job.request) ? checkFacts(draft, job, research) : null;
      return {
        ...(check ? { factCheck: { citations: check.citations, review: claimFigures(check) } } : {}),
        rankabilityScore: scored.rankabilityScore,
        categoryScores: scored.categoryScores,
        recommendations: scored.scoreDetails
          .filter((d) => d.recommendation !== null && d.earned < d.possible)
          .map((d) => ({
            check: d.id,
            category: d.category,
            label: d.label,
            points: Math.round((d.possible - d.earned) * 10) / 10,
            recommendation: d.recommendation!,
          }))
          .sort((a, b) => b.points - a.points),
        competitorCount: research.sources.length,
        scoringVersion: scored.scoringVersion,
      };
    },
    async persist(ctx, output) {
      if (!output?.factCheck) return saveArtifacts(ctx.trx, ctx.resourceId, { score: output }, ctx.now);
      const { factCheck: check, ...score } = output;
      await saveArtifacts(
        ctx.trx,
        ctx.resourceId,
        { score, citations: check.citations, review: { ...check.review, writer: SUPPLIED_WRITER } },
        ctx.now,
      );
    },
  };
}
