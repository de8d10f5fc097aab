/**
 * Which competitor terms and entities may be recommended (docs/scoring.md, "Terms a person would recognise"). A term
 * is dropped when it is:
 * - junk: fewer than two letters (`F`, `C`), two lower-case letters (`js`, a file extension or a clipped word; `AI`
 *   stays), no letters at all (`2024`), only stop words, or a unit on its own (`inches`, `kWh`);
 * - a lone word of generic English (English pages): Zipf 4.6 or more in SUBTLEX-US in any of its forms (`time`,
 *   `way`, `people`, `price`; terms/frequency.ts `isGenericWord`); the phrases it heads (`water heater`) carry it;
 * - a competitor's brand or site name: it names a competitor's host label (`RapidFlow` of rapidflowplumbing.com)
 *   or its site name (og:site_name, the title's suffix), or only one site uses it;
 * - the same as an entity (`round rock` the term is `Round Rock` the entity: one is kept);
 * - part of a longer kept name or phrase that carries nearly all of its uses (`Round` and `Rock` inside
 *   `Round Rock`, `heater` inside `water heater`), so names stay whole;
 * - the brand or model line of a kept product name, or a capitalised piece of one (`Saucony`, `Brooks Adrenaline
 *   GTS` and `Adrenaline GTS` beside `Saucony Guide 18` and `Brooks Adrenaline GTS 24`), however often it is written
 *   alone: the product's name says it;
 * - thin evidence: with fewer than three competitors, a term only one page uses, once, outside its headings and
 *   title (one page's turn of phrase, such as `comically small`, is not what the topic needs).
 * The keyword's own head terms are never dropped as generic words, brands, pieces of products or single-site terms.
 */
import { brandLabel, createBrandMatcher } from '../brands.ts';
import { registrableDomain } from '../site.ts';
import { primaryLanguage } from '../terms/document.ts';
import { isGenericWord } from '../terms/frequency.ts';
import type { EntityStat, TermStat } from '../terms/types.ts';
import { UNITS } from '../terms/units.ts';
import { runIn, tokenize } from '../words.ts';

export interface SiteFacts {
  /** The competitor page's host name. */
  host: string;
  /** Names the site gives itself. */
  names: string[];
}

/** Of a longer term that contains a shorter one: the shares of its pages and uses that make the shorter one part of it. */
const SUBSUME_PAGES = 0.8;
const SUBSUME_USES = 0.5;

type Stat = TermStat | EntityStat;

export interface FilterInput {
  terms: readonly TermStat[];
  entities: readonly EntityStat[];
  /** One per competitor, in the order of the analysed documents. */
  sites: readonly SiteFacts[];
  /** The competitors (by index) whose text uses a key. */
  usedOn(key: string, entity: boolean): number[];
  language: string;
  /** True for a key made of the keyword's head terms. */
  isHead(key: string): boolean;
}

const letters = (s: string) => s.match(/\p{L}/gu)?.length ?? 0;
/** A display's words, lower case, split at anything but letters and digits (`Gel-Kayano` is `gel kayano`). */
const writtenWords = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
const squash = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** Junk: too short, no letters, only stop words, or a lone unit. */
export function isJunkTerm(display: string, language: string): boolean {
  if (letters(display) < 2) return true;
  // Two lower-case letters are a file extension or a clipped word (`js`, `py`), not an abbreviation (`AI`, `TV`).
  if (/^\p{Ll}{2}$/u.test(display.trim())) return true;
  const words = tokenize(display, primaryLanguage(language));
  if (words.length === 0 || words.every((w) => w.stop)) return true;
  return words.length === 1 && UNITS.has(words[0]!.lower);
}

/** Site identity helpers over every competitor: host labels, site names and registrable hosts. */
function siteIdentity(sites: readonly SiteFacts[]) {
  const labels = sites.map((s) => brandLabel(`https://${s.host}/`)).filter((l): l is string => l !== null);
  const hostMatcher = createBrandMatcher(labels);
  const names = sites.flatMap((s) => s.names).filter((n) => n.trim());
  const squashedNames = new Set(names.map(squash).filter((n) => n.length >= 3));
  const nameWords = names.map((n) => tokenize(n, 'und').map((t) => t.lower));
  // One site per registrable domain (`a.github.io` and `b.github.io` are two), as in the competitor cap.
  const site = (i: number) => registrableDomain(sites[i]?.host ?? '') || String(i);
  return {
    /** True when the text names a competitor's site. */
    names(display: string): boolean {
      if (hostMatcher.matches(display)) return true;
      const sq = squash(display);
      // Written in any case: the whole host label, or a long prefix of it (`bluebonnet plumbing`, `rapidflow`).
      if (labels.some((l) => sq === l || (sq.length >= 5 && l.startsWith(sq) && sq.length * 2 >= l.length)))
        return true;
      if (squashedNames.has(sq)) return true;
      // A capitalised word run of a site name ("RapidFlow" of "RapidFlow Plumbing"); lower-case words are prose.
      if (!/^\p{Lu}/u.test(display) || sq.length < 4) return false;
      const words = tokenize(display, 'und').map((t) => t.lower);
      return nameWords.some((nw) => runIn(nw, words));
    },
    distinctSites: (docs: readonly number[]) => new Set(docs.map(site)).size,
    total: new Set(sites.map((_, i) => site(i))).size,
  };
}

/** The terms and entities that may be recommended, in their original order (see the module comment). */
export function recommendableTerms(input: FilterInput): { terms: TermStat[]; entities: EntityStat[] } {
  const identity = siteIdentity(input.sites);
  const english = primaryLanguage(input.language) === 'en';
  const keep = (s: Stat, entity: boolean): boolean => {
    if (isJunkTerm(s.display, input.language)) return false;
    if (input.isHead(s.key)) return true;
    if (!entity && english && isGenericWord(s.key, s.display)) return false;
    if (identity.names(s.display)) return false;
    if (input.sites.length < 3 && s.pages < 2 && s.count.median < 2 && s.headingPages === 0) return false;
    return identity.total < 2 || identity.distinctSites(input.usedOn(s.key, entity)) >= 2;
  };
  const entities = input.entities.filter((e) => keep(e, true));
  const entityKeys = new Set(entities.map((e) => e.key));
  const terms = input.terms.filter((t) => !entityKeys.has(t.key) && keep(t, false));
  const all: { stat: Stat; words: string[] }[] = [...terms, ...entities].map((stat) => ({
    stat,
    words: stat.key.split(' '),
  }));
  const subsumed = (s: { stat: Stat; words: string[] }) =>
    all.some(
      (l) =>
        l.words.length > s.words.length &&
        runIn(l.words, s.words) &&
        l.stat.pages >= SUBSUME_PAGES * s.stat.pages &&
        l.stat.count.median >= SUBSUME_USES * s.stat.count.median,
    );
  // A product's name carries its brand and model line: `Saucony` and `Brooks Adrenaline GTS` are the start of
  // `Saucony Guide 18` and `Brooks Adrenaline GTS 24`, and `Adrenaline GTS` a capitalised piece of it, so only the
  // whole product name is recommended (a lower-case word inside one, such as `barista` in `Breville Barista Pro`, is
  // prose and stays). A product is a name typed so, or one that ends in a model or version number. Written words are
  // compared, not keys: a term's key is lemmatised (`brook adrenaline gts`), a name's is not.
  const products = entities
    .map((e) => ({ type: e.type, words: writtenWords(e.display) }))
    .filter((e) => e.type === 'product' || /^\p{N}/u.test(e.words[e.words.length - 1] ?? ''))
    .map((e) => e.words);
  const productPiece = (s: { stat: Stat; words: string[] }) => {
    if (input.isHead(s.stat.key)) return false;
    const written = writtenWords(s.stat.display);
    const capitalised = /^\p{Lu}/u.test(s.stat.display);
    return products.some(
      (p) => p.length > written.length && (written.every((w, i) => p[i] === w) || (capitalised && runIn(p, written))),
    );
  };
  const kept = new Set(all.filter((x) => !subsumed(x) && !productPiece(x)).map((x) => x.stat));
  return { terms: terms.filter((t) => kept.has(t)), entities: entities.filter((e) => kept.has(e)) };
}
