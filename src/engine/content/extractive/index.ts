/**
 * The extractive ContentWriter (`LLM_PROVIDER=extractive`, the offline default): research drafts assembled from the
 * researched pages by the deterministic algorithm of docs/extractive-writer.md. Every body sentence is quoted from a
 * source section about its heading and cites it (the client's own words carry no marker), no page gives more than
 * MAX_SOURCE_SHARE of the words, and what the sources lack is marked as a research gap; only headings, title and
 * call-to-action lines come from documented templates.
 */
import type { TermAnalyzer } from '../../analysis/terms/types.ts';
import type {
  Brief,
  ClientContext,
  ContentRequest,
  ContentWriter,
  Draft,
  Research,
  SeoMetadata,
  WritingInput,
} from '../types.ts';
import { buildBrief } from './brief.ts';
import { buildContext, isForum, sourcesInLanguage } from './context.ts';
import type { Context } from './context.ts';
import { buildDraft } from './draft.ts';
import { reviseDraft } from './revise.ts';
import { buildSeo, reviseSeoMetadata } from './seo.ts';
import { createSentenceSplitter, rejectReason } from './sentences.ts';
import { readExtraction } from './structure.ts';
import type { DocumentCache } from './terms.ts';
import type { DocumentTerms } from '../../analysis/terms/types.ts';
import { countText, primaryLanguage } from './text.ts';

export { countWords, RESEARCH_GAP } from './text.ts';
export { EXTRACTIVE_NOTE } from './markdown.ts';
export { MAX_SOURCE_SHARE } from './compose.ts';
export { SECTION_MATCH_THRESHOLD, sectionMatch } from './placement.ts';

export const EXTRACTIVE_WRITER_NAME = 'extractive';

export interface ExtractiveWriterDeps {
  analyzer: TermAnalyzer;
  /** Page analyses kept for reuse between a brief, its draft and revisions, keyed by their input (default 64). */
  cacheSize?: number;
}

export interface ExtractiveWriter extends ContentWriter {
  /** The brief's SEO metadata with the keyword restored in title, H1 and meta description where missing. */
  reviseSeo(input: WritingInput & { seo: SeoMetadata }): SeoMetadata;
}

/** Creates the extractive writer; it keeps only a small cache of term analyses (keyed by source content hashes). */
export function createExtractiveWriter(deps: ExtractiveWriterDeps): ExtractiveWriter {
  const size = Math.max(1, deps.cacheSize ?? 64);
  const cached = new Map<string, DocumentTerms>();
  const cache: DocumentCache = (key, compute) => {
    const hit = cached.get(key);
    if (hit) {
      cached.delete(key);
      cached.set(key, hit);
      return hit;
    }
    const value = compute();
    cached.set(key, value);
    if (cached.size > size) cached.delete(cached.keys().next().value as string);
    return value;
  };
  const context = (input: WritingInput): Context => {
    input.signal?.throwIfAborted();
    return buildContext(input, deps.analyzer, cache);
  };
  return {
    name: EXTRACTIVE_WRITER_NAME,
    async brief(input: WritingInput): Promise<Brief> {
      return buildBrief(context(input));
    },
    async draft(input: WritingInput & { brief: Brief }): Promise<Draft> {
      const ctx = context(input);
      const h1 =
        input.brief.seoMetadata.h1 && !ctx.excluded.matches(input.brief.seoMetadata.h1)
          ? input.brief.seoMetadata.h1
          : buildSeo(ctx).h1;
      return buildDraft(ctx, input.brief, h1).draft;
    },
    async revise(input): Promise<Draft> {
      return reviseDraft(context(input), input.brief, input.draft, input.goals);
    },
    reviseSeo(input) {
      return reviseSeoMetadata(input.seo, context(input));
    },
  };
}

/**
 * Words of usable material the research offers (sentences and list items that pass the sentence rules, before
 * de-duplication), so a pipeline can tell a short draft caused by thin sources from a writer fault.
 */
export function availableWords(
  research: Research,
  options: { request?: Pick<ContentRequest, 'language'>; client?: Pick<ClientContext, 'excludedTopics'> } = {},
): number {
  const language = primaryLanguage(options.request?.language ?? 'en');
  const split = createSentenceSplitter(language);
  const excluded = (options.client?.excludedTopics ?? []).map((t) => t.toLowerCase()).filter(Boolean);
  let words = 0;
  for (const s of sourcesInLanguage(research, language)) {
    if (isForum(s)) continue;
    for (const b of readExtraction(s.extraction)) {
      if (b.kind === 'heading' || b.kind === 'raw') continue;
      for (const text of b.kind === 'paragraph' ? split(b.text) : [b.text]) {
        if (excluded.some((t) => text.toLowerCase().includes(t))) continue;
        if (rejectReason(text, { item: b.kind === 'item', foreign: true }) === null) words += countText(text);
      }
    }
  }
  return words + countText(research.imported?.markdown ?? '');
}
