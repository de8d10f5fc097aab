/**
 * The artifacts answer shaped for a client (get_content_artifacts): the parts it asked for (`include`), each draft
 * sentence once in the JSON answer, or the draft rendered as one document (`format` markdown or html).
 *
 * Without `include` the answer has every whole part (REST's contract). Over MCP the tool's default `include` is
 * `ASSISTANT_INCLUDE`, what an assistant needs to work on the page, sized for its context: the draft as markdown (its
 * `[n]` markers cite `sources` by id: citations by reference) and the brief in short form (`brief`: the SEO fields,
 * the outline's headings, the FAQ questions and the most important terms). `include` names parts (`all` for every
 * whole one).
 *
 * The JSON answer holds each draft sentence once:
 * - `draft` is the stored draft without `sentences` (every sentence is in `draft.content`, with its source marker).
 * - Each citation row is `{at: [start, end], source_url, quote?}` when its claim occurs literally in `draft.content`
 *   (`draft.content.slice(start, end)` is the claim; offsets count UTF-16 code units, i.e. JavaScript string
 *   indices), and `{claim, source_url, quote?}` when it does not (or when the answer has no draft to point into).
 * - `quote` (the source's words) is present only when the claim does not occur in it word for word (comparing with
 *   whitespace runs collapsed and ends trimmed): a verbatim quote, alone or inside its source passage, is omitted, as
 *   is a null quote. A kept quote that is itself in `draft.content` word for word (another sentence of the draft)
 *   is answered as `quote_at: [start, end]` instead, like `at`. Any other stored citation field (e.g. `support`) is
 *   kept.
 *
 * Nothing stored changes: this only shapes what `artifactsView` read.
 */
import { ApiError } from '../../errors.ts';
import {
  ARTIFACT_PARTS,
  BRIEF_TERMS,
  type ArtifactFormat,
  type ArtifactInclude,
  type ArtifactPart,
} from './artifact-parts.ts';
import type { artifactsView } from './views.ts';
import { writerNotice } from './notice.ts';
import { renderDraftHtml, renderDraftMarkdown, type DraftSource, type FootnoteCitation } from './render-draft.ts';

export { ARTIFACT_PARTS } from './artifact-parts.ts';

/** What an MCP call answers without `include` (the tool's MCP default): the draft and the brief in short form. */
export const ASSISTANT_INCLUDE: readonly ArtifactInclude[] = ['draft', 'brief'];

/** The media type each rendered format answers on REST. */
export const DOCUMENT_MEDIA_TYPES = {
  markdown: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
} as const;

export type FullArtifacts = ReturnType<typeof artifactsView>;

interface StoredCitation {
  claim: string;
  source_url: string;
  quote?: string | null;
  [field: string]: unknown;
}

/** A citation row of the JSON answer: where its claim is in the draft, or the claim itself. */
export type CompactCitation = {
  at?: [number, number];
  claim?: string;
  source_url: string;
  quote?: string;
  quote_at?: [number, number];
} & Record<string, unknown>;

/** A citation located in the draft: the span of its claim, or null when the claim is not in the text word for word. */
export interface LocatedCitation {
  citation: StoredCitation;
  at: [number, number] | null;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The source's words when they differ from the claim, else undefined: a quote that holds the claim word for word
 * (whitespace aside) only says the claim is quoted, and the passage around it would repeat other draft sentences.
 */
export function distinctQuote(c: Pick<StoredCitation, 'claim' | 'quote'>): string | undefined {
  if (typeof c.quote !== 'string' || c.quote.trim() === '') return undefined;
  const claim = squash(c.claim);
  return claim !== '' && squash(c.quote).includes(claim) ? undefined : c.quote;
}

function isCitation(v: unknown): v is StoredCitation {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  return typeof c.claim === 'string' && typeof c.source_url === 'string';
}

/**
 * Finds each citation's claim in the draft text. Citations follow the draft's order, so each search starts where the
 * previous claim ended (a sentence quoted twice maps to its next occurrence) and falls back to the first occurrence.
 */
export function locateCitations(content: string, citations: readonly unknown[]): LocatedCitation[] {
  let cursor = 0;
  return citations.filter(isCitation).map((citation) => {
    const claim = citation.claim;
    if (claim.trim() === '') return { citation, at: null };
    let start = content.indexOf(claim, cursor);
    if (start < 0) start = content.indexOf(claim);
    if (start < 0) return { citation, at: null };
    cursor = start + claim.length;
    return { citation, at: [start, start + claim.length] };
  });
}

function compactCitations(citations: unknown[], content: string | null): CompactCitation[] {
  const located = content === null ? citations.filter(isCitation).map((c) => ({ citation: c, at: null })) : null;
  return (located ?? locateCitations(content!, citations)).map(({ citation, at }) => {
    const { claim, source_url, quote: _quote, ...rest } = citation;
    const quote = distinctQuote(citation);
    const quoteStart = quote === undefined || content === null ? -1 : content.indexOf(quote);
    return {
      ...(at ? { at } : { claim }),
      source_url,
      ...(quote === undefined
        ? {}
        : quoteStart >= 0
          ? { quote_at: [quoteStart, quoteStart + quote.length] }
          : { quote }),
      ...rest,
    };
  });
}

/** The stored draft without its sentence list (each sentence is in `content`). */
function compactDraft(draft: Record<string, unknown>): Record<string, unknown> {
  const { sentences: _sentences, ...rest } = draft;
  return rest;
}

const draftText = (draft: Record<string, unknown> | null): string | null =>
  draft && typeof draft.content === 'string' ? draft.content : null;

/** The brief in short form: the SEO fields, the outline's headings, the FAQ questions, the most important terms. */
export interface ShortBrief {
  title: string | null;
  meta_description: string | null;
  slug: string | null;
  /** Each heading as markdown: `## ` for a section, `### ` for a subsection. */
  outline: string[];
  faqs: string[];
  terms: string[];
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/** The short brief of a job, or null before research has written one. */
export function shortBrief(full: FullArtifacts): ShortBrief | null {
  if (full.outline === null && full.seo_metadata === null && full.faqs === null && full.entities === null) return null;
  const seo = record(full.seo_metadata);
  const terms = (full.entities ?? [])
    .map(record)
    .filter((e) => text(e.term) !== null)
    .sort((a, b) => Number(b.importance ?? 0) - Number(a.importance ?? 0));
  return {
    title: text(seo.title),
    meta_description: text(seo.metaDescription),
    slug: text(seo.slug),
    outline: (full.outline ?? [])
      .map(record)
      .flatMap((s) => (text(s.heading) ? [`${s.level === 3 ? '###' : '##'} ${String(s.heading)}`] : [])),
    faqs: (full.faqs ?? []).map(record).flatMap((f) => (text(f.question) ? [String(f.question)] : [])),
    terms: terms.slice(0, BRIEF_TERMS).map((e) => String(e.term)),
  };
}

/** The parts an `include` list stands for (`all`: every whole part); without one, every whole part. */
function wantedParts(include: readonly ArtifactInclude[] | undefined): Set<ArtifactInclude> {
  const names = include ?? ['all'];
  return new Set(names.flatMap((n) => (n === 'all' ? ARTIFACT_PARTS : [n])));
}

/** The JSON answer: the always-present fields plus the included parts, each draft sentence once. */
export function compactArtifacts(full: FullArtifacts, include?: readonly ArtifactInclude[]) {
  const wanted = wantedParts(include);
  const content = wanted.has('draft') ? draftText(full.draft) : null;
  const parts: Partial<Record<ArtifactPart | 'brief', unknown>> = {};
  if (wanted.has('brief')) parts.brief = shortBrief(full);
  for (const part of ARTIFACT_PARTS) {
    if (!wanted.has(part)) continue;
    if (part === 'draft') parts.draft = full.draft && compactDraft(full.draft);
    else if (part === 'citations') parts.citations = full.citations && compactCitations(full.citations, content);
    else parts[part] = full[part];
  }
  return {
    job_id: full.job_id,
    status: full.status,
    writer: full.writer,
    notice: writerNotice(full.writer),
    ...parts,
    sources: full.sources,
  };
}

/** The draft rendered as one document with its citations as footnotes; 409 while the job has no draft yet. */
export function renderedArtifacts(full: FullArtifacts, format: Exclude<ArtifactFormat, 'json'>) {
  const content = draftText(full.draft);
  if (content === null) {
    throw new ApiError(
      'invalid_state',
      `The job has no draft yet (status ${full.status}): format ${format} renders the draft; ask for format json meanwhile.`,
      { status: full.status },
    );
  }
  const notice = writerNotice(full.writer);
  const input = {
    content,
    citations: locateCitations(content, full.citations ?? []).map(({ citation, at }): FootnoteCitation => ({
      at,
      sourceUrl: citation.source_url,
      quote: distinctQuote(citation),
    })),
    sources: (full.sources ?? []) satisfies DraftSource[],
    notice,
  };
  const markdown = renderDraftMarkdown(input);
  const seoTitle = full.seo_metadata?.title;
  return {
    job_id: full.job_id,
    status: full.status,
    writer: full.writer,
    notice,
    format,
    content:
      format === 'markdown'
        ? markdown
        : renderDraftHtml(markdown, typeof seoTitle === 'string' && seoTitle.trim() ? seoTitle : null),
  };
}

/** The answer for a format: the JSON parts asked for, or the rendered draft. */
export function shapeArtifacts(full: FullArtifacts, format: ArtifactFormat, include?: readonly ArtifactInclude[]) {
  return format === 'json' ? compactArtifacts(full, include) : renderedArtifacts(full, format);
}
