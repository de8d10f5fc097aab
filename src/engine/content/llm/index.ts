/**
 * The LLM-backed ContentWriter (LLM_PROVIDER=openai or anthropic): briefs through one structured-output call,
 * drafts and optimization passes as Markdown with length control, every answer post-filtered for excluded topics
 * and its citations mapped to the researched sources. Prompts: prompts.ts and docs/llm-writer.md.
 */
import type { TermAnalyzer } from '../../analysis/terms/types.ts';
import { ProviderError, type Writer, type WriterRequest } from '../../../providers/types.ts';
import { parseJsonText } from '../../../providers/writer/openai.ts';
import { RetryableError } from '../../runner/types.ts';
import type { Brief, ContentWriter, Draft, WritingInput } from '../types.ts';
import { termTargets } from './digest.ts';
import { excludedMatcher } from './excluded.ts';
import { bodyOf, withinTarget } from './length.ts';
import { finishDraft, type FinishContext } from './markdown.ts';
import { briefPrompt, draftPrompt, lengthFixPrompt, revisePrompt, systemPrompt, type PromptInput } from './prompts.ts';
import { BRIEF_JSON_SCHEMA, BRIEF_SCHEMA_NAME, briefAnswerSchema, normalizeBrief } from './schemas.ts';

export { countWords, lengthWindow, LENGTH_TOLERANCE } from './length.ts';
export { excludedMatcher } from './excluded.ts';
export { languageName } from './guidance.ts';
export { estimateTokens, PROMPT_TOKEN_BUDGET, systemPrompt } from './prompts.ts';

export interface LlmContentWriterOptions {
  writer: Writer;
  analyzer: TermAnalyzer;
  /** Upper bound on output tokens asked for in one call (default 16,000; lower it for models with less). */
  maxOutputTokens?: number;
  /** Sampling temperature; unset by default, since some reasoning models reject it. */
  temperature?: number;
  /** Revision calls when a draft misses its length window (default 2). */
  maxLengthFixes?: number;
}

const BRIEF_TOKENS = 4_096;
// Markdown, citation markers and non-English text cost more than the ~1.35 tokens of an English word.
const TOKENS_PER_WORD = 2;

// The adapters raise these when structured output stays unreadable after their own retry.
const UNREADABLE_OUTPUT = /valid JSON|tool input/;

/** A ContentWriter over any `Writer` (OpenAI-compatible or Anthropic). */
export function createLlmContentWriter(options: LlmContentWriterOptions): ContentWriter {
  const { writer, analyzer, maxOutputTokens = 16_000, temperature, maxLengthFixes = 2 } = options;
  const draftTokens = (target: number) =>
    Math.min(maxOutputTokens, Math.max(2_048, Math.ceil(target * 1.15 * TOKENS_PER_WORD) + 1_024));

  function context(input: WritingInput): { pi: PromptInput; system: string } {
    const pi: PromptInput = {
      request: input.request,
      client: input.client,
      research: input.research,
      mentionsExcluded: excludedMatcher(input.client.excludedTopics),
    };
    return { pi, system: systemPrompt(pi) };
  }

  function call(input: WritingInput, request: Omit<WriterRequest, 'signal' | 'temperature'>) {
    return writer.complete({
      ...request,
      ...(temperature === undefined ? {} : { temperature }),
      ...(input.signal ? { signal: input.signal } : {}),
    });
  }

  function finishContext(input: WritingInput, pi: PromptInput, brief: Brief): FinishContext {
    return {
      sources: input.research.sources,
      h1: brief.seoMetadata.h1,
      language: input.request.language,
      mentionsExcluded: pi.mentionsExcluded,
    };
  }

  /** Asks for up to maxLengthFixes revisions while the draft is outside its window; returns the closest. */
  async function lengthControlled(
    input: WritingInput & { brief: Brief },
    pi: PromptInput,
    system: string,
    first: Draft,
    label: string,
  ): Promise<Draft> {
    const target = input.request.wordCountTarget;
    const distance = (d: Draft) => Math.abs(d.wordCount - target);
    let best = first;
    let current = first;
    for (let i = 1; i <= maxLengthFixes && !withinTarget(current.wordCount, target); i++) {
      const res = await call(input, {
        system,
        prompt: lengthFixPrompt(pi, system, input.brief, bodyOf(current.markdown), current.wordCount),
        maxTokens: draftTokens(target),
        idempotencyKey: `${input.idempotencyKey}:${label}-fix-${i}`,
      });
      current = finishDraft(res.text, finishContext(input, pi, input.brief));
      if (distance(current) <= distance(best)) best = current;
    }
    return best;
  }

  return {
    name: writer.name,

    async brief(input) {
      const { pi, system } = context(input);
      const entities = termTargets(analyzer, input.research, input.request.language, pi.mentionsExcluded);
      let json: unknown;
      try {
        const res = await call(input, {
          system,
          prompt: briefPrompt(pi, system, entities),
          jsonSchema: BRIEF_JSON_SCHEMA,
          schemaName: BRIEF_SCHEMA_NAME,
          maxTokens: Math.min(maxOutputTokens, BRIEF_TOKENS),
          idempotencyKey: `${input.idempotencyKey}:brief`,
        });
        json = res.json ?? parseJsonText(res.text);
      } catch (err) {
        if (err instanceof ProviderError && !err.retryable && UNREADABLE_OUTPUT.test(err.message)) {
          throw new RetryableError(`The ${writer.name} writer returned a brief that could not be read.`, {
            cause: err,
          });
        }
        throw err;
      }
      const parsed = briefAnswerSchema.safeParse(json);
      if (!parsed.success) {
        throw new RetryableError(`The ${writer.name} writer returned a brief that does not match the expected shape.`, {
          cause: parsed.error,
        });
      }
      const normalized = normalizeBrief(parsed.data, {
        topic: input.request.topic,
        sources: input.research.sources,
        mentionsExcluded: pi.mentionsExcluded,
      });
      if (!normalized) throw new RetryableError(`The ${writer.name} writer returned a brief without a usable outline.`);
      return { ...normalized, entities };
    },

    async draft(input) {
      const { pi, system } = context(input);
      const res = await call(input, {
        system,
        prompt: draftPrompt(pi, system, input.brief),
        maxTokens: draftTokens(input.request.wordCountTarget),
        idempotencyKey: `${input.idempotencyKey}:draft`,
      });
      return lengthControlled(input, pi, system, finishDraft(res.text, finishContext(input, pi, input.brief)), 'draft');
    },

    async revise(input) {
      const { pi, system } = context(input);
      const current = { ...input.draft, markdown: bodyOf(input.draft.markdown).trimEnd() };
      const res = await call(input, {
        system,
        prompt: revisePrompt(pi, system, input.brief, current, input.goals),
        maxTokens: draftTokens(input.request.wordCountTarget),
        idempotencyKey: `${input.idempotencyKey}:revise`,
      });
      return lengthControlled(
        input,
        pi,
        system,
        finishDraft(res.text, finishContext(input, pi, input.brief)),
        'revise',
      );
    },
  };
}
