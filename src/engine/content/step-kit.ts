import type { Engine } from '../engine.ts';
import { scorePage } from '../analysis/score/index.ts';
import { contentJobById, saveArtifacts } from '../../store/repos/content.ts';
import type { ReadDb } from '../../store/db.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import { PermanentError, RetryableError, type StepContext, type StepDef, type WriteContext } from '../runner/types.ts';
import type { ContentStage } from './states.ts';
import { draftAsPage } from './draft-page.ts';
import { factCheck, type FactCheck } from './fact-check.ts';
import { applyBriefEdits } from './brief-edits.ts';
import { INSUFFICIENT_RESEARCH, RESEARCH_FIX } from './research.ts';
import { clientContext, OPTIMIZE_PASS_CAP } from './service.ts';
import { createExtractiveWriter, countWords } from './extractive/index.ts';
import { createLlmContentWriter } from './llm/index.ts';
import type { Brief, ClientContext, ContentRequest, ContentWriter, Draft, Research } from './types.ts';
import { getOwnedClient } from '../../store/repos/clients.ts';
import type { Writer } from '../../providers/types.ts';
import {
  draftArtifact,
  isSupplied,
  sentenceCitations,
  SUPPLIED_WRITER,
  type ContentOutputs,
} from './draft-artifact.ts';

export interface JobContext {
  request: ContentRequest;
  client: ClientContext;
}

export type Ctx = StepContext<void, ContentOutputs>;
export type WCtx = WriteContext<void, ContentOutputs>;
export type ContentStep<K extends keyof ContentOutputs & string> = StepDef<ContentStage, void, ContentOutputs, K>;

/** The newest draft in a checkpoint: after fact checking, else the last optimization pass that revised, else the first. */
export function latestDraft(ctx: Ctx): Draft {
  const check = ctx.checkpoint.fact_check;
  if (check) return check.draft;
  for (let pass = OPTIMIZE_PASS_CAP; pass >= 1; pass--) {
    const out = ctx.checkpoint[`optimize_${pass}`];
    if (out?.revised) return out.draft;
  }
  return ctx.output('draft');
}

/**
 * What the content steps share, built once per engine: the writer (chosen on first use), the job's request and client,
 * the brief as approved, scoring and fact checking against the research, and the artifacts' writes.
 */
export function createStepKit(engine: Engine) {
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
    return { request: JSON_COLUMNS.content_jobs.request.read(row.request), client: clientContext(client!) };
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

  return {
    engine,
    analysis,
    contentWriter,
    jobContext,
    writingInput,
    briefOf,
    checkFacts,
    claimFigures,
    saveDraft,
    saveBrief,
    nothingToWrite,
    scoreDraft,
  };
}

/** The content steps' shared parts (createStepKit). */
export type StepKit = ReturnType<typeof createStepKit>;
