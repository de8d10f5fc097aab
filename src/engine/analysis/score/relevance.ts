/**
 * The relevance test (docs/scoring.md, "Which pages are competitors"): is a ranking page about the keyword's head
 * terms? Search engines rank pages that are not: a site's home page, a neighbouring topic, a page that shares one
 * word with the query. Such pages would teach the scorer the wrong vocabulary, so they are not competitors.
 *
 * Matching is by word stem (`descaling` meets `descale`), case-insensitive, in any order.
 */
import type { Extraction } from '../extract/types.ts';
import { primaryLanguage } from '../terms/document.ts';
import { stemEn, tokenize } from '../words.ts';

/**
 * Words that say which page of a topic the searcher wants (a review, the best, a comparison, a price band), not what
 * the topic is. They are kept out of the head terms so that a buying guide and a product page of one topic meet.
 */
const MODIFIERS = new Set(
  `best top cheap cheapest affordable budget review reviews rated guide guides tutorial tutorials tips ideas example
  examples near me nearby vs versus compare comparison comparisons good better great new free online buy
  professional service services company companies local list worth`
    .split(/\s+/)
    .filter(Boolean)
    .map(stemEn),
);

/** A page is about the keyword when at least this share of its head terms is in its title, H1 or opening. */
export const PROMINENT_SHARE = 0.5;
/** ...and its relevance score reaches this. */
export const RELEVANCE_THRESHOLD = 0.7;
/** Words of the main text that count as the opening (the first paragraph, or about that). */
export const OPENING_WORDS = 100;

export interface HeadTerms {
  /** Stems of the keyword's topic words, in keyword order, de-duplicated. */
  stems: string[];
  /** The keyword's words those stems came from, for messages. */
  words: string[];
  /** Pairs of head stems that stand next to each other in the keyword (`heat pump`): compounds a page must use. */
  compounds: [string, string][];
}

/** The keyword's head terms: its content words that are not modifiers or numbers (all content words if none is). */
export function headTerms(keyword: string, language: string): HeadTerms {
  const lang = primaryLanguage(language);
  const tokens = tokenize(keyword, lang);
  const isContent = (t: (typeof tokens)[number]) => !t.stop && /\p{L}/u.test(t.lower);
  const content = tokens.filter(isContent);
  const topical = content.filter((t) => !MODIFIERS.has(t.stem));
  const chosen = topical.length > 0 ? topical : content;
  const stems: string[] = [];
  const words: string[] = [];
  for (const t of chosen) {
    if (stems.includes(t.stem)) continue;
    stems.push(t.stem);
    words.push(t.lower);
  }
  const compounds: [string, string][] = [];
  for (let i = 0; i + 1 < tokens.length; i += 1) {
    const [a, b] = [tokens[i]!, tokens[i + 1]!];
    if (isContent(a) && isContent(b) && stems.includes(a.stem) && stems.includes(b.stem))
      compounds.push([a.stem, b.stem]);
  }
  return { stems, words, compounds };
}

/** Stems of the content words of a text, as a set. */
export function stemSet(text: string, language: string): Set<string> {
  const lang = primaryLanguage(language);
  return new Set(tokenize(text, lang).flatMap((t) => (t.stop ? [] : [t.stem])));
}

/** The share of `head` stems found in `stems` (1 when there are no head terms). */
export function headShare(head: HeadTerms, stems: ReadonlySet<string>): number {
  if (head.stems.length === 0) return 1;
  return head.stems.filter((s) => stems.has(s)).length / head.stems.length;
}

export interface Relevance {
  /** Share of head terms in the title, H1 or opening. */
  prominent: number;
  /** Share of head terms anywhere in the main text. */
  body: number;
  /** 0.6 x prominent + 0.4 x body, rounded to 3 decimals. */
  score: number;
  /** The title, H1 or opening uses one of the keyword's compounds (true when it has none). */
  compound: boolean;
  /**
   * prominent >= PROMINENT_SHARE and score >= RELEVANCE_THRESHOLD, and, unless every head term is prominent, one of
   * the keyword's compounds is.
   */
  onTopic: boolean;
  /** Head words the title, H1 and opening lack. */
  missing: string[];
}

/**
 * True when the text has one of the keyword's compounds as adjacent words (`heat pumps` for `heat pump vs furnace`),
 * or when the keyword has none. An espresso review that mentions heat and a pump is not about heat pumps, and a
 * plumber's home page that mentions heat pumps once is not about them either: the compound must be prominent.
 */
export function usesCompound(head: HeadTerms, text: string, language: string): boolean {
  if (head.compounds.length === 0) return true;
  const tokens = tokenize(text, primaryLanguage(language));
  const pairs = new Set(head.compounds.map(([a, b]) => `${a} ${b}`));
  for (let i = 0; i + 1 < tokens.length; i += 1) {
    if (pairs.has(`${tokens[i]!.stem} ${tokens[i + 1]!.stem}`)) return true;
  }
  return false;
}

/** How relevant a page is to the keyword's head terms (definition in the module comment and docs/scoring.md). */
export function relevanceOf(page: Pick<Extraction, 'title' | 'h1' | 'mainText'>, head: HeadTerms, language: string) {
  const opening = page.mainText.split(/\s+/).slice(0, OPENING_WORDS).join(' ');
  const prominentStems = stemSet(`${page.title}\n${page.h1}\n${opening}`, language);
  const prominent = headShare(head, prominentStems);
  const body = headShare(head, stemSet(page.mainText, language));
  const score = Math.round((0.6 * prominent + 0.4 * body) * 1000) / 1000;
  const compound = usesCompound(head, `${page.title}\n${page.h1}\n${opening}`, language);
  return {
    prominent: Math.round(prominent * 1000) / 1000,
    body: Math.round(body * 1000) / 1000,
    score,
    compound,
    onTopic: prominent >= PROMINENT_SHARE && score >= RELEVANCE_THRESHOLD && (prominent >= 1 || compound),
    missing: head.words.filter((_, i) => !prominentStems.has(head.stems[i]!)),
  } satisfies Relevance;
}
