/**
 * Competitor terms for the brief and for scoring sentences: the term analyzer's statistics over the research pages,
 * and an index that finds those terms (by stem sequence) in any sentence.
 */
import { createHash } from 'node:crypto';
import type { DocumentTerms, EntityStat, TermAnalyzer, TermStat } from '../../analysis/terms/types.ts';
import type { BriefEntity, ResearchSource } from '../types.ts';
import { tokenize } from './text.ts';

export interface TermsResult {
  pageCount: number;
  terms: TermStat[];
  entities: EntityStat[];
}

export interface TermIndex {
  language: string;
  /** First stem -> terms starting with it (stems, key, importance). */
  byFirst: Map<string, { stems: string[]; key: string; importance: number }[]>;
}

/** Terms used to score sentences: the most important ones. */
export const INDEXED_TERMS = 150;

/** Memoises one page's analysis by a key derived from the analyser's input. */
export type DocumentCache = (key: string, compute: () => DocumentTerms) => DocumentTerms;

/** Runs the analyzer over the research pages (main text, headings, title) and the competitor statistics. */
export function analyzeTerms(
  analyzer: TermAnalyzer,
  sources: readonly ResearchSource[],
  language: string,
  cache: DocumentCache = (_k, f) => f(),
): TermsResult {
  const docs = sources.map((s) => {
    const input = {
      text: s.extraction.mainText,
      headings: s.extraction.headings.map((h) => h.text),
      title: s.extraction.title || s.title,
      language,
    };
    // Keyed by what is analysed, not by the page's hash: the same body read by another extractor is another input.
    return cache(createHash('sha256').update(JSON.stringify(input)).digest('base64'), () =>
      analyzer.analyzeDocument(input),
    );
  });
  if (docs.length === 0) return { pageCount: 0, terms: [], entities: [] };
  const stats = analyzer.analyzeCompetitors(docs, { maxTerms: 300, maxEntities: 100 });
  return { pageCount: stats.pageCount, terms: stats.terms, entities: stats.entities };
}

/** Indexes the first INDEXED_TERMS terms by their first stem. */
export function buildTermIndex(terms: readonly TermStat[], language: string): TermIndex {
  const byFirst: TermIndex['byFirst'] = new Map();
  for (const t of terms.slice(0, INDEXED_TERMS)) {
    const stems = tokenize(t.key, language).map((x) => x.stem);
    const first = stems[0];
    if (first === undefined) continue;
    const list = byFirst.get(first);
    const entry = { stems, key: t.key, importance: t.importance };
    if (list) list.push(entry);
    else byFirst.set(first, [entry]);
  }
  return { language, byFirst };
}

/** Indexed terms a text contains (keys in first-seen order) and their summed importance, capped at 2. */
export function matchTerms(
  index: TermIndex,
  text: string,
  language = index.language,
): { keys: string[]; score: number } {
  const stems = tokenize(text, language).map((t) => t.stem);
  const keys: string[] = [];
  let score = 0;
  for (let i = 0; i < stems.length; i += 1) {
    for (const term of index.byFirst.get(stems[i] ?? '') ?? []) {
      let k = 1;
      while (k < term.stems.length && stems[i + k] === term.stems[k]) k += 1;
      if (k === term.stems.length && !keys.includes(term.key)) {
        keys.push(term.key);
        score += term.importance;
      }
    }
  }
  return { keys, score: Math.min(2, score) };
}

/** True when the stems of `phrase` occur as a run in `text`. */
export function containsPhrase(text: string, phrase: string, language: string): boolean {
  const want = tokenize(phrase, language).map((t) => t.stem);
  if (want.length === 0) return false;
  const have = tokenize(text, language).map((t) => t.stem);
  for (let i = 0; i + want.length <= have.length; i += 1) {
    let k = 0;
    while (k < want.length && have[i + k] === want[k]) k += 1;
    if (k === want.length) return true;
  }
  return false;
}

/** The brief's entities: the top `terms` terms and top `entities` entities, with their usage ranges. */
export function briefEntities(result: TermsResult, terms = 25, entities = 15): BriefEntity[] {
  const round = (x: number): number => Math.round(x * 10000) / 10000;
  return [
    ...result.terms.slice(0, terms).map((t) => ({
      term: t.display,
      kind: 'term' as const,
      importance: round(t.importance),
      sources: t.pages,
      range: { p25: t.count.p25, median: t.count.median, p75: t.count.p75 },
    })),
    ...result.entities.slice(0, entities).map((e) => ({
      term: e.display,
      kind: 'entity' as const,
      importance: round(e.importance),
      sources: e.pages,
      range: { p25: e.count.p25, median: e.count.median, p75: e.count.p75 },
    })),
  ];
}
