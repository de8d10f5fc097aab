/**
 * Everything the brief, the draft and a revision share, computed once per writing input: the citation list, the
 * usable sentences and list items of every source (the pool), the headings of the research, the competitor terms
 * and the matchers for excluded topics and foreign brands. docs/extractive-writer.md sections 1-3.
 */
import type { TermAnalyzer } from '../../analysis/terms/types.ts';
import type { ClientContext, ContentRequest, Research, ResearchSource } from '../types.ts';
import { anyOf, brandLabel, createBrandMatcher, createTopicMatcher } from './exclusion.ts';
import type { Matcher } from './exclusion.ts';
import { createSentenceSplitter, firstPerson, rejectReason, startsWithReference } from './sentences.ts';
import { readExtraction, readMarkdown } from './structure.ts';
import type { Block } from './structure.ts';
import { countText, primaryLanguage, shortHash, tokenize } from './text.ts';
import { analyzeTerms, buildTermIndex, matchTerms } from './terms.ts';
import type { DocumentCache, TermIndex, TermsResult } from './terms.ts';
import { createStyle } from './templates.ts';
import type { Style } from './templates.ts';

export type Origin = 'research' | 'imported' | 'knowledge_base';

/** One entry of the draft's numbered Sources list. */
export interface CitationRef {
  number: number;
  url: string;
  title: string;
  origin: Origin;
}

/** A usable sentence or list item of a source (or a raw block of the imported page). */
export interface Unit {
  /** Global order: knowledge base, imported page, then research sources by citation number, then position. */
  id: number;
  ref: number;
  url: string;
  origin: Origin;
  kind: 'sentence' | 'item' | 'raw';
  text: string;
  block: number;
  list: number;
  ordered: boolean;
  /** 0-1: where in its document the unit sits. */
  position: number;
  /** Text of the nearest heading above it (level 2 or deeper), '' before the first one. */
  heading: string;
  /** Ids of the heading occurrences above it (the H2 and the H3 it sits under). */
  headingIds: number[];
  faq: boolean;
  stems: ReadonlySet<string>;
  /** Stems of every word in order, for phrase matching. */
  seq: readonly string[];
  words: number;
  /** Keys of competitor terms the unit contains, and their summed importance (capped at 2). */
  terms: string[];
  termScore: number;
  refersBack: boolean;
  question: boolean;
  /** From a forum thread: kept for FAQ answers only. */
  forum?: boolean;
}

/** A heading of a researched page (or of the imported page). */
export interface HeadingOcc {
  id: number;
  ref: number;
  url: string;
  text: string;
  level: number;
  position: number;
  stems: string[];
  /** Sits inside an FAQ container heading (or is one). */
  faq: boolean;
  /** Boilerplate, excluded topic or foreign brand: kept only to end the previous section. */
  unusable: boolean;
  question: boolean;
  /** The paragraphs right below the heading, for question headings' answers. */
  following: string[];
}

export interface Context {
  request: ContentRequest;
  client: ClientContext;
  language: string;
  topic: string;
  topicStems: string[];
  refs: CitationRef[];
  sources: ResearchSource[];
  units: Unit[];
  headings: HeadingOcc[];
  /** Blocks of the imported page (optimize mode), with their units by block index. */
  imported: { ref: CitationRef; blocks: Block[]; units: Unit[]; headings: HeadingOcc[] } | null;
  terms: TermsResult;
  termIndex: TermIndex;
  /** Excluded topics only. */
  excluded: Matcher;
  /** Excluded topics, and on a service page the brands of the research. */
  banned: Matcher;
  /** What a sentence of one source must not mention: `banned` plus the source's own brand. */
  bannedFor: (url: string) => Matcher;
  hints: ReadonlySet<string>;
  split: (text: string) => string[];
  style: Style;
}

const FAQ_CONTAINER = /\b(?:faqs?|frequently asked|common questions|questions and answers|q ?& ?a)\b/i;
const BOILERPLATE_HEADING =
  /^(?:related|share|comments?|leave a|reply|about the author|about us|table of contents|contents|in this article|sources|references|further reading|newsletter|subscribe|you may also like|more from|tags|categories|recent posts|popular posts|follow|disclaimer|disclosure|advertisement|sponsored|footer|menu|search|contact us|get a quote|call now)\b/i;

/** Forum threads and Q&A pages: conversation, so they give terms and FAQ questions but no body sentences. */
export function isForum(source: ResearchSource): boolean {
  if (
    source.extraction.structuredData.types.some((t) => /^(?:DiscussionForumPosting|QAPage|SocialMediaPosting)$/.test(t))
  )
    return true;
  try {
    const u = new URL(source.url);
    return (
      /^(?:forums?|community|discuss|answers|boards?)\./i.test(u.hostname) ||
      /forum/i.test(u.hostname) ||
      /\/(?:t|threads?|topics?|questions)\//i.test(u.pathname)
    );
  } catch {
    return false;
  }
}

/** The research sources to use: those in the request's language when any are, else all. */
export function sourcesInLanguage(research: Research, language: string): ResearchSource[] {
  const usable = research.sources.filter((s) => !research.imported || s.url !== research.imported.url);
  const same = usable.filter((s) => !s.extraction.lang || primaryLanguage(s.extraction.lang) === language);
  return same.some((s) => s.extraction.lang) ? same : usable;
}

/** Builds the shared context; `analyzer` gives lemma-aware exclusion and the competitor terms. */
export function buildContext(
  input: { request: ContentRequest; client: ClientContext; research: Research },
  analyzer: TermAnalyzer,
  cache: DocumentCache,
): Context {
  const { request, client, research } = input;
  const language = primaryLanguage(request.language);
  const topic = request.topic.trim();
  const excluded = createTopicMatcher(client.excludedTopics ?? [], language, analyzer);
  const sources = sourcesInLanguage(research, language);
  const clientLabel = client.domain
    ? brandLabel(client.domain.includes('//') ? client.domain : `https://${client.domain}`)
    : null;
  const commercial = request.pageContract === 'commercial_service';
  const labelOf = (url: string): string | null => {
    const l = brandLabel(url);
    return l !== null && l !== clientLabel ? l : null;
  };
  const labels = sources.map((s) => labelOf(s.url)).filter((l): l is string => l !== null);
  // Every page drops a source's praise of itself; a service page also never names another business of the research.
  const banned = commercial ? anyOf(excluded, createBrandMatcher(labels)) : excluded;
  const perSource = new Map<string, Matcher>();
  const bannedFor = (url: string): Matcher => {
    let m = perSource.get(url);
    if (!m) {
      const own = labelOf(url);
      m = own && !commercial ? anyOf(banned, createBrandMatcher([own])) : banned;
      perSource.set(url, m);
    }
    return m;
  };

  const refs: CitationRef[] = research.sources.map((s, i) => ({
    number: i + 1,
    url: s.url,
    title: s.title || s.extraction.title || s.url,
    origin: 'research',
  }));
  const importedRef: CitationRef | null =
    request.projectMode === 'optimize' && research.imported
      ? {
          number: refs.length + 1,
          url: research.imported.url,
          title: research.imported.title || research.imported.url,
          origin: 'imported',
        }
      : null;
  if (importedRef) refs.push(importedRef);
  const kb = (client.knowledgeBase ?? '').trim();
  const kbRef: CitationRef | null = kb
    ? {
        number: refs.length + 1,
        url: `knowledge-base:${shortHash(kb)}`,
        title: `${client.name} knowledge base`,
        origin: 'knowledge_base',
      }
    : null;
  if (kbRef) refs.push(kbRef);

  const terms = analyzeTerms(analyzer, sources, request.language, cache);
  // Terms and entities never recommend the research sites' own names, whatever the contract.
  const brands = anyOf(excluded, createBrandMatcher(labels));
  const drop = (t: string): boolean => brands.matches(t) || excluded.partOf?.(t) === true;
  const filtered: TermsResult = {
    pageCount: terms.pageCount,
    terms: terms.terms.filter((t) => !drop(t.display) && !drop(t.key)),
    entities: terms.entities.filter((e) => !drop(e.display) && !drop(e.key)),
  };
  const termIndex = buildTermIndex(filtered.terms, language);
  const split = createSentenceSplitter(language);
  const state = { units: [] as Unit[], headings: [] as HeadingOcc[] };
  const doc = (ref: CitationRef, blocks: Block[], foreign: boolean): { units: Unit[]; headings: HeadingOcc[] } =>
    readDocument(ref, blocks, {
      foreign,
      language,
      split,
      excluded,
      banned: foreign ? bannedFor(ref.url) : excluded,
      state,
    });

  if (kbRef) doc(kbRef, readMarkdown(kb), false);
  let imported: Context['imported'] = null;
  if (importedRef && research.imported) {
    const blocks = readMarkdown(research.imported.markdown);
    const own = doc(importedRef, blocks, false);
    imported = { ref: importedRef, blocks, ...own };
  }
  for (const s of sources) {
    const ref = refs[research.sources.indexOf(s)];
    if (!ref) continue;
    const read = doc(ref, readExtraction(s.extraction), true);
    if (isForum(s)) for (const u of read.units) u.forum = true;
  }
  const units = dedupe(state.units.filter((u) => !u.forum));
  for (const u of units) {
    const m = matchTerms(termIndex, u.text, language);
    u.terms = m.keys;
    u.termScore = m.score;
  }
  const hintText = [request.customInstructions ?? '', request.context ?? ''].join(' ');
  const topicStems = [
    ...new Set(
      tokenize(topic, language)
        .filter((t) => !t.stop)
        .map((t) => t.stem),
    ),
  ];
  const hints = new Set(
    tokenize(hintText, language)
      .filter((t) => !t.stop && !topicStems.includes(t.stem))
      .map((t) => t.stem)
      .slice(0, 60),
  );
  return {
    request,
    client,
    language,
    topic,
    topicStems,
    refs,
    sources,
    units,
    headings: state.headings.filter((h) => refs[h.ref - 1]?.origin === 'research'),
    imported,
    terms: filtered,
    termIndex,
    excluded,
    banned,
    bannedFor,
    hints,
    split,
    style: createStyle(request.tone, client.brandVoice),
  };
}

interface ReadOptions {
  foreign: boolean;
  language: string;
  split: (text: string) => string[];
  excluded: Matcher;
  banned: Matcher;
  state: { units: Unit[]; headings: HeadingOcc[] };
}

/** Turns one document's blocks into units and heading occurrences (appended to the shared state). */
function readDocument(ref: CitationRef, blocks: Block[], o: ReadOptions): { units: Unit[]; headings: HeadingOcc[] } {
  const units: Unit[] = [];
  const headings: HeadingOcc[] = [];
  const stack: HeadingOcc[] = [];
  let faqLevel = 0;
  const last = Math.max(1, blocks.length - 1);
  blocks.forEach((b, index) => {
    const position = index / last;
    if (b.kind === 'heading') {
      // Inside an FAQ block, questions at the block's own level stay in it (guessed headings all share one level).
      if (faqLevel && (b.level < faqLevel || (b.level === faqLevel && !/\?\s*$/.test(b.text)))) faqLevel = 0;
      const container = FAQ_CONTAINER.test(b.text);
      if (container && b.level >= 2) faqLevel = b.level;
      const h: HeadingOcc = {
        id: o.state.headings.length,
        ref: ref.number,
        url: ref.url,
        text: b.text.replace(/^(?:step\s*)?\d+[.):]\s+/i, ''),
        level: b.level,
        position,
        stems: tokenize(b.text, o.language)
          .filter((t) => !t.stop && !/^\d+$/.test(t.lower))
          .map((t) => t.stem),
        faq: container || faqLevel > 0,
        unusable:
          BOILERPLATE_HEADING.test(b.text) ||
          o.banned.matches(b.text) ||
          b.level < 2 ||
          (o.foreign && firstPerson(b.text)),
        question: /\?\s*$/.test(b.text),
        following: [],
      };
      o.state.headings.push(h);
      headings.push(h);
      while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= b.level) stack.pop();
      if (b.level >= 2) stack.push(h);
      return;
    }
    const owner = stack[stack.length - 1];
    if (
      owner &&
      b.kind === 'paragraph' &&
      blocks[index - 1 - owner.following.length]?.kind === 'heading' &&
      owner.following.length < 2
    ) {
      owner.following.push(b.text);
    }
    const texts = b.kind === 'paragraph' ? o.split(b.text) : [b.text];
    for (const text of texts) {
      const kind = b.kind === 'paragraph' ? 'sentence' : b.kind;
      if (o.excluded.matches(text)) continue;
      if (
        o.foreign &&
        (rejectReason(text, { item: kind === 'item', foreign: true }) !== null || o.banned.matches(text))
      )
        continue;
      if (
        !o.foreign &&
        ref.origin === 'knowledge_base' &&
        kind !== 'raw' &&
        rejectReason(text, { item: kind === 'item', foreign: false }) !== null
      )
        continue;
      const toks = tokenize(text, o.language);
      const u: Unit = {
        id: o.state.units.length,
        ref: ref.number,
        url: ref.url,
        origin: ref.origin,
        kind,
        text,
        block: index,
        list: b.list,
        ordered: b.ordered,
        position,
        heading: owner?.text ?? '',
        headingIds: stack.map((h) => h.id),
        faq: faqLevel > 0,
        stems: new Set(toks.filter((t) => !t.stop).map((t) => t.stem)),
        seq: toks.map((t) => t.stem),
        words: countText(text),
        terms: [],
        termScore: 0,
        refersBack: startsWithReference(text),
        question: /\?["”)]?$/.test(text),
      };
      o.state.units.push(u);
      units.push(u);
    }
  });
  return { units, headings };
}

/** Drops research units whose stem set has Jaccard >= 0.6 with an earlier kept unit (own pages are never dropped). */
function dedupe(units: Unit[]): Unit[] {
  const kept: Unit[] = [];
  const byStem = new Map<string, number[]>();
  for (const u of units) {
    if (u.kind === 'raw') {
      kept.push(u);
      continue;
    }
    let dup = false;
    if (u.origin === 'research' && u.stems.size > 0) {
      const shared = new Map<number, number>();
      for (const s of u.stems) for (const k of byStem.get(s) ?? []) shared.set(k, (shared.get(k) ?? 0) + 1);
      for (const [k, n] of shared) {
        const other = kept[k];
        if (other && n / (u.stems.size + other.stems.size - n) >= 0.6) {
          dup = true;
          break;
        }
      }
    }
    if (dup) continue;
    const at = kept.length;
    kept.push(u);
    for (const s of u.stems) {
      const list = byStem.get(s);
      if (list) list.push(at);
      else byStem.set(s, [at]);
    }
  }
  return kept;
}
