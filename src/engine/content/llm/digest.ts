/**
 * What the prompts carry of the research: the competitor term targets (from the term analyzer, never the model) and
 * a bounded digest of each source (number, title, URL, headings and the sentences most relevant to the topic and
 * the term targets), sized to a character budget so the whole prompt stays under its token estimate.
 */
import type { TermAnalyzer } from '../../analysis/terms/types.ts';
import type { BriefEntity, Research, ResearchSource } from '../types.ts';
import { splitSentences } from '../../analysis/sentences.ts';

/** Terms and entities a brief keeps from the analysis. */
export const BRIEF_TERMS = 25;
export const BRIEF_ENTITIES = 15;
/** Below this a source is not worth listing; the prompt may then exceed its budget rather than drop sources. */
const MIN_SOURCE_CHARS = 500;
const MAX_SENTENCE_CHARS = 360;
const MAX_HEADINGS = 12;

/** The brief's entities: what the researched pages agree on, with the per-page range of uses. */
export function termTargets(
  analyzer: TermAnalyzer,
  research: Research,
  language: string,
  mentionsExcluded: (t: string) => boolean,
): BriefEntity[] {
  if (research.sources.length === 0) return [];
  const docs = research.sources.map((s) =>
    analyzer.analyzeDocument({
      text: s.extraction.mainText,
      headings: s.extraction.headings.map((h) => h.text),
      title: s.extraction.title,
      language,
    }),
  );
  const stats = analyzer.analyzeCompetitors(docs, { maxTerms: BRIEF_TERMS * 2, maxEntities: BRIEF_ENTITIES * 2 });
  const range = (r: { p25: number; median: number; p75: number }) => ({ p25: r.p25, median: r.median, p75: r.p75 });
  const terms: BriefEntity[] = stats.terms
    .filter((t) => !mentionsExcluded(t.display))
    .slice(0, BRIEF_TERMS)
    .map((t) => ({ term: t.display, kind: 'term', importance: t.importance, sources: t.pages, range: range(t.count) }));
  const entities: BriefEntity[] = stats.entities
    .filter((e) => !mentionsExcluded(e.display))
    .slice(0, BRIEF_ENTITIES)
    .map((e) => ({
      term: e.display,
      kind: 'entity',
      importance: e.importance,
      sources: e.pages,
      range: range(e.count),
    }));
  return [...terms, ...entities];
}

const fmt = (n: number) => String(Math.round(n * 10) / 10);

/** One line per target: `- "term" (term): used by 4 pages, 2-5 times each (median 3)`. */
export function formatTermTargets(entities: readonly BriefEntity[], limit = 40): string {
  if (entities.length === 0) return 'No term targets (no competitor pages were analysed).';
  return entities
    .slice(0, limit)
    .map((e) => {
      const lo = Math.max(1, Math.floor(e.range.p25));
      const hi = Math.max(lo, Math.ceil(e.range.p75));
      const times = lo === hi ? `${lo} time${lo === 1 ? '' : 's'}` : `${lo}-${hi} times`;
      return `- "${e.term}" (${e.kind}): used by ${e.sources} page${e.sources === 1 ? '' : 's'}, ${times} each (median ${fmt(e.range.median)})`;
    })
    .join('\n');
}

interface Candidate {
  text: string;
  order: number;
  score: number;
}

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Sentences of a source's text, its headings left out (the splitter keeps recent paragraphs' sentences). */
function sourceSentences(source: ResearchSource, language: string): string[] {
  const headingTexts = new Set(source.extraction.headings.map((h) => h.text.trim()));
  const out: string[] = [];
  for (const raw of source.extraction.mainText.split('\n')) {
    const block = raw.trim();
    if (block && !headingTexts.has(block)) out.push(...splitSentences(block, language));
  }
  return out;
}

function candidates(
  source: ResearchSource,
  topicWords: Set<string>,
  terms: readonly string[],
  language: string,
  mentionsExcluded: (t: string) => boolean,
): Candidate[] {
  const out: Candidate[] = [];
  let order = 0;
  for (const sentence of sourceSentences(source, language)) {
    const w = words(sentence);
    if (w.length < 5 || mentionsExcluded(sentence)) continue;
    const lower = sentence.toLowerCase();
    const topicHits = new Set(w.filter((x) => topicWords.has(x))).size;
    const termHits = terms.filter((t) => lower.includes(t)).length;
    const text =
      sentence.length > MAX_SENTENCE_CHARS ? `${sentence.slice(0, MAX_SENTENCE_CHARS - 1).trimEnd()}…` : sentence;
    // Figures are what citations are for; topic words outweigh generic term hits.
    out.push({ text, order: order++, score: 3 * topicHits + termHits + (/\d/.test(sentence) ? 1 : 0) });
  }
  return out;
}

function digest(n: number, source: ResearchSource, budget: number, ctx: DigestContext): string {
  const head = `[${n}] ${source.title || source.extraction.title || source.url}\nURL: ${source.url}`;
  const headings = source.extraction.headings
    .filter((h) => h.level >= 2 && h.level <= 3 && h.text.trim() && !ctx.mentionsExcluded(h.text))
    .slice(0, MAX_HEADINGS)
    .map((h) => h.text.trim().slice(0, 90));
  let headingLine = headings.length ? `Headings: ${headings.join(' | ')}` : '';
  if (headingLine.length > budget / 3) headingLine = `${headingLine.slice(0, Math.floor(budget / 3))}…`;
  let left = budget - head.length - headingLine.length - 20;
  const ranked = candidates(source, ctx.topicWords, ctx.terms, ctx.language, ctx.mentionsExcluded).sort(
    (a, b) => b.score - a.score || a.order - b.order,
  );
  const kept: Candidate[] = [];
  for (const c of ranked) {
    if (c.text.length + 3 > left) continue;
    kept.push(c);
    left -= c.text.length + 3;
  }
  kept.sort((a, b) => a.order - b.order);
  const facts = kept.length
    ? `Key passages:\n${kept.map((c) => `- ${c.text}`).join('\n')}`
    : 'Key passages: none extracted.';
  return [head, headingLine, facts].filter(Boolean).join('\n');
}

interface DigestContext {
  topicWords: Set<string>;
  terms: string[];
  language: string;
  mentionsExcluded: (t: string) => boolean;
}

export interface DigestOptions {
  topic: string;
  /** Term targets, to rank passages by. */
  entities: readonly BriefEntity[];
  language: string;
  /** Characters all digests together may take. */
  budgetChars: number;
  mentionsExcluded: (t: string) => boolean;
}

/** The numbered digests of all sources, sharing `budgetChars` evenly. */
export function formatSources(sources: readonly ResearchSource[], options: DigestOptions): string {
  if (sources.length === 0)
    return 'No research sources are available: write from the knowledge base and general knowledge, and cite nothing.';
  const ctx: DigestContext = {
    topicWords: new Set(words(options.topic).filter((w) => w.length > 2)),
    terms: options.entities.slice(0, 30).map((e) => e.term.toLowerCase()),
    language: options.language,
    mentionsExcluded: options.mentionsExcluded,
  };
  const per = Math.max(MIN_SOURCE_CHARS, Math.floor(options.budgetChars / sources.length));
  return sources.map((s, i) => digest(i + 1, s, per, ctx)).join('\n\n');
}
