/**
 * The competitor model: everything the formula needs from the competitor pages, compact and JSON-serialisable.
 * A finished optimization saves it, so draft text can be scored later against the same competitors with the same
 * rules (score_content) without keeping the pages. `scorePage` builds it and scores against it, so a run and a later
 * score of the same HTML agree.
 */
import { primaryLanguage } from '../terms/document.ts';
import type { DocumentTerms, EntityStat, TermAnalyzer, TermStat, UsageRange } from '../terms/types.ts';
import { usageRange } from '../terms/competitor-stats.ts';
import { headTerms, type HeadTerms } from './relevance.ts';
import { recommendableTerms, type SiteFacts } from './term-filter.ts';
import { stemEn } from '../words.ts';
import type { AnalyzedPage } from './types.ts';
import { buildModelV3, type ModelV3 } from './v3/model.ts';

/** Terms and entities the coverage checks weigh. */
export const TOP_TERMS = 40;
export const TOP_ENTITIES = 20;
/** Terms the headings check asks for, of those most competitors put in headings. */
export const HEADING_TERMS = 15;

/** A term or entity of the model: what the competitors agree on, measured as a rate per 1,000 words. */
export interface ModelTerm {
  /** Lemma key (terms) or normalised name (entities). */
  key: string;
  /** Stem key: how a page's terms are matched to it (`descaling` meets `descale`). */
  match: string;
  display: string;
  kind: 'term' | 'entity';
  importance: number;
  /** Competitor pages that use it. */
  pages: number;
  /** Competitor pages that put it in a heading or the title. */
  headingPages: number;
  /** Uses per 1,000 words over the pages that use it: p25, median, p75 and the maximum. */
  per1000: UsageRange & { max: number };
  /** A head term of the keyword (or made of them). */
  head: boolean;
}

export interface CompetitorModel {
  keyword: string;
  language: string;
  head: HeadTerms;
  pageCount: number;
  wordCount: UsageRange;
  /** Median H2/H3 count. */
  subheadings: number;
  /** Share of competitors with a list, a table, images, an FAQ. */
  shares: { lists: number; tables: number; images: number; faq: number };
  terms: ModelTerm[];
  entities: ModelTerm[];
  /** Keys (of `terms`) that at least half the competitors put in headings or the title. */
  headingTerms: string[];
  /** What version 3 adds (v3/model.ts); absent from models saved by version 2, which are scored by version 2. */
  v3?: ModelV3;
}

/** The formula version a model is scored with: 3 when it carries version 3's part, else 2. */
export const modelVersion = (m: CompetitorModel): '2' | '3' => (m.v3 ? '3' : '2');

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The stem key of a lemma key: each word stemmed (English) or as it is. */
export function matchKey(key: string, language: string): string {
  return primaryLanguage(language) === 'en'
    ? key
        .split(' ')
        .map((w) => stemEn(w))
        .join(' ')
    : key;
}

export const hasFaq = (p: AnalyzedPage) =>
  p.extraction.structuredData.faq.length > 0 ||
  p.extraction.headings.some((h) => /\b(faq|frequently asked)/i.test(h.text)) ||
  p.extraction.headings.filter((h) => h.text.trim().endsWith('?')).length >= 3;

export const subheadingCount = (p: AnalyzedPage) =>
  p.extraction.headings.filter((h) => h.level === 2 || h.level === 3).length;

function share(pages: readonly AnalyzedPage[], has: (p: AnalyzedPage) => boolean): number {
  return pages.length ? round4(pages.filter(has).length / pages.length) : 0;
}

/** Per document, its term and entity counts by key: built once, looked up for every kept term. */
function countTables(docs: readonly DocumentTerms[]) {
  return docs.map((d) => ({
    terms: new Map(d.terms.map((t) => [t.key, t.count])),
    entities: new Map(d.entities.map((e) => [e.key, e.count])),
    words: d.wordCount,
  }));
}

/**
 * The version a model of pages in `language` is built for: 3 for English; version 3's prose, answer and fact checks
 * read English grammar, so other languages keep version 2.
 */
export const versionFor = (language: string): '2' | '3' => (primaryLanguage(language) === 'en' ? '3' : '2');

/**
 * Builds the model of `competitors` for `keyword` (see docs/scoring.md for the filters and measures), for the
 * language's version (`versionFor`) unless one is asked for.
 */
export function buildCompetitorModel(
  analyzer: TermAnalyzer,
  competitors: readonly AnalyzedPage[],
  keyword: string,
  language: string,
  version: '2' | '3' = versionFor(language),
): CompetitorModel {
  const docs = competitors.map((c) => c.terms);
  const stats = analyzer.analyzeCompetitors(docs);
  const tables = countTables(docs);
  /** Each competitor that uses a key: its index, count and word count. */
  const usesOf = (key: string, entity: boolean) =>
    tables.flatMap((t, doc) => {
      const count = (entity ? t.entities : t.terms).get(key) ?? 0;
      return count > 0 ? [{ doc, count, words: t.words }] : [];
    });
  const head = headTerms(keyword, language);
  const sites: SiteFacts[] = competitors.map((c) => siteFacts(c));
  const headStems = new Set(head.stems);
  const isHead = (key: string) => {
    const words = matchKey(key, language).split(' ');
    return words.every((w) => headStems.has(w));
  };
  const toModel = (s: TermStat | EntityStat, kind: 'term' | 'entity'): ModelTerm => {
    const uses = usesOf(s.key, kind === 'entity');
    const rates = uses.map((u) => (u.words > 0 ? (u.count * 1000) / u.words : 0));
    return {
      key: s.key,
      match: matchKey(s.key, language),
      display: s.display,
      kind,
      importance: s.importance,
      pages: s.pages,
      headingPages: s.headingPages,
      per1000: { ...usageRange(rates), max: round4(rates.length ? Math.max(...rates) : 0) },
      head: isHead(s.key),
    };
  };
  const usedOn = (key: string, entity: boolean) => usesOf(key, entity).map((u) => u.doc);
  const { terms, entities } = recommendableTerms({
    terms: stats.terms,
    entities: stats.entities.filter((e) => e.kind === 'name'),
    sites,
    usedOn,
    language,
    isHead,
  });
  const keptTerms = terms.slice(0, TOP_TERMS).map((t) => toModel(t, 'term'));
  const keptEntities = entities.slice(0, TOP_ENTITIES).map((e) => toModel(e, 'entity'));
  const half = Math.ceil(stats.pageCount / 2);
  return {
    keyword,
    language,
    head,
    pageCount: competitors.length,
    wordCount: usageRange(competitors.map((c) => c.extraction.wordCount)),
    subheadings: usageRange(competitors.map(subheadingCount)).median,
    shares: {
      lists: share(competitors, (p) => p.extraction.lists.length > 0),
      tables: share(competitors, (p) => p.extraction.tables.length > 0),
      images: share(competitors, (p) => p.extraction.images.length > 0),
      faq: share(competitors, hasFaq),
    },
    terms: keptTerms,
    entities: keptEntities,
    headingTerms: terms
      .filter((t) => t.headingPages >= half)
      .slice(0, HEADING_TERMS)
      .map((t) => t.key),
    ...(version === '3' ? { v3: buildModelV3(competitors, [...keptTerms, ...keptEntities]) } : {}),
  };
}

/** What names a competitor's site: its host's registrable label and its own name (og:site_name, title suffix). */
export function siteFacts(page: AnalyzedPage): SiteFacts {
  let host = '';
  try {
    host = new URL(page.url).hostname.toLowerCase();
  } catch {
    host = '';
  }
  const title = page.extraction.title;
  // "Page title | Site name": the last part of a title cut by a separator, when it is short.
  const parts = title.split(/\s+[|·•—–-]\s+/u).map((p) => p.trim());
  const suffix = parts.length >= 2 ? (parts[parts.length - 1] ?? '') : '';
  const names = [page.extraction.siteName, suffix.split(/\s+/).length <= 4 ? suffix : ''].filter((n) => n);
  return { host, names };
}
