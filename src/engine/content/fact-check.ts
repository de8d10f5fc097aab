import type { Draft, DraftSentence, Research } from './types.ts';

/**
 * Autopilot's fact check (documented in the README): split the draft into sentences, keep the factual claims
 * (numbers, amounts, percentages, years, proper names, superlatives and absolutes), and look for each claim's support
 * in the researched pages: the sentence itself, or a source sentence sharing at least 60% of the claim's content words
 * and every number in it. The cited source is tried first. Supported claims keep a citation (claim, source URL,
 * supporting quote); unsupported ones are removed from the draft.
 */
export interface Citation {
  claim: string;
  source_url: string;
  quote: string;
}

export interface FactCheck {
  draft: Draft;
  citations: Citation[];
  checked: number;
  supported: number;
  removed: number;
  removedClaims: string[];
}

export const SUPPORT_THRESHOLD = 0.6;
const STOP = new Set(
  'a an and are as at be been but by can do does for from has have how if in into is it its may more not of on or our so than that the their them then there these they this to was we were what when which who will with you your'.split(
    ' ',
  ),
);
const ABSOLUTES =
  /\b(best|most|least|largest|smallest|biggest|fastest|cheapest|first|only|always|never|guaranteed|proven|every|all)\b/i;
const CITATION = /\s*\[\d+(?:\s*,\s*\d+)*\]/g;

const numbersOf = (s: string) => s.match(/\d+(?:[.,]\d+)*/g)?.map((n) => n.replace(/,/g, '')) ?? [];
const tokensOf = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t && !STOP.has(t));
const normal = (s: string) => tokensOf(s).join(' ');

/** Sentences of plain text: split at . ! ? followed by space, and at line breaks. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /\p{L}/u.test(s));
}

/** True for sentences that assert something checkable. */
export function isClaim(sentence: string): boolean {
  const s = sentence.replace(CITATION, '').trim();
  if (s.endsWith('?')) return false;
  if (/\d/.test(s) || /[%$€£¥]/.test(s) || ABSOLUTES.test(s)) return true;
  // A capitalised word after the first word is a proper name.
  return s
    .split(/\s+/)
    .slice(1)
    .some((w) => /^\p{Lu}[\p{L}\p{N}'’-]*$/u.test(w.replace(/[,:;)"]+$/, '')) && !/^I$/.test(w));
}

interface SourceSentence {
  url: string;
  text: string;
  norm: string;
  tokens: Set<string>;
  numbers: Set<string>;
}

function sourceIndex(research: Research, knowledgeBase: string | null): SourceSentence[] {
  const out: SourceSentence[] = [];
  const push = (url: string, t: string) =>
    out.push({ url, text: t, norm: normal(t), tokens: new Set(tokensOf(t)), numbers: new Set(numbersOf(t)) });
  const add = (url: string, text: string) => {
    for (const line of text.split('\n')) {
      const sentences = splitSentences(line);
      // A list item or paragraph of several sentences is also kept whole: writers may quote it whole.
      if (sentences.length > 1) push(url, line.trim());
      for (const t of sentences) push(url, t);
    }
  };
  for (const s of research.sources) add(s.url, s.extraction.mainText);
  if (research.imported) add(research.imported.url, research.imported.markdown.replace(/^#+\s*/gm, ''));
  if (knowledgeBase) add('knowledge-base:client', knowledgeBase);
  return out;
}

function support(claim: string, cited: string | null, index: SourceSentence[]): SourceSentence | null {
  const norm = normal(claim);
  const tokens = [...new Set(tokensOf(claim))];
  const numbers = numbersOf(claim);
  const ordered = cited ? [...index.filter((s) => s.url === cited), ...index.filter((s) => s.url !== cited)] : index;
  let best: { s: SourceSentence; score: number } | null = null;
  for (const s of ordered) {
    if (norm && s.norm.includes(norm)) return s;
    if (!numbers.every((n) => s.numbers.has(n)) || tokens.length === 0) continue;
    const score = tokens.filter((t) => s.tokens.has(t)).length / tokens.length;
    if (score >= SUPPORT_THRESHOLD && (!best || score > best.score)) best = { s, score };
  }
  return best?.s ?? null;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The draft's sentences: the writer's list, or (for a supplied draft) the markdown body split into sentences. */
function draftSentences(draft: Draft): DraftSentence[] {
  if (draft.sentences.length) return draft.sentences;
  const out: DraftSentence[] = [];
  let section = '';
  for (const line of draft.markdown.split('\n')) {
    const t = line.trim();
    if (/^##\s+(sources|references)\s*$/i.test(t)) break;
    const h = /^#{1,6}\s+(.*)$/.exec(t);
    if (h) {
      section = h[1]!;
      continue;
    }
    for (const s of splitSentences(t.replace(/^([-*+]|\d+[.)])\s+/, '')))
      out.push({ text: s, section, sourceUrl: null });
  }
  return out;
}

export function factCheck(
  draft: Draft,
  research: Research,
  knowledgeBase: string | null,
  countWords: (markdown: string) => number,
): FactCheck {
  const index = sourceIndex(research, knowledgeBase);
  const citations: Citation[] = [];
  const removedClaims: string[] = [];
  const kept: DraftSentence[] = [];
  let markdown = draft.markdown;
  let checked = 0;
  for (const sentence of draftSentences(draft)) {
    const claim = sentence.text.replace(CITATION, '').trim();
    if (!isClaim(claim)) {
      kept.push(sentence);
      continue;
    }
    checked++;
    const found = support(claim, sentence.sourceUrl, index);
    if (found) {
      citations.push({ claim, source_url: found.url, quote: found.text });
      kept.push(sentence.sourceUrl ? sentence : { ...sentence, sourceUrl: found.url });
    } else {
      removedClaims.push(claim);
      markdown = markdown.replace(new RegExp(`${escapeRe(claim)}(?:\\s*\\[\\d+(?:\\s*,\\s*\\d+)*\\])?\\s?`), '');
    }
  }
  // Lines emptied by removals (a list item or paragraph with nothing left) go too.
  markdown = markdown
    .split('\n')
    .filter((l) => !/^\s*([-*+]|\d+[.)])\s*$/.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
  return {
    draft: { markdown, wordCount: countWords(markdown), sentences: kept },
    citations,
    checked,
    supported: citations.length,
    removed: removedClaims.length,
    removedClaims,
  };
}
