/**
 * What the service understands of one page, for `agent-api inspect`: the extraction, the page type, the language the
 * terms are analysed in, and the terms and names. Each part comes from the engine function the service itself calls,
 * so what is printed is what Optimize would take from the page:
 *
 * - extraction and terms through the engine's analysis service (`analysis.extract`, `analysis.terms`), as
 *   Optimize's fetch step does;
 * - the language: `--language` when given (Optimize analyses every page in the language of its request), else the
 *   page's own (its `lang` attribute or Content-Language meta, primary subtag), else `en`, the analyzer's default;
 * - the weight of a term or name is the `importance` the competitor model gives it (competitor-stats.ts), computed
 *   over this page alone, so terms are ranked the way a brief or a score would rank them. A term that is also a name
 *   is listed once, as the name, as there.
 */
import type { Analysis } from '../../engine/analysis/analysis.ts';
import type { Heading } from '../../engine/analysis/extract/types.ts';
import { classifyPage, type PageType } from '../../engine/analysis/page-type/index.ts';
import { primaryLanguage } from '../../engine/analysis/terms/index.ts';
import type { DocEntity, DocTerm, EntityKind, EntityType } from '../../engine/analysis/terms/types.ts';
import type { LoadedPage } from './inspect-source.ts';

/** Terms and names listed per page unless `--top` says otherwise. */
export const DEFAULT_TOP = 25;

export interface InspectedTerm {
  term: string;
  /** The lemma key the analysis counts by. */
  key: string;
  words: 1 | 2 | 3;
  /** 0-1: the competitor model's importance over this page alone. */
  weight: number;
  count: number;
  headingCount: number;
  titleCount: number;
}

export interface InspectedEntity {
  name: string;
  key: string;
  type: EntityType;
  kind: EntityKind;
  weight: number;
  count: number;
  headingCount: number;
  titleCount: number;
}

/** One inspected page: the `--json` line, and what the human view is printed from. */
export interface InspectedPage {
  input: string;
  source: LoadedPage['source'];
  file: string | null;
  url: string | null;
  finalUrl: string | null;
  status: number | null;
  fetchedAt: string | null;
  pageType: { type: PageType; confidence: number; scores: Record<PageType, number> };
  /** `code` is what the terms were analysed in; `declared` the page's own tag ('' when it has none). */
  language: { code: string; from: 'option' | 'page' | 'default'; declared: string };
  title: string;
  h1: string;
  metaDescription: string;
  canonical: string;
  headings: Heading[];
  wordCount: number;
  mainText: string;
  /** Distinct terms and names (and dates, amounts) the analysis found, before the top ones were taken. */
  found: { terms: number; entities: number };
  terms: InspectedTerm[];
  entities: InspectedEntity[];
}

export interface InspectOptions {
  /** A language tag that overrides the page's own. */
  language?: string;
  top: number;
}

function pickLanguage(declared: string, option: string | undefined): InspectedPage['language'] {
  if (option !== undefined) return { code: primaryLanguage(option), from: 'option', declared };
  const valid = /^[a-z]{2,8}$/i.test(declared.trim().split(/[-_]/)[0] ?? '');
  return { code: primaryLanguage(declared), from: valid ? 'page' : 'default', declared };
}

const byKey = <T extends { key: string }>(items: readonly T[]) => new Map(items.map((i) => [i.key, i]));

const countsOf = (d: DocTerm | DocEntity | undefined) => ({
  count: d?.count ?? 0,
  headingCount: d?.headingCount ?? 0,
  titleCount: d?.titleCount ?? 0,
});

/** Extracts, classifies and analyses one loaded page. */
export function inspectPage(page: LoadedPage, analysis: Analysis, options: InspectOptions): InspectedPage {
  const extraction = analysis.extract(page.html, page.finalUrl ?? '');
  const { type, confidence, scores } = classifyPage(extraction);
  const language = pickLanguage(extraction.lang, options.language);
  const doc = analysis.terms(extraction, language.code);
  // The service's defaults (300 terms, 100 names) first, so a term is folded into a name exactly as there.
  const model = analysis.cachedAnalyzer.analyzeCompetitors([doc]);
  const docTerms = byKey(doc.terms);
  const docEntities = byKey(doc.entities);
  return {
    input: page.input,
    source: page.source,
    file: page.file,
    url: page.url,
    finalUrl: page.finalUrl,
    status: page.status,
    fetchedAt: page.fetchedAt,
    pageType: { type, confidence, scores },
    language,
    title: extraction.title,
    h1: extraction.h1,
    metaDescription: extraction.metaDescription,
    canonical: extraction.canonical,
    headings: extraction.headings,
    wordCount: extraction.wordCount,
    mainText: extraction.mainText,
    found: { terms: doc.terms.length, entities: doc.entities.length },
    terms: model.terms.slice(0, options.top).map((t) => ({
      term: t.display,
      key: t.key,
      words: t.n,
      weight: t.importance,
      ...countsOf(docTerms.get(t.key)),
    })),
    entities: model.entities.slice(0, options.top).map((e) => ({
      name: e.display,
      key: e.key,
      type: e.type,
      kind: e.kind,
      weight: e.importance,
      ...countsOf(docEntities.get(e.key)),
    })),
  };
}
