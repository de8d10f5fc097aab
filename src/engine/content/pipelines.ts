import type { Engine } from '../engine.ts';
import { SCORING_VERSION, scorePage } from '../analysis/score/index.ts';
import { textStats } from '../analysis/score/readability.ts';
import {
  CONTENT_KINDS,
  contentJobById,
  contentJobStartedAt,
  countOptimizePass,
  saveArtifacts,
  updateContentJob,
} from '../../store/repos/content.ts';
import type { ReadDb } from '../../store/db.ts';
import {
  definePipeline,
  PermanentError,
  RetryableError,
  type Pipeline,
  type StepContext,
  type StepDef,
  type WriteContext,
} from '../runner/types.ts';
import { CONTENT_STAGES, FINAL_STAGE, type ContentStage } from './states.ts';
import { draftAsPage } from './draft-page.ts';
import { factCheck, type FactCheck } from './fact-check.ts';
import { applyBriefEdits } from './brief-edits.ts';
import { INSUFFICIENT_RESEARCH, RESEARCH_FIX, research, researchSummary } from './research.ts';
import { clientContext, OPTIMIZE_PASS_CAP } from './service.ts';
import { createExtractiveWriter, countWords } from './extractive/index.ts';
import { createLlmContentWriter, excludedMatcher } from './llm/index.ts';
import type { Brief, ClientContext, ContentRequest, ContentWriter, Draft, Research } from './types.ts';
import { getOwnedClient } from '../../store/repos/clients.ts';
import type { Writer } from '../../providers/types.ts';

/** The artifacts' writer when the caller supplied the draft (at creation, or when approving the brief). */
export const SUPPLIED_WRITER = 'supplied';

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

/** The draft is the one the caller supplied (at creation, or when approving the brief), not a writer's. */
const isSupplied = (draft: Draft, request: ContentRequest): boolean =>
  request.draftBody !== null && draft.markdown === request.draftBody;

/** The draft as stored in the artifacts: markdown, counts and every sentence with its source. */
export function draftArtifact(draft: Draft, request: ContentRequest, client: Pick<ClientContext, 'excludedTopics'>) {
  const target = request.wordCountTarget;
  return {
    format: 'markdown',
    content: isSupplied(draft, request) ? draft.markdown : hideExcludedTitles(draft.markdown, client.excludedTopics),
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

/** What an Autopilot optimization pass leaves: whether it kept a revision, and the scores around it. */
export type OptimizePass =
  | { revised: false; score: number | null; attempted?: boolean }
  | { revised: true; draft: Draft; scoreBefore: number; score: number };

/**
 * Why the optimization passes stopped: `target_reached` when a pass found the draft at or above the target score,
 * `no_improvement` when a revision did not raise the score (or there was nothing to score against), `pass_cap` when
 * every allowed pass raised the score and it is still below the target.
 */
export function stopReason(
  passes: readonly (OptimizePass | undefined)[],
): 'target_reached' | 'no_improvement' | 'pass_cap' {
  for (const p of passes) {
    if (!p || p.revised) continue;
    if (p.attempted || p.score === null) return 'no_improvement';
    return 'target_reached';
  }
  const last = passes[passes.length - 1];
  return last?.revised && last.score >= TARGET_SCORE ? 'target_reached' : 'pass_cap';
}

/** The review the finalize step writes to the artifacts. */
export type Review = Record<string, unknown>;

/** A draft's Optimize score against the job's researched pages, with what to change, most points first. */
export interface DraftScore {
  rankabilityScore: number;
  categoryScores: Record<string, number>;
  recommendations: { check: string; category: string; label: string; points: number; recommendation: string }[];
  competitorCount: number;
  scoringVersion: string;
  /** A supplied draft's fact check (kept in the artifacts' citations and review, not in the score). */
  factCheck?: { citations: FactCheck['citations']; review: Review };
}

/**
 * The content pipelines' step outputs by step name (a content job runs research, brief and draft; Autopilot all).
 * The checkpoint is a mapped type of these, so every read of an earlier output is typed.
 */
export type ContentOutputs = {
  research: Research;
  brief: Brief;
  draft: Draft;
  score: DraftScore | null;
  [pass: `optimize_${number}`]: OptimizePass;
  fact_check: FactCheck;
  finalize: Review;
};

type Ctx = StepContext<void, ContentOutputs>;
type WCtx = WriteContext<void, ContentOutputs>;
type ContentStep<K extends keyof ContentOutputs & string> = StepDef<ContentStage, void, ContentOutputs, K>;

/** The newest draft in a checkpoint: after fact checking, else the last optimization pass that revised, else the first. */
function latestDraft(ctx: Ctx): Draft {
  const check = ctx.checkpoint.fact_check;
  if (check) return check.draft;
  for (let pass = OPTIMIZE_PASS_CAP; pass >= 1; pass--) {
    const out = ctx.checkpoint[`optimize_${pass}`];
    if (out?.revised) return out.draft;
  }
  return ctx.output('draft');
}

/** The steps and hooks both content pipelines share, built once per engine. */
const shared = new WeakMap<Engine, ReturnType<typeof contentParts>>();

function contentParts(engine: Engine) {
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

  async function jobContext(db: ReadDb, jobId: string): Promise<JobContext> {
    const row = await contentJobById(db, jobId);
    const client = await getOwnedClient(db, row.org_id, row.client_id);
    return { request: JSON.parse(row.request) as ContentRequest, client: clientContext(client!) };
  }
  const writingInput = async (ctx: Ctx) => ({
    ...(await jobContext(ctx.db, ctx.resourceId)),
    research: ctx.output('research'),
    idempotencyKey: ctx.idempotencyKey(),
    signal: ctx.signal,
  });

  /** The brief the draft follows: as written, with the edits its approval made. */
  const briefOf = (ctx: Ctx, request: ContentRequest): Brief =>
    applyBriefEdits(ctx.output('brief'), request.briefEdits);

  /** The fact check of a draft against the job's research and the client's knowledge base. */
  const checkFacts = (draft: Draft, job: JobContext, res: Research) =>
    factCheck(draft, res, job.client, {
      language: job.request.language,
      supplied: isSupplied(draft, job.request),
      countWords,
    });

  /** The review's fact-check figures. */
  const claimFigures = (check: FactCheck) => ({
    claims_checked: check.checked,
    claims_supported: check.supported,
    claims_single_source: check.singleSource,
    claims_removed: check.removed,
    removed_claims: check.removedClaims,
    claims_flagged: check.flagged,
    flagged_claims: check.flaggedClaims,
  });

  /** The draft as the artifacts keep it, with the citations its sentences carry. */
  async function saveDraft(ctx: WCtx, draft: Draft, citations: unknown[] = sentenceCitations(draft)) {
    const { request, client } = await jobContext(ctx.trx, ctx.resourceId);
    // A draft the caller wrote is nobody's quoted research: the artifacts say who wrote it.
    const writer = isSupplied(draft, request) ? { writer: SUPPLIED_WRITER } : {};
    await saveArtifacts(
      ctx.trx,
      ctx.resourceId,
      { draft: draftArtifact(draft, request, client), citations, ...writer },
      ctx.now,
    );
  }

  const research_: ContentStep<'research'> = {
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
  /**
   * No usable asset: the job fails (and its usage is released) instead of completing with an empty page. The
   * extractive writer is deterministic, so retrying cannot help; a model may do better on the next attempt.
   */
  const nothingToWrite = (what: string, topic: string) =>
    contentWriter().name === 'extractive'
      ? new PermanentError(
          `The research pages about "${topic}" hold nothing the offline writer can quote for ${what} (boilerplate, off-topic sections and repeats are left out). ${RESEARCH_FIX}`,
          { code: INSUFFICIENT_RESEARCH },
        )
      : new RetryableError(`The research found nothing on "${topic}" to write ${what} from.`);
  const saveBrief = (ctx: WCtx, b: Brief) =>
    saveArtifacts(
      ctx.trx,
      ctx.resourceId,
      { outline: b.outline, seo_metadata: b.seoMetadata, entities: b.entities, faqs: b.faqs },
      ctx.now,
    );
  const brief: ContentStep<'brief'> = {
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
  const draft: ContentStep<'draft'> = {
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

  /** The draft scored against the researched pages; null when research kept no page to compare with. */
  const score: ContentStep<'score'> = {
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
        scoringVersion: SCORING_VERSION,
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

  const optimizePasses: ContentStep<`optimize_${number}`>[] = Array.from({ length: OPTIMIZE_PASS_CAP }, (_, i) => ({
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

  const factCheckStep: ContentStep<'fact_check'> = {
    name: 'fact_check',
    stage: 'fact_checking',
    transient: true,
    async run(ctx) {
      return checkFacts(latestDraft(ctx), await jobContext(ctx.db, ctx.resourceId), ctx.output('research'));
    },
    persist: (ctx, output) => saveDraft(ctx, output.draft, output.citations),
  };
  const finalize: ContentStep<'finalize'> = {
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

  /** The hooks of a content pipeline: the stage table moves status and stage; the end charges or releases. */
  const hooks = (kind: 'job' | 'autopilot') => ({
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
  });

  return { research: research_, brief, saveBrief, draft, score, optimizePasses, factCheckStep, finalize, hooks };
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
