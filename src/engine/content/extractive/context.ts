/**
 * Everything the brief, the draft and a revision share, computed once per writing input: the citation list, the
 * usable sentences and list items of every source (the pool), the headings of the research, the competitor terms
 * and the matchers for excluded topics and foreign brands. docs/extractive-writer.md sections 1-3.
 */
import type { TermAnalyzer } from '../../analysis/terms/types.ts';
import type { ClientContext, ContentRequest, Research, ResearchSource } from '../types.ts';
import { anyOf, brandLabel, createSiteMatcher, createTopicMatcher } from './exclusion.ts';
import type { Matcher } from './exclusion.ts';
import { sectionStems } from './placement.ts';
import type { SectionStems } from './placement.ts';
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
  /** Id of the heading occurrence of its source section (the nearest heading above it), -1 before the first. */
  section: number;
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
  /** Texts of the heading occurrences above it, outermost first (level 2 and deeper). */
  parents: string[];
  /** Its section gives no sentences: off topic, reviews, or another business's listing on a service page. */
  dropped: boolean;
  /** An entry of a ranked list page ("3. Lone Star Rooter – Best for coupons"). */
  entry: boolean;
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
  /** Subject stems of every source section (by heading occurrence id), for placement (placement.ts). */
  sections: Map<number, SectionStems>;
  /** The topic's content stems as a set. */
  topicSet: ReadonlySet<string>;
  /** Placement scores already computed: draft heading -> section id -> score. */
  matchCache: Map<string, Map<number, number>>;
  /** A commercial service page. */
  commercial: boolean;
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

// Sections of reviews and testimonials: customers praising the page's business, never the client's.
const TESTIMONIAL_HEADING =
  /\b(?:reviews?|testimonials?|what (?:our |my )?(?:customers|clients|homeowners|people) (?:say|are saying)|customer stories|kind words)\b/i;

// A ranked list entry ("3. Lone Star Rooter – Best for coupons"): on a page of three or more, each is a listing.
const ENTRY = /^\d+[.)]\s/;
// A ranking of businesses rather than products ("7 Best Emergency Plumbers in Austin"): its entries praise third
// parties, which no client's page repeats.
const BUSINESS_LISTING =
  /\b(?:companies|contractors|plumbers|installers|electricians|roofers|providers|businesses|services|pros|technicians|dealers|shops|agencies|firms|builders|cleaners|movers|dentists|lawyers|attorneys)\b/i;

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

/** The citation list: the researched pages, then the imported page and the client's knowledge base when present. */
function citationRefs(
  request: ContentRequest,
  client: ClientContext,
  research: Research,
): { refs: CitationRef[]; importedRef: CitationRef | null; kbRef: CitationRef | null; kb: string } {
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
  return { refs, importedRef, kbRef, kb };
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
  // The research sites' names never appear in a draft, whatever the contract: they would read as the client's. A
  // name the topic itself uses (a review of a manufacturer's product) stays.
  const topicWords = topic.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const topicNames = (label: string): boolean =>
    topicWords.some((_w, i) => [1, 2, 3, 4].some((n) => topicWords.slice(i, i + n).join('') === label));
  const labels = [...new Set(sources.map((s) => labelOf(s.url)).filter((l): l is string => l !== null))].filter(
    (l) => !topicNames(l),
  );
  const banned = anyOf(excluded, createSiteMatcher(labels));
  const bannedFor = (_url: string): Matcher => banned;

  const { refs, importedRef, kbRef, kb } = citationRefs(request, client, research);

  const terms = analyzeTerms(analyzer, sources, request.language, cache);
  // Terms and entities never recommend the research sites' own names, whatever the contract.
  const brands = anyOf(excluded, createSiteMatcher(labels));
  const drop = (t: string): boolean => brands.matches(t) || excluded.partOf?.(t) === true;
  const filtered: TermsResult = {
    pageCount: terms.pageCount,
    terms: terms.terms.filter((t) => !drop(t.display) && !drop(t.key)),
    entities: terms.entities.filter((e) => !drop(e.display) && !drop(e.key)),
  };
  const termIndex = buildTermIndex(filtered.terms, language);
  const split = createSentenceSplitter(language);
  const topicSet = new Set(
    tokenize(topic, language)
      .filter((t) => !t.stop)
      .map((t) => t.stem),
  );
  const state = { units: [] as Unit[], headings: [] as HeadingOcc[], sections: new Map<number, SectionStems>() };
  const doc = (
    ref: CitationRef,
    blocks: Block[],
    foreign: boolean,
    page: { title?: string; research?: boolean; home?: boolean } = {},
  ): { units: Unit[]; headings: HeadingOcc[] } =>
    readDocument(ref, blocks, {
      foreign,
      research: page.research ?? false,
      commercial,
      language,
      split,
      excluded,
      banned: page.research ? banned : excluded,
      state,
      topic: topicSet,
      title: page.title ?? '',
      home: page.home ?? false,
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
    // A page of the client's own site speaks in the client's voice: its first person and offers are the client's.
    const ownSite = clientLabel !== null && brandLabel(s.url) === clientLabel;
    const read = doc(ref, readExtraction(s.extraction), !ownSite, {
      research: true,
      title: `${s.title} ${s.extraction.title} ${s.extraction.h1}`,
      home: isHome(s.url),
    });
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
    sections: state.sections,
    topicSet,
    matchCache: new Map(),
    commercial,
    excluded,
    banned,
    bannedFor,
    hints,
    split,
    style: createStyle(request.tone, client.brandVoice),
  };
}

interface ReadOptions {
  /** Another author's words: the sentence rules of a researched page apply (first person, promotion, ...). */
  foreign: boolean;
  /** A researched page (possibly the client's own site): topicality, listings and brands apply. */
  research: boolean;
  commercial: boolean;
  language: string;
  split: (text: string) => string[];
  excluded: Matcher;
  banned: Matcher;
  state: { units: Unit[]; headings: HeadingOcc[]; sections: Map<number, SectionStems> };
  topic: ReadonlySet<string>;
  /** The page's title and H1, for its topicality. */
  title: string;
  /** A site's home page: its opening is the site's tagline, not an opening about the topic. */
  home: boolean;
}

/** A site's home page (path `/`). */
function isHome(url: string): boolean {
  try {
    return new URL(url).pathname.replace(/\/+$/, '') === '';
  } catch {
    return false;
  }
}

/** Stems of one word family: equal, or sharing a prefix of 5+ letters that is 75% of the shorter (plumber, plumbing). */
function kin(a: string, b: string): boolean {
  if (a === b) return true;
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k += 1;
  return k >= 5 && k >= 0.75 * Math.min(a.length, b.length);
}

/** Share of the topic's stems a text names (or a word of their family). */
function topicCoverage(text: string, topic: ReadonlySet<string>, language: string): number {
  if (topic.size === 0) return 1;
  const stems = [...new Set(tokenize(text, language).map((t) => t.stem))];
  let n = 0;
  for (const t of topic) if (stems.some((x) => kin(x, t))) n += 1;
  return n / topic.size;
}

/** Half the topic's words: what a page title, or else a section, must name to be on topic. */
export const TOPICAL_COVERAGE = 0.5;

/** Turns one document's blocks into units and heading occurrences (appended to the shared state). */
function readDocument(ref: CitationRef, blocks: Block[], o: ReadOptions): { units: Unit[]; headings: HeadingOcc[] } {
  const units: Unit[] = [];
  const headings: HeadingOcc[] = [];
  const stack: HeadingOcc[] = [];
  let faqLevel = 0;
  const last = Math.max(1, blocks.length - 1);
  // Each section's own text (the blocks up to the next heading), for placement and topicality.
  const sectionOf: number[] = [];
  const texts = new Map<number, string[]>();
  let current = -1;
  const entries = blocks.filter((b) => b.kind === 'heading' && b.level >= 2 && ENTRY.test(b.text)).length;
  const listing = o.research && entries >= 3;
  // On a service page every listing is other businesses'; on an article only a ranking of businesses is.
  const dropEntries = listing && (o.commercial || BUSINESS_LISTING.test(o.title));
  // Every heading block becomes a heading occurrence, so the ids to come are known.
  let next = o.state.headings.length;
  blocks.forEach((b, index) => {
    if (b.kind === 'heading') {
      const id = next++;
      if (b.level >= 2) {
        current = id;
        texts.set(current, []);
      }
    } else texts.get(current)?.push(b.text);
    sectionOf[index] = current;
  });
  const pageTopical = !o.research || topicCoverage(o.title, o.topic, o.language) >= TOPICAL_COVERAGE;
  const opening = blocks
    .filter((b, i) => b.kind !== 'heading' && sectionOf[i] === -1)
    .map((b) => b.text)
    .join(' ');
  const openingTopical =
    !o.home && (pageTopical || topicCoverage(`${o.title} ${opening}`, o.topic, o.language) >= TOPICAL_COVERAGE);
  blocks.forEach((b, index) => {
    const position = index / last;
    if (b.kind === 'heading') {
      // Inside an FAQ block, questions at the block's own level stay in it (guessed headings all share one level).
      if (faqLevel && (b.level < faqLevel || (b.level === faqLevel && !/\?\s*$/.test(b.text)))) faqLevel = 0;
      const container = FAQ_CONTAINER.test(b.text);
      if (container && b.level >= 2) faqLevel = b.level;
      while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= b.level) stack.pop();
      const text = b.text.replace(/^(?:step\s*)?\d+[.):]\s+/i, '');
      const parents = stack.map((h) => h.text);
      const id = o.state.headings.length;
      const ownText = (texts.get(id) ?? []).join('\n');
      // A page whose title misses the topic still lends the sections that name it (in their headings or text).
      const topical =
        pageTopical || topicCoverage([...parents, text, ownText].join(' '), o.topic, o.language) >= TOPICAL_COVERAGE;
      const testimonials = TESTIMONIAL_HEADING.test(b.text) || stack.some((h) => TESTIMONIAL_HEADING.test(h.text));
      const entry = dropEntries && (ENTRY.test(b.text) || stack.some((h) => h.entry));
      const h: HeadingOcc = {
        id,
        ref: ref.number,
        url: ref.url,
        text,
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
          // A question speaks for the reader ("How fast can a plumber get to me?"); only its "we" is the author's.
          (o.foreign && (/\?\s*$/.test(b.text) ? /\b(?:we|us|our)\b/i.test(b.text) : firstPerson(b.text))) ||
          !topical ||
          testimonials ||
          entry,
        question: /\?\s*$/.test(b.text),
        following: [],
        parents,
        dropped: !topical || testimonials || entry,
        entry: listing && ENTRY.test(b.text),
      };
      o.state.headings.push(h);
      headings.push(h);
      if (b.level >= 2) {
        stack.push(h);
        o.state.sections.set(id, sectionStems({ headings: [...parents, text], text: ownText }, o.topic, o.language));
      }
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
    // Off-topic sections, reviews and (on a service page) other businesses' listings give no sentences.
    if (owner?.dropped || (!owner && !openingTopical)) return;
    const pieces = b.kind === 'paragraph' ? o.split(b.text) : [b.text];
    for (const text of pieces) {
      const kind = b.kind === 'paragraph' ? 'sentence' : b.kind;
      if (o.excluded.matches(text)) continue;
      if (
        o.research &&
        (rejectReason(text, { item: kind === 'item', foreign: o.foreign, commercial: o.commercial }) !== null ||
          o.banned.matches(text))
      )
        continue;
      if (
        !o.research &&
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
        section: owner?.id ?? -1,
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

/**
 * Drops near-duplicates (stem sets with Jaccard >= 0.6): the imported page is kept whole, knowledge-base units that
 * repeat it go, and research units that repeat anything before them go.
 */
function dedupe(units: Unit[]): Unit[] {
  const kept: Unit[] = [];
  const byStem = new Map<string, number[]>();
  // The imported page comes first so that the client's own page always wins.
  const ordered = [...units.filter((u) => u.origin === 'imported'), ...units.filter((u) => u.origin !== 'imported')];
  for (const u of ordered) {
    if (u.kind === 'raw') {
      kept.push(u);
      continue;
    }
    let dup = false;
    if (u.origin !== 'imported' && u.stems.size > 0) {
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
  return kept.sort((a, b) => a.id - b.id);
}
