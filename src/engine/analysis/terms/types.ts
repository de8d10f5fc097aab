/**
 * Public shapes of term and entity analysis. Every array is sorted by a documented order and every object is built
 * with a fixed key order, so JSON.stringify of the same input is byte-identical.
 */

/** Heuristic class of a named entity; `other` when no cue decides it (and for dates, amounts and percentages). */
export type EntityType = 'person' | 'organization' | 'place' | 'product' | 'other';

/** Where an entity came from: a proper-noun phrase (`name`) or one of wink's numeric entity labels. */
export type EntityKind = 'name' | 'date' | 'money' | 'percent' | 'duration';

/** How the source page's usage compares with the competitors' range (definitions in competitor-stats.ts). */
export type UsageStatus = 'missing' | 'under' | 'ok' | 'over';

/** Input of `analyzeDocument`; `text` is the page's main text (extract() gives it with headings included). */
export interface DocumentInput {
  text: string;
  headings?: string[];
  title?: string;
  /** BCP 47 tag; the primary subtag picks the pipeline (`en` or absent: wink; anything else: Intl.Segmenter). */
  language?: string;
}

/** One 1-, 2- or 3-word term of a page, keyed by its lemma form. */
export interface DocTerm {
  /** Lemma key: lower-case lemmas joined by one space, e.g. `espresso machine`. */
  key: string;
  /** The most frequent surface form in the body (ties: fewer capitals, then code-unit order). */
  display: string;
  n: 1 | 2 | 3;
  /** Occurrences in `text`. */
  count: number;
  /** Occurrences in `headings`. */
  headingCount: number;
  /** Occurrences in `title`. */
  titleCount: number;
}

/** One named entity (or dated/amount mention) of a page. */
export interface DocEntity {
  /** Lower-case normalised tokens joined by one space (dots and company suffixes such as `Inc.` dropped). */
  key: string;
  display: string;
  type: EntityType;
  kind: EntityKind;
  count: number;
  headingCount: number;
  titleCount: number;
}

/** Result of analysing one page. */
export interface DocumentTerms {
  /** Primary language subtag used (`en` when none was given). */
  language: string;
  /** `wink` for English (POS tags, lemmas); `segmenter` for other languages (identity lemmas). */
  method: 'wink' | 'segmenter';
  /** Words and numbers in `text` (clitics such as `'s` and punctuation excluded). */
  wordCount: number;
  /** Sorted by key (code-unit order). */
  terms: DocTerm[];
  /** Sorted by key (code-unit order). */
  entities: DocEntity[];
}

/** p25, median and p75 with linear interpolation (numpy's default method), rounded to 4 decimals. */
export interface UsageRange {
  p25: number;
  median: number;
  p75: number;
}

/** Fields present on term and entity statistics only when a source page was given. */
export interface SourceUsage {
  sourceCount?: number;
  sourcePer1000?: number;
  /** Occurrences in the source page's headings and title together. */
  sourceHeadingCount?: number;
  status?: UsageStatus;
}

/** A term the competitor set agrees on. */
export interface TermStat extends SourceUsage {
  key: string;
  display: string;
  n: 1 | 2 | 3;
  /** Competitor pages whose text uses the term (document frequency). */
  pages: number;
  /** pages / pageCount. */
  share: number;
  /** Raw count per page, over the pages that use the term. */
  count: UsageRange;
  /** Count per 1,000 words, over the pages that use the term. */
  per1000: UsageRange;
  /** Competitor pages that use the term in a heading or the title. */
  headingPages: number;
  /** 0-1, see `termImportance` in competitor-stats.ts. */
  importance: number;
}

/** An entity the competitor set agrees on. */
export interface EntityStat extends SourceUsage {
  key: string;
  display: string;
  type: EntityType;
  kind: EntityKind;
  pages: number;
  share: number;
  count: UsageRange;
  per1000: UsageRange;
  headingPages: number;
  /** 0-1, see `entityImportance` in competitor-stats.ts. */
  importance: number;
}

/** Tally of statuses, present when a source page was given. */
export interface StatusTally {
  missing: number;
  under: number;
  ok: number;
  over: number;
}

/** What the competitor pages agree on, optionally compared with a source page. */
export interface CompetitorTermStats {
  pageCount: number;
  /** Minimum document frequency a term needed to be kept (2, or 1 when fewer than 3 pages). */
  minPages: number;
  wordCount: UsageRange;
  /** Sorted by importance (desc), then pages (desc), then key (code-unit order). */
  terms: TermStat[];
  entities: EntityStat[];
  source?: { wordCount: number; terms: StatusTally; entities: StatusTally };
}

export interface CompetitorOptions {
  source?: DocumentTerms;
  /** Terms kept after sorting (default 300). */
  maxTerms?: number;
  /** Entities kept after sorting (default 100). */
  maxEntities?: number;
}

/** Term and entity analysis bound to one loaded language model. */
export interface TermAnalyzer {
  analyzeDocument(doc: DocumentInput): DocumentTerms;
  analyzeCompetitors(docs: DocumentTerms[], options?: CompetitorOptions): CompetitorTermStats;
}
