/**
 * What a set of competitor pages agrees on: per term and entity, how many pages use it, the range of usage among
 * the pages that do, heading use, an importance weight, and optionally how a source page compares.
 *
 * Definitions (all deterministic; the output does not depend on the order of `docs`):
 * - A page uses a term when the term occurs in its text (count > 0). `pages` is that document frequency, `share` is
 *   pages / pageCount, and a term is kept when pages >= 2 (>= 1 when there are fewer than 3 pages).
 * - `count` and `per1000` are p25/median/p75 over the pages that use the term of the raw count and of
 *   count * 1000 / wordCount. Percentiles interpolate linearly between order statistics, numpy's default: for sorted
 *   x of length n, h = (n - 1) * p, result = x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).
 *   Every emitted number is rounded to 4 decimals, and statuses are computed from the rounded numbers.
 * - `headingPages` counts pages with the term in a heading or the title.
 * - Term importance = L * S * (0.65 * share + 0.20 * headingShare + 0.15 * min(1, median count / 5)), where
 *   headingShare = headingPages / pageCount, L = 0.85 for single words and 1 for 2- and 3-word terms (a phrase
 *   is more specific than its words), and S = `specificity` of the key and its display (frequency.ts: 0.25-1 from
 *   the SUBTLEX-US word frequencies of the words as lemmatised or as written, whichever is commoner, applied when
 *   most pages are English, else 1): a TF-IDF-like discount against a background of generic English.
 * - A term that is also a name (same key once each word is lower-cased and singular: `solar panels` the name and
 *   `solar panel` the term) is the name: the term is dropped, so a brief never lists it twice.
 * - Entity importance = K * (0.70 * share + 0.20 * headingShare + 0.10 * min(1, median count / 5)) with K = 1 for
 *   names and 0.5 for dates, amounts, percentages and durations.
 * - Source status (source count = occurrences in its text; heading count = headings + title):
 *   `missing` when count + heading count = 0; else `under` when count < count.p25 or per1000 < per1000.p25; else
 *   `over` when per1000 > 1.5 * per1000.p75 and count > count.p75 + 2 (density well above the range and more than
 *   two extra uses, so short pages are not flagged for one extra mention); else `ok`.
 * - Order: importance descending, then pages descending, then key in code-unit order.
 */
import { specificity } from './frequency.ts';
import { pickDisplay } from './ngrams.ts';
import { compareStrings } from './tokens.ts';
import { winningType } from './entities.ts';
import type {
  CompetitorOptions,
  CompetitorTermStats,
  DocEntity,
  DocTerm,
  DocumentTerms,
  EntityKind,
  EntityStat,
  EntityType,
  SourceUsage,
  StatusTally,
  TermStat,
  UsageRange,
  UsageStatus,
} from './types.ts';

export const DEFAULT_MAX_TERMS = 300;
export const DEFAULT_MAX_ENTITIES = 100;

/** Percentile of ascending `sorted` with linear interpolation (numpy's default); 0 for an empty list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const h = (sorted.length - 1) * Math.min(1, Math.max(0, p));
  const lo = Math.floor(h);
  const a = sorted[lo] ?? 0;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a;
  return a + (h - lo) * (b - a);
}

/** Rounds to 4 decimals, the precision of every emitted statistic. */
export function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/** p25, median and p75 of `values` (any order), rounded. */
export function usageRange(values: readonly number[]): UsageRange {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p25: round4(percentile(sorted, 0.25)),
    median: round4(percentile(sorted, 0.5)),
    p75: round4(percentile(sorted, 0.75)),
  };
}

/** The source page's status for one term or entity (definition in the module comment). */
export function usageStatus(
  source: { count: number; per1000: number; headingCount: number },
  count: UsageRange,
  per1000: UsageRange,
): UsageStatus {
  if (source.count + source.headingCount === 0) return 'missing';
  if (source.count < count.p25 || source.per1000 < per1000.p25) return 'under';
  if (source.per1000 > per1000.p75 * 1.5 && source.count > count.p75 + 2) return 'over';
  return 'ok';
}

interface Usage {
  counts: number[];
  densities: number[];
  headingPages: number;
  forms: Map<string, number>;
  votes: Map<string, number>;
}

interface Item {
  key: string;
  display: string;
  count: number;
  headingCount: number;
  titleCount: number;
}

// Two passes: most terms occur on one page only, so usage arrays and vote maps are built only for the keys that
// reach `minPages`.
function aggregate<T extends Item>(
  docs: readonly DocumentTerms[],
  itemsOf: (d: DocumentTerms) => readonly T[],
  voteOf: (item: T) => string,
  minPages: number,
): Map<string, Usage> {
  const pages = new Map<string, number>();
  for (const doc of docs) {
    for (const item of itemsOf(doc)) if (item.count > 0) pages.set(item.key, (pages.get(item.key) ?? 0) + 1);
  }
  const table = new Map<string, Usage>();
  for (const doc of docs) {
    const factor = doc.wordCount > 0 ? 1000 / doc.wordCount : 0;
    for (const item of itemsOf(doc)) {
      if ((pages.get(item.key) ?? 0) < minPages) continue;
      let u = table.get(item.key);
      if (!u) {
        u = { counts: [], densities: [], headingPages: 0, forms: new Map(), votes: new Map() };
        table.set(item.key, u);
      }
      if (item.headingCount + item.titleCount > 0) u.headingPages += 1;
      if (item.count <= 0) continue;
      const vote = voteOf(item);
      u.counts.push(item.count);
      u.densities.push(item.count * factor);
      u.forms.set(item.display, (u.forms.get(item.display) ?? 0) + item.count);
      u.votes.set(vote, (u.votes.get(vote) ?? 0) + item.count);
    }
  }
  return table;
}

function topVote(votes: ReadonlyMap<string, number>): string {
  let best = '';
  let bestVotes = -1;
  for (const [vote, n] of votes) {
    if (n > bestVotes || (n === bestVotes && compareStrings(vote, best) < 0)) {
      best = vote;
      bestVotes = n;
    }
  }
  return best;
}

function sourceFields(
  source: DocumentTerms | undefined,
  lookup: ReadonlyMap<string, Item>,
  key: string,
  count: UsageRange,
  per1000: UsageRange,
): SourceUsage {
  if (!source) return {};
  const item = lookup.get(key);
  const usage = {
    count: item?.count ?? 0,
    per1000: source.wordCount > 0 ? round4(((item?.count ?? 0) * 1000) / source.wordCount) : 0,
    headingCount: (item?.headingCount ?? 0) + (item?.titleCount ?? 0),
  };
  return {
    sourceCount: usage.count,
    sourcePer1000: usage.per1000,
    sourceHeadingCount: usage.headingCount,
    status: usageStatus(usage, count, per1000),
  };
}

function byImportance(a: { importance: number; pages: number; key: string }, b: typeof a): number {
  return b.importance - a.importance || b.pages - a.pages || compareStrings(a.key, b.key);
}

function tally(stats: readonly SourceUsage[]): StatusTally {
  const t: StatusTally = { missing: 0, under: 0, ok: 0, over: 0 };
  for (const s of stats) if (s.status) t[s.status] += 1;
  return t;
}

const termVote = (t: DocTerm): string => String(t.n);
const entityVote = (e: DocEntity): string => `${e.kind}:${e.type}`;

/** Aggregates competitor pages into the terms and entities they agree on (see the module comment). */
export function computeCompetitorStats(
  docs: readonly DocumentTerms[],
  options: CompetitorOptions = {},
): CompetitorTermStats {
  const pageCount = docs.length;
  const minPages = pageCount >= 3 ? 2 : 1;
  const english = docs.filter((d) => d.language === 'en').length * 2 > pageCount;
  const { source } = options;
  const sourceTerms = new Map<string, Item>(source ? source.terms.map((t) => [t.key, t]) : []);
  const sourceEntities = new Map<string, Item>(source ? source.entities.map((e) => [e.key, e]) : []);

  const terms: TermStat[] = [];
  for (const [key, u] of aggregate(docs, (d) => d.terms, termVote, minPages)) {
    if (u.counts.length === 0) continue;
    const n = Number(topVote(u.votes)) as 1 | 2 | 3;
    const count = usageRange(u.counts);
    const per1000 = usageRange(u.densities);
    const share = u.counts.length / pageCount;
    const display = pickDisplay(u.forms) ?? key;
    const weight = english ? specificity(key, display) : 1;
    const base = 0.65 * share + 0.2 * (u.headingPages / pageCount) + 0.15 * Math.min(1, count.median / 5);
    terms.push({
      key,
      display,
      n,
      pages: u.counts.length,
      share: round4(share),
      count,
      per1000,
      headingPages: u.headingPages,
      importance: round4((n === 1 ? 0.85 : 1) * weight * base),
      ...sourceFields(source, sourceTerms, key, count, per1000),
    });
  }

  const entities: EntityStat[] = [];
  for (const [key, u] of aggregate(docs, (d) => d.entities, entityVote, minPages)) {
    if (u.counts.length === 0) continue;
    const { kind, type } = decideEntityType(u.votes);
    const count = usageRange(u.counts);
    const per1000 = usageRange(u.densities);
    const share = u.counts.length / pageCount;
    const base = 0.7 * share + 0.2 * (u.headingPages / pageCount) + 0.1 * Math.min(1, count.median / 5);
    entities.push({
      key,
      display: pickDisplay(u.forms) ?? key,
      type,
      kind,
      pages: u.counts.length,
      share: round4(share),
      count,
      per1000,
      headingPages: u.headingPages,
      importance: round4((kind === 'name' ? 1 : 0.5) * base),
      ...sourceFields(source, sourceEntities, key, count, per1000),
    });
  }

  terms.sort(byImportance);
  entities.sort(byImportance);
  const keptEntities = entities.slice(0, Math.max(0, options.maxEntities ?? DEFAULT_MAX_ENTITIES));
  const names = new Set(keptEntities.filter((e) => e.kind === 'name').map((e) => singularKey(e.key)));
  const keptTerms = terms
    .filter((t) => !names.has(singularKey(t.key)))
    .slice(0, Math.max(0, options.maxTerms ?? DEFAULT_MAX_TERMS));
  const result: CompetitorTermStats = {
    pageCount,
    minPages,
    wordCount: usageRange(docs.map((d) => d.wordCount)),
    terms: keptTerms,
    entities: keptEntities,
  };
  if (source) {
    result.source = { wordCount: source.wordCount, terms: tally(keptTerms), entities: tally(keptEntities) };
  }
  return result;
}

// Kind by plurality of mentions; type by winningType over the name votes, so `other` never outvotes a typed cue.
function decideEntityType(votes: ReadonlyMap<string, number>): { kind: EntityKind; type: EntityType } {
  const kinds = new Map<string, number>();
  const types = new Map<EntityType, number>();
  for (const [vote, n] of votes) {
    const [kind = 'name', type = 'other'] = vote.split(':');
    kinds.set(kind, (kinds.get(kind) ?? 0) + n);
    types.set(type as EntityType, (types.get(type as EntityType) ?? 0) + n);
  }
  const kind = topVote(kinds) as EntityKind;
  return { kind, type: kind === 'name' ? winningType(types) : 'other' };
}

/** A key compared across terms and names: each word without a regular plural ending (`panels` and `panel` meet). */
function singularKey(key: string): string {
  return key
    .split(' ')
    .map((w) => (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w) ? w.slice(0, -1) : w))
    .join(' ');
}
