/**
 * What version 3 adds to the competitor model (docs/scoring.md, "Version 3"): per term and name, its uses per 1,000
 * words counted as the checks count them (by stems, in sentences, headings and fragments alike); the competitors'
 * word shingles (originality.ts), the facts at least two of them state (facts.ts), and how much of the model the
 * median competitor covers (the bar a page must meet before it is never told to trim). Compact and JSON-safe: it is
 * saved with the run, so draft text scored later meets the same competitors under the same rules.
 */
import { usageRange } from '../../terms/competitor-stats.ts';
import { siteFacts, type ModelTerm } from '../model.ts';
import type { SiteFacts } from '../term-filter.ts';
import type { AnalyzedPage } from '../types.ts';
import { buildFactList, type FactList } from './facts.ts';
import {
  buildOriginalityModel,
  deserializeOriginalityModel,
  serializeOriginalityModel,
  textShingles,
  type OriginalityModel,
  type SerializedOriginalityModel,
  type TextShingles,
} from './originality.ts';
import { pageText, type PageText } from './page-text.ts';
import { placements, termUses, type Placements } from './saturation.ts';
import type { AnalyzedText } from './text.ts';

/** A term's uses per 1,000 words over the competitors that use it: p25, median, p75 and the highest. */
export interface TermRates {
  p25: number;
  median: number;
  p75: number;
  max: number;
}

export interface ModelV3 {
  /** By `rateKey(term)`. */
  rates: Record<string, TermRates>;
  originality: SerializedOriginalityModel;
  facts: FactList;
  /** The median competitor: model terms and names it uses, facts of the list it states. */
  median: { terms: number; facts: number };
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export const rateKey = (m: Pick<ModelTerm, 'kind' | 'key'>) => `${m.kind}:${m.key}`;

const placed = new WeakMap<AnalyzedText, Placements>();

/** The placements of an analysed text (cached: a run reads each competitor several times). */
export function placementsOf(a: AnalyzedText): Placements {
  let p = placed.get(a);
  if (!p) placed.set(a, (p = placements(a)));
  return p;
}

const usesByText = new WeakMap<Placements, Map<string, number>>();

/** Raw uses (every placement) of a model term in a text (cached per text: a run builds several models of it). */
export function usesIn(p: Placements, m: Pick<ModelTerm, 'key'>): number {
  let known = usesByText.get(p);
  if (!known) usesByText.set(p, (known = new Map()));
  let n = known.get(m.key);
  if (n === undefined) {
    const u = termUses(p, m.key);
    known.set(m.key, (n = u.sentence + u.heading + u.fragment));
  }
  return n;
}

const shinglesOf = new WeakMap<PageText, TextShingles>();

/** A page's shingles (cached per page text). */
function pageShingles(t: PageText): TextShingles {
  let s = shinglesOf.get(t);
  if (!s) shinglesOf.set(t, (s = textShingles(t.markdown)));
  return s;
}

const median = (xs: readonly number[]) => usageRange(xs).median;

/**
 * A site's own name is not a fact about the topic ("Bellweather Roasters" on its own pages): entity facts that name
 * a competitor's site (its name or its host's label) are dropped.
 */
function withoutSiteNames(list: FactList, sites: readonly SiteFacts[]): FactList {
  const names = new Set(sites.flatMap((s) => s.names.map((n) => n.toLowerCase())));
  const labels = new Set(sites.map((s) => s.host.replace(/^www\./, '').split('.')[0] ?? '').filter(Boolean));
  const squash = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const isSite = (key: string) => names.has(key) || labels.has(squash(key));
  const facts = list.facts.filter((f) => f.kind !== 'entity' || !isSite(f.key));
  return { ...list, facts };
}

/**
 * The version-3 part of the model of `competitors`, for the terms and names the base model kept. The pages are read
 * in URL order, so the model does not depend on the order they came in.
 */
export function buildModelV3(pages: readonly AnalyzedPage[], terms: readonly ModelTerm[]): ModelV3 {
  const competitors = [...pages].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const texts = competitors.map((c) => pageText(c.extraction));
  const places = texts.map((t) => placementsOf(t.analyzed));
  const rates: Record<string, TermRates> = {};
  const used = competitors.map(() => 0);
  for (const m of terms) {
    const perPage = places.map((p) => usesIn(p, m));
    perPage.forEach((n, i) => (used[i]! += n > 0 ? 1 : 0));
    const r = perPage.flatMap((n, i) => (n > 0 && places[i]!.words > 0 ? [(n * 1000) / places[i]!.words] : []));
    rates[rateKey(m)] = r.length
      ? { ...usageRange(r), max: round4(Math.max(...r)) }
      : { p25: 0, median: 0, p75: 0, max: 0 };
  }
  const facts = withoutSiteNames(
    buildFactList(competitors.map((c, i) => ({ url: c.url, text: texts[i]!.analyzed }))),
    competitors.map(siteFacts),
  );
  const stated = competitors.map((c) => facts.facts.filter((f) => f.urls.includes(c.url)).length);
  const originality = buildOriginalityModel(
    competitors.map((c, i) => ({ url: c.url, shingles: pageShingles(texts[i]!) })),
  );
  return {
    rates,
    originality: serializeOriginalityModel(originality),
    facts,
    median: { terms: median(used), facts: median(stated) },
  };
}

const loaded = new WeakMap<SerializedOriginalityModel, OriginalityModel>();

/** The shingle model of a saved model (decoded once per model object). */
export function originalityModelOf(m: ModelV3): OriginalityModel {
  let o = loaded.get(m.originality);
  if (!o) loaded.set(m.originality, (o = deserializeOriginalityModel(m.originality)));
  return o;
}
