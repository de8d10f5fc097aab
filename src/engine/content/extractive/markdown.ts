/**
 * Rendering a draft model to markdown (docs/extractive-writer.md section 9): `# h1`, the opening, one `##` per
 * section, the FAQ block, and the numbered `## Sources` list; every sentence and list item ends with the citation
 * marker of its source (` [n]`), and the draft lists each sentence with its source and section.
 */
import type { Draft, DraftSentence } from '../types.ts';
import type { CitationRef } from './context.ts';
import { countWords } from './text.ts';

/**
 * One piece of a section: a sentence, a list item, an imported sub-heading or raw block, or a research-gap note
 * (rendered as its own paragraph, not counted as words and not listed in `draft.sentences`).
 */
export interface Piece {
  kind: 'sentence' | 'item' | 'heading' | 'raw' | 'note';
  text: string;
  /** Citation number shown after it, or null: template lines, the client's own words, imported headings, notes. */
  ref: number | null;
  /** Where the text comes from, for `draft.sentences` (null: a template line); by default the cited source's URL. */
  url?: string | null;
  /** Pieces of one source paragraph or list share a group. */
  group: string;
  ordered?: boolean;
  level?: number;
}

export interface FaqBlock {
  question: string;
  answer: Piece[];
}

export interface DraftSectionModel {
  /** Null for the opening (rendered without a heading). */
  heading: string | null;
  /** The section name recorded on its sentences. */
  name: string;
  pieces: Piece[];
  faqs?: FaqBlock[];
  /** Keep the source's paragraphs exactly (the imported page). */
  exact?: boolean;
}

export interface DraftModel {
  h1: string;
  sections: DraftSectionModel[];
  refs: CitationRef[];
}

/** The label at the end of every extractive draft (inside the Sources section, so it is not counted). */
export const EXTRACTIVE_NOTE =
  '_Extractive draft: every cited sentence is quoted from the source it cites, uncited ones are the client’s own, and research-gap notes mark what the sources lack; headings, title and call to action follow documented templates._';

const marker = (p: Piece): string => (p.ref === null ? '' : ` [${p.ref}]`);

function linkTarget(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, encodeURIComponent)}>` : url;
}

function renderPieces(pieces: readonly Piece[], exact: boolean, out: string[]): void {
  // A numbered list needs two or more of its items here: a lone step of someone's sequence is a plain bullet.
  const counts = new Map<string, number>();
  for (const p of pieces) if (p.kind === 'item') counts.set(p.group, (counts.get(p.group) ?? 0) + 1);
  let para: string[] = [];
  let paraRef: number | null = null;
  let paraGroup = '';
  let listGroup = '';
  let number = 0;
  const flush = (): void => {
    if (para.length > 0) out.push(para.join(' '), '');
    para = [];
  };
  const endList = (): void => {
    if (listGroup) out.push('');
    listGroup = '';
  };
  for (const p of pieces) {
    if (p.kind === 'sentence') {
      endList();
      const groupChanged = p.group !== paraGroup;
      if (
        para.length > 0 &&
        ((exact && groupChanged) || p.ref !== paraRef || para.length >= 3 || (groupChanged && para.length >= 2))
      )
        flush();
      para.push(`${p.text}${marker(p)}`);
      paraRef = p.ref;
      paraGroup = p.group;
      continue;
    }
    flush();
    if (p.kind === 'item') {
      if (p.group !== listGroup) {
        endList();
        listGroup = p.group;
        number = 0;
      }
      number += 1;
      out.push(`${p.ordered && (counts.get(p.group) ?? 0) > 1 ? `${number}.` : '-'} ${p.text}${marker(p)}`);
      continue;
    }
    endList();
    if (p.kind === 'note') out.push(p.text, '');
    else if (p.kind === 'heading') out.push(`${'#'.repeat(Math.min(6, Math.max(3, p.level ?? 3)))} ${p.text}`, '');
    else out.push(p.text, '');
  }
  flush();
  endList();
}

/** Renders the model: markdown, word count (countWords) and the sentence list. */
export function renderDraft(model: DraftModel): Draft {
  const out: string[] = [`# ${model.h1}`, ''];
  const sentences: DraftSentence[] = [];
  const record = (pieces: readonly Piece[], name: string, urls: Map<number, string>): void => {
    for (const p of pieces) {
      if (p.kind === 'sentence' || p.kind === 'item')
        sentences.push({
          text: p.text,
          section: name,
          sourceUrl: p.url !== undefined ? p.url : p.ref === null ? null : (urls.get(p.ref) ?? null),
        });
    }
  };
  const urls = new Map(model.refs.map((r) => [r.number, r.url]));
  for (const s of model.sections) {
    const hasBody = s.pieces.length > 0 || (s.faqs?.length ?? 0) > 0;
    if (!hasBody) continue;
    if (s.heading !== null) out.push(`## ${s.heading}`, '');
    renderPieces(s.pieces, s.exact ?? false, out);
    record(s.pieces, s.name, urls);
    for (const f of s.faqs ?? []) {
      out.push(`### ${f.question}`, '');
      renderPieces(f.answer, false, out);
      record(f.answer, s.name, urls);
    }
  }
  out.push('## Sources', '');
  for (const r of model.refs) out.push(`${r.number}. [${r.title.replace(/[[\]]/g, '')}](${linkTarget(r.url)})`);
  out.push('', EXTRACTIVE_NOTE, '');
  const markdown = `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
  return { markdown, wordCount: countWords(markdown), sentences };
}
