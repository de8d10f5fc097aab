/**
 * Placement (docs/extractive-writer.md section 4.1): a quoted sentence goes under a draft heading only when the
 * source section it comes from is about that heading's subject. A section is its heading, the headings above it and
 * its own text; matching is by overlap of subject words (content-word stems without the topic's, with a few
 * synonym groups such as cost/price/fees), scored against SECTION_MATCH_THRESHOLD.
 */
import type { Context, Unit } from './context.ts';
import { tokenize } from './text.ts';

/** A source section matches a draft heading at this score or above (see sectionScore). */
export const SECTION_MATCH_THRESHOLD = 0.6;

/** Weight of a draft-heading word that the section's text uses (at least TEXT_MIN_USES times) but its headings do not. */
export const TEXT_WEIGHT = 0.25;
export const TEXT_MIN_USES = 2;

/**
 * Synonym groups: each phrase (stems, in order) stands for its group. Longer phrases are tried first. A draft heading
 * "…: costs" and a source heading "Prices in 2024" then share the subject COST.
 */
const GROUPS: Record<string, string[]> = {
  COST: [
    'cost',
    'costs',
    'price',
    'prices',
    'pricing',
    'priced',
    'fee',
    'fees',
    'how much',
    'affordable',
    'afford',
    'expensive',
    'cheap',
    'cheaper',
    'cheapest',
  ],
  COMPARE: ['compare', 'compared', 'comparing', 'comparison', 'comparisons', 'difference', 'differences', 'differ'],
  BENEFIT: ['benefit', 'benefits', 'advantage', 'advantages'],
  CHOOSE: [
    'choose',
    'choosing',
    'chose',
    'select',
    'selecting',
    'what to look for',
    'look for',
    'buying guide',
    "buyer's guide",
    'buyers guide',
    'consider',
    'considerations',
    'factors',
  ],
  TIPS: ['tip', 'tips', 'advice', 'trick', 'tricks', 'best practice', 'best practices'],
  TYPES: ['type', 'types', 'kind', 'kinds', 'category', 'categories', 'variety', 'varieties'],
  OPTIONS: ['option', 'options', 'alternative', 'alternatives', 'choice', 'choices'],
  INSTALL: [
    'install',
    'installs',
    'installing',
    'installed',
    'installation',
    'installations',
    'installer',
    'installers',
  ],
  MAINTAIN: ['maintain', 'maintaining', 'maintenance', 'upkeep'],
  REPAIR: ['repair', 'repairs', 'repairing', 'fix', 'fixes', 'fixing'],
  BASICS: [
    'what is',
    'what are',
    'basics',
    'overview',
    'explained',
    'introduction',
    'definition',
    'meaning',
    'understanding',
  ],
  WHY: ['why it matters', 'importance', 'matters', 'reasons'],
  WORK: ['how it works', 'how they work', 'work', 'works', 'working'],
  BEST: ['top picks', 'our picks', 'picks', 'recommended', 'winners', 'top rated', 'top-rated'],
  CONCLUSION: [
    'conclusion',
    'key takeaways',
    'takeaways',
    'takeaway',
    'summary',
    'verdict',
    'final verdict',
    'bottom line',
    'the bottom line',
    'final thoughts',
    'wrapping up',
    'in short',
    'recommendation',
    'our recommendation',
  ],
};

interface Phrase {
  stems: string[];
  group: string;
}

const phrases = new Map<string, Map<string, Phrase[]>>();

/** The synonym phrases of a language (English only) by their first stem, longest first. */
function phrasesFor(language: string): Map<string, Phrase[]> {
  let index = phrases.get(language);
  if (!index) {
    index = new Map();
    if (language === 'en') {
      const all = Object.entries(GROUPS)
        .flatMap(([group, words]) => words.map((w) => ({ group, stems: tokenize(w, language).map((t) => t.stem) })))
        .sort((a, b) => b.stems.length - a.stems.length);
      for (const p of all) {
        const first = p.stems[0] ?? '';
        index.set(first, [...(index.get(first) ?? []), p]);
      }
    }
    phrases.set(language, index);
  }
  return index;
}

/**
 * The subject of a heading or text: its words as stems, synonym phrases replaced by their group, then stop words,
 * bare numbers and the topic's stems left out.
 */
export function subjectStems(text: string, topicStems: ReadonlySet<string>, language = 'en'): Set<string> {
  const toks = tokenize(text, language);
  const list = phrasesFor(language);
  const out = new Set<string>();
  // The topic's words go first: every heading of the research shares them, so they say nothing of its subject.
  const topical = toks.map((t) => topicStems.has(t.stem));
  for (let i = 0; i < toks.length;) {
    const hit = list
      .get(toks[i]?.stem ?? '')
      ?.find((p) => p.stems.every((s, k) => toks[i + k]?.stem === s && !topical[i + k]));
    if (hit) {
      out.add(hit.group);
      i += hit.stems.length;
      continue;
    }
    const t = toks[i];
    i += 1;
    if (!t || t.stop || /^\d+$/.test(t.lower) || topical[i - 1]) continue;
    out.add(t.stem);
  }
  return out;
}

/** Stems a text uses at least TEXT_MIN_USES times (synonym groups counted once per phrase). */
export function frequentStems(text: string, topicStems: ReadonlySet<string>, language = 'en'): Set<string> {
  const counts = new Map<string, number>();
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    for (const s of subjectStems(sentence, topicStems, language)) counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => n >= TEXT_MIN_USES).map(([s]) => s));
}

/** A source section's subject: its own heading (N), the headings above it (P) and the words its text repeats (T). */
export interface SectionStems {
  /** Subject stems of the section's own heading. */
  own: ReadonlySet<string>;
  parents: ReadonlySet<string>;
  text: ReadonlySet<string>;
}

/** A source section as the text gives it: its headings from the outermost (H2) to its own, and its own text. */
export interface SourceSection {
  headings: readonly string[];
  text: string;
}

/** The stems of a source section. */
export function sectionStems(section: SourceSection, topicStems: ReadonlySet<string>, language = 'en'): SectionStems {
  const own = subjectStems(section.headings[section.headings.length - 1] ?? '', topicStems, language);
  const parents = new Set<string>();
  for (const h of section.headings.slice(0, -1))
    for (const s of subjectStems(h, topicStems, language)) if (!own.has(s)) parents.add(s);
  return { own, parents, text: frequentStems(section.text, topicStems, language) };
}

/**
 * How well a source section is about a draft heading's subject D (stems of the heading, see subjectStems):
 *
 *   (|D ∩ C| + TEXT_WEIGHT x |D ∩ T \ C|) / |D|  -  (0.5 x |N \ D| + |P \ D|) / |C|,   C = N ∪ P
 *
 * Covering the heading's words counts for the section; words of its own heading the draft heading lacks count half
 * against it (a narrower facet is still on the subject), words of the headings above it count fully (a sibling's
 * subject: the Bambino's pros are not the Dedica's). A heading that is all topic words (D empty) matches only
 * sections whose headings are all topic words too. A section with no heading (a page's opening) never matches.
 */
export function matchScore(d: ReadonlySet<string>, s: SectionStems): number {
  const cSize = s.own.size + s.parents.size;
  if (d.size === 0 || cSize === 0) return d.size === 0 && cSize === 0 ? 1 : 0;
  let covered = 0;
  for (const x of d) {
    if (s.own.has(x) || s.parents.has(x)) covered += 1;
    else if (s.text.has(x)) covered += TEXT_WEIGHT;
  }
  let ownExtra = 0;
  for (const x of s.own) if (!d.has(x)) ownExtra += 1;
  let parentExtra = 0;
  for (const x of s.parents) if (!d.has(x)) parentExtra += 1;
  return covered / d.size - (0.5 * ownExtra + parentExtra) / cSize;
}

/** The match score of a draft heading and a source section, computed from their texts. */
export function sectionMatch(draftHeading: string, section: SourceSection, topic: string, language = 'en'): number {
  if (section.headings.length === 0) return 0;
  const topicStems = new Set(
    tokenize(topic, language)
      .filter((t) => !t.stop)
      .map((t) => t.stem),
  );
  return matchScore(subjectStems(draftHeading, topicStems, language), sectionStems(section, topicStems, language));
}

/**
 * The placement score of units under one draft heading. A researched unit scores its source section's match
 * (cached per section); the client's own unit (knowledge base, imported page), which has no competitor's section
 * to come from, scores the share of the heading's subject its own words and heading name.
 */
export function placementOf(ctx: Context, heading: string): (u: Unit) => number {
  let cache = ctx.matchCache.get(heading);
  if (!cache) {
    cache = new Map();
    ctx.matchCache.set(heading, cache);
  }
  const scores = cache;
  const d = subjectStems(heading, ctx.topicSet, ctx.language);
  return (u) => {
    if (u.origin !== 'research') {
      if (d.size === 0) return 0;
      const own = subjectStems(`${u.heading} ${u.text}`, ctx.topicSet, ctx.language);
      let n = 0;
      for (const x of d) if (own.has(x)) n += 1;
      return n / d.size;
    }
    const section = ctx.sections.get(u.section);
    if (u.section < 0 || !section) return 0;
    let v = scores.get(u.section);
    if (v === undefined) {
      v = matchScore(d, section);
      scores.set(u.section, v);
    }
    return v;
  };
}
