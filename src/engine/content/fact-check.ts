/**
 * The fact check (docs/content.md, "Fact check"): the draft's factual claims (numbers, amounts, percentages, years,
 * proper names, superlatives and absolutes) are looked up in the researched pages and the client's knowledge base.
 *
 * Evidence for a claim is a sentence that contains it, or that shares at least SUPPORT_THRESHOLD of its content
 * words and every number in it. A quoted sentence is always found in the page it was quoted from, so that page
 * proves nothing: a claim is
 * - `supported` when the knowledge base backs it, or a page on another site than the one it was quoted from (for a
 *   sentence with no recorded source, when pages on two sites back it);
 * - `single_source` when only one site has it (it stays, cited, and is counted apart);
 * - unsupported otherwise: removed from a writer's draft, or flagged and kept in a draft the caller supplied.
 * The client's own statements (sentences naming the client or its site, or quoted from its knowledge base or its own
 * imported page, which includes its call to action) are never removed, and are not counted as claims.
 */
import { splitSentences } from '../analysis/sentences.ts';
import { stopWordsFor } from '../analysis/terms/stopwords.ts';
import { asMarked, inlinePlain, lex } from '../rendering/markdown.ts';
import type { ClientContext, Draft, DraftSentence, Research } from './types.ts';

export type Support = 'supported' | 'single_source';

export interface Citation {
  claim: string;
  source_url: string;
  quote: string;
  support: Support;
}

export interface FactCheck {
  draft: Draft;
  citations: Citation[];
  checked: number;
  supported: number;
  singleSource: number;
  removed: number;
  removedClaims: string[];
  /** Unsupported claims kept in a supplied draft (never edited). */
  flagged: number;
  flaggedClaims: string[];
}

/** Share of a claim's content words a sentence must have (with every number) to back it. */
export const SUPPORT_THRESHOLD = 0.6;
/** The knowledge base's citation URL. */
export const KNOWLEDGE_BASE_URL = 'knowledge-base:client';

// The English stop words every tokenizer uses (analysis/terms/stopwords.ts).
const STOP = stopWordsFor('en');
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

/** True for sentences that assert something checkable. */
export function isClaim(sentence: string): boolean {
  const s = sentence.replace(CITATION, '').trim();
  if (s.endsWith('?') || s.startsWith('[research gap')) return false;
  if (/\d/.test(s) || /[%$€£¥]/.test(s) || ABSOLUTES.test(s)) return true;
  // A capitalised word after the first word is a proper name.
  return s
    .split(/\s+/)
    .slice(1)
    .some((w) => /^\p{Lu}[\p{L}\p{N}'’-]*$/u.test(w.replace(/[,:;.!?)"”’]+$/, '')) && !/^I$/.test(w));
}

/** The site a URL is on (its host without `www.`), the unit of independent evidence. */
function siteOf(url: string): string {
  if (url === KNOWLEDGE_BASE_URL) return url;
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return url;
  }
}

interface SourceSentence {
  url: string;
  site: string;
  text: string;
  norm: string;
  tokens: Set<string>;
  numbers: Set<string>;
}

function sourceIndex(research: Research, knowledgeBase: string | null, language: string): SourceSentence[] {
  const out: SourceSentence[] = [];
  const push = (url: string, t: string) =>
    out.push({
      url,
      site: siteOf(url),
      text: t,
      norm: normal(t),
      tokens: new Set(tokensOf(t)),
      numbers: new Set(numbersOf(t)),
    });
  const add = (url: string, text: string) => {
    for (const line of text.split('\n')) {
      const sentences = splitSentences(line, language);
      // A list item or paragraph of several sentences is also kept whole: writers may quote it whole.
      if (sentences.length > 1) push(url, line.trim());
      for (const t of sentences) push(url, t);
    }
  };
  for (const s of research.sources) add(s.url, s.extraction.mainText);
  if (knowledgeBase) add(KNOWLEDGE_BASE_URL, knowledgeBase);
  return out;
}

/** Every source sentence that backs the claim, best first. */
function evidence(claim: string, index: readonly SourceSentence[]): SourceSentence[] {
  const norm = normal(claim);
  const tokens = [...new Set(tokensOf(claim))];
  const numbers = numbersOf(claim);
  if (tokens.length === 0) return [];
  const found: { s: SourceSentence; score: number }[] = [];
  for (const s of index) {
    if (norm && s.norm.includes(norm)) {
      found.push({ s, score: 2 });
      continue;
    }
    if (!numbers.every((n) => s.numbers.has(n))) continue;
    const score = tokens.filter((t) => s.tokens.has(t)).length / tokens.length;
    if (score >= SUPPORT_THRESHOLD) found.push({ s, score });
  }
  return found.sort((a, b) => b.score - a.score).map((f) => f.s);
}

/** The client's own statement: it names the client or its site. */
function ownStatement(text: string, client: Pick<ClientContext, 'name' | 'domain'>): boolean {
  const lower = text.toLowerCase();
  const name = client.name.trim().toLowerCase();
  const domain = (client.domain ?? '')
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/.*$/, '');
  return (name.length > 2 && lower.includes(name)) || (domain.length > 3 && lower.includes(domain.toLowerCase()));
}

/** The sentences of a markdown draft with their sections (for a draft whose writer gave no sentence list). */
export function markdownSentences(markdown: string, language = 'en'): DraftSentence[] {
  const out: DraftSentence[] = [];
  let section = '';
  let stop = false;
  const visit = (tokens: ReturnType<typeof lex>) => {
    for (const raw of tokens) {
      if (stop) return;
      const t = asMarked(raw);
      if (t.type === 'heading') {
        section = inlinePlain(t.tokens).trim();
        if (/^(sources|references)$/i.test(section)) stop = true;
      } else if (t.type === 'paragraph' || t.type === 'text') {
        for (const s of splitSentences(inlinePlain(t.tokens ?? []), language))
          out.push({ text: s, section, sourceUrl: null });
      } else if (t.type === 'list') for (const item of t.items) visit(item.tokens);
      else if (t.type === 'blockquote') visit(t.tokens);
    }
  };
  visit(lex(markdown));
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface FactCheckOptions {
  language: string;
  /** The draft was supplied by the caller: unsupported claims are flagged, and the draft is never edited. */
  supplied: boolean;
  countWords: (markdown: string) => number;
}

export function factCheck(
  draft: Draft,
  research: Research,
  client: Pick<ClientContext, 'name' | 'domain' | 'knowledgeBase'>,
  options: FactCheckOptions,
): FactCheck {
  const index = sourceIndex(research, client.knowledgeBase, options.language);
  const importedUrl = research.imported?.url ?? null;
  const citations: Citation[] = [];
  const removedClaims: string[] = [];
  const flaggedClaims: string[] = [];
  const kept: DraftSentence[] = [];
  let markdown = draft.markdown;
  let checked = 0;
  const sentences = draft.sentences.length ? draft.sentences : markdownSentences(draft.markdown, options.language);
  for (const sentence of sentences) {
    const claim = sentence.text.replace(CITATION, '').trim();
    const own =
      // The knowledge base, whatever the writer named it (`knowledge-base:<hash>` for the extractive writer).
      sentence.sourceUrl?.startsWith('knowledge-base:') === true ||
      (importedUrl !== null && sentence.sourceUrl === importedUrl) ||
      ownStatement(claim, client);
    if (own || !isClaim(claim)) {
      kept.push(sentence);
      continue;
    }
    checked++;
    const found = evidence(claim, index);
    const kb = found.find((s) => s.url === KNOWLEDGE_BASE_URL);
    // The page the sentence was quoted from: the writer's attribution, else the page that has it word for word.
    const norm = normal(claim);
    const quotedFrom = sentence.sourceUrl
      ? siteOf(sentence.sourceUrl)
      : (found.find((s) => norm && s.norm.includes(norm))?.site ?? null);
    const elsewhere = found.filter((s) => s.site !== quotedFrom && s.url !== KNOWLEDGE_BASE_URL);
    const sites = new Set(found.map((s) => s.site));
    let cite: { s: SourceSentence; support: Support } | null = null;
    if (kb) cite = { s: kb, support: 'supported' };
    else if (elsewhere.length > 0 && (quotedFrom !== null || sites.size >= 2))
      cite = { s: elsewhere[0]!, support: 'supported' };
    else if (found.length > 0) cite = { s: found[0]!, support: 'single_source' };
    if (cite) {
      citations.push({ claim, source_url: cite.s.url, quote: cite.s.text, support: cite.support });
      kept.push(sentence.sourceUrl ? sentence : { ...sentence, sourceUrl: cite.s.url });
    } else if (options.supplied) {
      flaggedClaims.push(claim);
      kept.push(sentence);
    } else {
      removedClaims.push(claim);
      markdown = markdown.replace(new RegExp(`${escapeRe(claim)}(?:\\s*\\[\\d+(?:\\s*,\\s*\\d+)*\\])?\\s?`), '');
    }
  }
  if (removedClaims.length > 0) {
    // Lines emptied by removals (a list item or paragraph with nothing left) go too.
    markdown = markdown
      .split('\n')
      .filter((l) => !/^\s*([-*+]|\d+[.)])\s*$/.test(l))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n');
  }
  const singleSource = citations.filter((c) => c.support === 'single_source').length;
  return {
    draft:
      removedClaims.length > 0
        ? { markdown, wordCount: options.countWords(markdown), sentences: kept }
        : { ...draft, sentences: draft.sentences.length ? kept : [] },
    citations,
    checked,
    supported: citations.length - singleSource,
    singleSource,
    removed: removedClaims.length,
    removedClaims,
    flagged: flaggedClaims.length,
    flaggedClaims,
  };
}
