import type { Engine } from '../engine.ts';
import { scorePage } from '../analysis/score/index.ts';
import { textStats } from '../analysis/score/readability.ts';
import { CONTENT_KINDS, saveArtifacts, updateContentJob, type ContentJobRow } from '../../store/repos/content.ts';
import {
  PermanentError,
  RetryableError,
  type HookContext,
  type Pipeline,
  type Step,
  type StepContext,
} from '../runner/types.ts';
import { draftAsPage } from './draft-page.ts';
import { factCheck, type FactCheck } from './fact-check.ts';
import { research, researchSummary } from './research.ts';
import { clientContext, OPTIMIZE_PASS_CAP } from './service.ts';
import { createExtractiveWriter, countWords } from './extractive/index.ts';
import { createLlmContentWriter, excludedMatcher } from './llm/index.ts';
import type { Brief, ClientContext, ContentRequest, ContentWriter, Draft, Research } from './types.ts';
import { getOwnedClient } from '../../store/repos/clients.ts';
import type { Writer } from '../../providers/types.ts';

/** Autopilot revises its draft while the Optimize score is below this (documented in the README). */
export const TARGET_SCORE = 75;
/** A draft within this share of its target word count is on target. */
export const WORD_TOLERANCE = 0.15;

interface JobContext {
  request: ContentRequest;
  client: ClientContext;
}

/**
 * The draft's Sources list names a source whose title mentions an excluded topic by its host instead: writers keep
 * excluded topics out of the body, and the titles of the pages they cite must not bring them back.
 */
export function hideExcludedTitles(markdown: string, excludedTopics: readonly string[]): string {
  const mentions = excludedMatcher(excludedTopics);
  const at = [...markdown.matchAll(/^##\s+sources\s*$/gim)].at(-1)?.index;
  if (at === undefined) return markdown;
  const list = markdown
    .slice(at)
    .replace(
      /^(\s*(?:\d+\.|[-*])\s+(?:\[\d+\]\s+)?)\[([^\]\n]*)\]\((<?)([^)\s>]+)(>?)\)/gm,
      (line, lead: string, title: string, open: string, url: string, close: string) => {
        if (!mentions(title)) return line;
        let host = url;
        try {
          host = new URL(url).host;
        } catch {
          // Not an absolute URL: show it as it is.
        }
        return `${lead}[${host}](${open}${url}${close})`;
      },
    );
  return markdown.slice(0, at) + list;
}

/** The draft as stored in the artifacts: markdown, counts and every sentence with its source. */
export function draftArtifact(draft: Draft, request: ContentRequest, client: Pick<ClientContext, 'excludedTopics'>) {
  const target = request.wordCountTarget;
  return {
    format: 'markdown',
    content:
      request.draftBody !== null && draft.markdown === request.draftBody
        ? draft.markdown
        : hideExcludedTitles(draft.markdown, client.excludedTopics),
    word_count: draft.wordCount,
    word_count_target: target,
    within_tolerance: Math.abs(draft.wordCount - target) <= target * WORD_TOLERANCE,
    sentences: draft.sentences,
  };
}

/** Citations of a draft whose sentences carry their sources (the writer's own attribution). */
function sentenceCitations(draft: Draft) {
  return draft.sentences
    .filter((s) => s.sourceUrl)
    .map((s) => ({ claim: s.text, source_url: s.sourceUrl!, quote: null }));
}

/** The newest draft in a checkpoint: after fact checking, else the last optimization pass that revised, else the first. */
function latestDraft(checkpoint: Readonly<Record<string, unknown>>): Draft {
  const check = checkpoint.fact_check as FactCheck | undefined;
  if (check) return check.draft;
  for (let pass = OPTIMIZE_PASS_CAP; pass >= 1; pass--) {
    const out = checkpoint[`optimize_${pass}`] as { draft?: Draft } | undefined;
    if (out?.draft) return out.draft;
  }
  return checkpoint.draft as Draft;
}

export function contentPipelines(engine: Engine): Pipeline[] {
  const { analysis } = engine;
  let writer: ContentWriter | undefined;
  /**
   * The model writer with each call through the writer queue: AGENT_API_WRITER_CONCURRENCY bounds the calls in
   * flight at the provider, not the term analysis, prompt building and parsing around them, which would hold a slot
   * while the provider is idle.
   */
  const limitedWriter = (w: Writer): Writer => ({
    name: w.name,
    complete: (request) => engine.limits.writer.add(() => w.complete(request)),
  });
  /** Chosen on first use so the language model loads only when content work runs. */
  const contentWriter = (): ContentWriter =>
    (writer ??= engine.providers.writer
      ? createLlmContentWriter({ writer: limitedWriter(engine.providers.writer), analyzer: analysis.cachedAnalyzer })
      : createExtractiveWriter({ analyzer: analysis.cachedAnalyzer }));

  async function jobContext(ctx: StepContext | HookContext): Promise<JobContext> {
    const db = 'trx' in ctx ? ctx.trx : ctx.db;
    const row = await db
      .selectFrom('content_jobs')
      .selectAll()
      .where('id', '=', ctx.resourceId)
      .executeTakeFirstOrThrow();
    const client = await getOwnedClient(db, row.org_id, row.client_id);
    return { request: JSON.parse(row.request) as ContentRequest, client: clientContext(client!) };
  }
  const writingInput = async (ctx: StepContext) => ({
    ...(await jobContext(ctx)),
    research: ctx.checkpoint.research as Research,
    idempotencyKey: ctx.idempotencyKey(),
    signal: ctx.signal,
  });

  const researchStep: Step = {
    name: 'research',
    async run(ctx) {
      const { request, client } = await jobContext(ctx);
      return research(engine, analysis, request, client, ctx);
    },
  };
  /**
   * No usable asset: the job fails (and its usage is released) instead of completing with an empty page. The
   * extractive writer is deterministic, so retrying cannot help; a model may do better on the next attempt.
   */
  const nothingToWrite = (what: string, topic: string) =>
    new (contentWriter().name === 'extractive' ? PermanentError : RetryableError)(
      `The research found nothing on "${topic}" to write ${what} from.`,
    );
  const briefStep: Step = {
    name: 'brief',
    async run(ctx) {
      const input = await writingInput(ctx);
      const brief = await contentWriter().brief(input);
      if (brief.outline.length === 0 && !input.request.draftBody) throw nothingToWrite('a brief', input.request.topic);
      return brief;
    },
  };
  const draftStep: Step = {
    name: 'draft',
    async run(ctx): Promise<Draft> {
      const input = await writingInput(ctx);
      if (input.request.draftBody) {
        // A supplied draft is kept as it is: no writing, no charge for writing it.
        return { markdown: input.request.draftBody, wordCount: countWords(input.request.draftBody), sentences: [] };
      }
      const draft = await contentWriter().draft({ ...input, brief: ctx.checkpoint.brief as Brief });
      if (draft.sentences.length === 0) throw nothingToWrite('a draft', input.request.topic);
      return draft;
    },
  };

  const scoreDraft = (draft: Draft, brief: Brief, job: JobContext, res: Research) => {
    const competitors = res.sources.map((s) => analysis.analyze(s.url, s.extraction, job.request.language));
    if (competitors.length === 0) return null;
    return scorePage(
      analysis.analyzer,
      draftAsPage(analysis, draft, brief, job.request, job.client),
      competitors,
      job.request.topic,
      job.request.language,
    );
  };

  const optimizeSteps: Step[] = Array.from({ length: OPTIMIZE_PASS_CAP }, (_, i) => ({
    name: `optimize_${i + 1}`,
    async run(ctx: StepContext) {
      const input = await writingInput(ctx);
      const brief = ctx.checkpoint.brief as Brief;
      const draft = latestDraft(ctx.checkpoint);
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
  }));

  const factCheckStep: Step = {
    name: 'fact_check',
    async run(ctx) {
      const { client } = await jobContext(ctx);
      return factCheck(
        latestDraft(ctx.checkpoint),
        ctx.checkpoint.research as Research,
        client.knowledgeBase,
        countWords,
      );
    },
  };
  const finalizeStep: Step = {
    name: 'finalize',
    async run(ctx) {
      const job = await jobContext(ctx);
      const res = ctx.checkpoint.research as Research;
      const brief = ctx.checkpoint.brief as Brief;
      const check = ctx.checkpoint.fact_check as FactCheck;
      const first = scoreDraft(ctx.checkpoint.draft as Draft, brief, job, res);
      const final = scoreDraft(check.draft, brief, job, res);
      const stats = textStats(
        check.draft.markdown.replace(/\[\d+\]/g, ''),
        job.request.language.split('-')[0]!.toLowerCase(),
      );
      const passes = Array.from(
        { length: OPTIMIZE_PASS_CAP },
        (_, i) => ctx.checkpoint[`optimize_${i + 1}`] as { revised: boolean },
      ).filter((p) => p?.revised).length;
      return {
        word_count: check.draft.wordCount,
        word_count_target: job.request.wordCountTarget,
        within_tolerance:
          Math.abs(check.draft.wordCount - job.request.wordCountTarget) <= job.request.wordCountTarget * WORD_TOLERANCE,
        score_before: first?.rankabilityScore ?? null,
        score_after: final?.rankabilityScore ?? null,
        target_score: TARGET_SCORE,
        optimize_passes: passes,
        readability: {
          flesch_reading_ease: stats.fleschReadingEase === null ? null : Math.round(stats.fleschReadingEase * 10) / 10,
          average_sentence_words: Math.round(stats.avgSentenceWords * 10) / 10,
        },
        claims_checked: check.checked,
        claims_supported: check.supported,
        claims_removed: check.removed,
        removed_claims: check.removedClaims,
        sources: res.sources.length,
        writer: contentWriter().name,
      };
    },
  };

  /** Status and stage a step runs under. */
  const JOB_STAGES: Record<string, [string, string]> = {
    research: ['researching', 'researching'],
    brief: ['researching', 'briefing'],
    draft: ['generating_draft', 'drafting'],
  };
  const autopilotStage = (step: string): [string, string] =>
    step.startsWith('optimize_')
      ? ['generating_draft', 'optimizing']
      : ((
          {
            research: ['researching', 'researching'],
            brief: ['researching', 'briefing'],
            draft: ['generating_draft', 'drafting'],
            fact_check: ['generating_draft', 'fact_checking'],
            finalize: ['generating_draft', 'finalizing'],
          } as Record<string, [string, string]>
        )[step] ?? ['generating_draft', step]);

  async function beforeStep(ctx: HookContext, [status, stage]: [string, string]) {
    const row = await ctx.trx
      .selectFrom('content_jobs')
      .select(['started_at'])
      .where('id', '=', ctx.resourceId)
      .executeTakeFirstOrThrow();
    await updateContentJob(ctx.trx, ctx.resourceId, { status, stage, started_at: row.started_at ?? ctx.now }, ctx.now);
  }

  /** Artifacts each step leaves, shared by both pipelines. */
  async function saveStepArtifacts(ctx: HookContext, step: Step, output: unknown) {
    if (step.name === 'research') {
      await saveArtifacts(
        ctx.trx,
        ctx.resourceId,
        { research: researchSummary(output as Research), writer: contentWriter().name },
        ctx.now,
      );
    } else if (step.name === 'brief') {
      const b = output as Brief;
      await saveArtifacts(
        ctx.trx,
        ctx.resourceId,
        { outline: b.outline, seo_metadata: b.seoMetadata, entities: b.entities, faqs: b.faqs },
        ctx.now,
      );
    } else if (
      step.name === 'draft' ||
      (step.name.startsWith('optimize_') && (output as { revised: boolean }).revised)
    ) {
      const { request, client } = await jobContext(ctx);
      const draft = step.name === 'draft' ? (output as Draft) : (output as { draft: Draft }).draft;
      await saveArtifacts(
        ctx.trx,
        ctx.resourceId,
        { draft: draftArtifact(draft, request, client), citations: sentenceCitations(draft) },
        ctx.now,
      );
      if (step.name !== 'draft') {
        await ctx.trx
          .updateTable('content_jobs')
          .set((eb) => ({ optimize_passes: eb('optimize_passes', '+', 1), updated_at: ctx.now }))
          .where('id', '=', ctx.resourceId)
          .execute();
      }
    } else if (step.name === 'fact_check') {
      const { request, client } = await jobContext(ctx);
      const c = output as FactCheck;
      await saveArtifacts(
        ctx.trx,
        ctx.resourceId,
        { draft: draftArtifact(c.draft, request, client), citations: c.citations },
        ctx.now,
      );
    } else if (step.name === 'finalize') {
      await saveArtifacts(ctx.trx, ctx.resourceId, { review: output }, ctx.now);
    }
  }

  const complete = (kind: 'job' | 'autopilot') => async (ctx: HookContext) => {
    await updateContentJob(
      ctx.trx,
      ctx.resourceId,
      { status: 'completed', stage: kind === 'job' ? 'completed' : 'complete', completed_at: ctx.now },
      ctx.now,
    );
    await engine.usage.chargeOrDefer(ctx.trx, CONTENT_KINDS[kind], ctx.resourceId);
  };
  const fail = (kind: 'job' | 'autopilot') => async (ctx: HookContext, message: string) => {
    await updateContentJob(
      ctx.trx,
      ctx.resourceId,
      { status: 'failed', stage: 'failed', error: message, completed_at: ctx.now },
      ctx.now,
    );
    await engine.usage.release(ctx.trx, CONTENT_KINDS[kind], ctx.resourceId);
  };

  const jobPipeline: Pipeline = {
    kind: CONTENT_KINDS.job,
    steps: [researchStep, briefStep, draftStep],
    beforeStep: (ctx, step) => beforeStep(ctx, JOB_STAGES[step.name] ?? ['researching', step.name]),
    async afterStep(ctx, step, _i, output) {
      await saveStepArtifacts(ctx, step, output);
      if (step.name !== 'brief') return;
      const row = (await ctx.trx
        .selectFrom('content_jobs')
        .select(['mode'])
        .where('id', '=', ctx.resourceId)
        .executeTakeFirstOrThrow()) as Pick<ContentJobRow, 'mode'>;
      if (row.mode === 'stepped') {
        await updateContentJob(ctx.trx, ctx.resourceId, { status: 'brief_ready', stage: 'brief_ready' }, ctx.now);
        return 'pause';
      }
      // Auto mode: the brief is approved automatically.
      await updateContentJob(ctx.trx, ctx.resourceId, { status: 'generating_draft', stage: 'drafting' }, ctx.now);
    },
    onComplete: complete('job'),
    onFail: fail('job'),
  };

  const autopilotPipeline: Pipeline = {
    kind: CONTENT_KINDS.autopilot,
    steps: [researchStep, briefStep, draftStep, ...optimizeSteps, factCheckStep, finalizeStep],
    beforeStep: (ctx, step) => beforeStep(ctx, autopilotStage(step.name)),
    afterStep: async (ctx, step, _i, output) => saveStepArtifacts(ctx, step, output),
    onComplete: complete('autopilot'),
    onFail: fail('autopilot'),
  };

  return [jobPipeline, autopilotPipeline];
}
