/**
 * The one sentence splitter of the project: both content writers and the fact check split text with it.
 *
 * English text goes through wink-nlp's sentence boundary detection (it knows initials, abbreviations and decimals:
 * "A.O. Smith", "e.g.", "U.S.", "3.5 kW"); other languages through `Intl.Segmenter`. Both are then repaired the same
 * way:
 * - a period after a known abbreviation (`Fig.`, `approx.`, `Mr.`) does not end a sentence when text follows;
 * - a segment that starts in lower case or with closing punctuation continues the one before it
 *   (`“Is it safe?” she asked.`);
 * - citation markers written after the full stop (`fact. [2] Next`) stay with the sentence they follow;
 * - a stop with no space after it is part of a dotted name (`asyncio.Queue`, `example.com`), not a sentence end.
 * Line breaks always end a sentence.
 */
import { createWink } from './wink.ts';
import { lru } from '../platform/lru.ts';

// A period after these is not a sentence end when the next word follows (Mr. Smith, Fig. 3, approx. 20).
const NON_TERMINAL =
  /(?:^|[\s(])(?:mr|mrs|ms|dr|st|prof|sr|jr|fig|figs|vol|approx|cf|e\.g|i\.e|vs|mt|ft|lb|lbs|oz|dept)\.\s*$/i;
const INITIAL = /(?:^|[\s(])\p{L}\.$/u;
const CONTINUES = /^[\p{Ll},;:)\]%]/u;
const MARKERS_ONLY = /^(?:\s*\[\d+(?:\s*,\s*\d+)*\])+\s*$/;
const LEADING_MARKERS = /^((?:\s*\[\d+(?:\s*,\s*\d+)*\])+)\s*/;

/**
 * wink adds every unseen word to its instance's lexicon; a fresh instance (about 0.1 s) every this many calls keeps
 * a long-running server's memory flat. Boundaries do not depend on the lexicon, so recycling changes no result.
 */
const RECYCLE_AFTER = 5_000;

let wink: { split(text: string): string[]; calls: number } | null = null;

function english(): (text: string) => string[] {
  if (!wink || wink.calls >= RECYCLE_AFTER) {
    const nlp = createWink(['sbd']);
    wink = { split: (text) => nlp.readDoc(text).sentences().out(), calls: 0 };
  }
  const w = wink;
  w.calls += 1;
  return w.split;
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenterFor(language: string): Intl.Segmenter {
  let s = segmenters.get(language);
  if (!s) {
    try {
      s = new Intl.Segmenter(language, { granularity: 'sentence' });
    } catch {
      s = new Intl.Segmenter('en', { granularity: 'sentence' });
    }
    segmenters.set(language, s);
  }
  return s;
}

const primary = (language: string) => language.split(/[-_]/)[0]!.toLowerCase();

/** Raw boundaries of one line, before the repairs. */
function boundaries(line: string, language: string): string[] {
  if (primary(language) === 'en') return english()(line);
  return [...segmenterFor(language).segment(line)].map((s) => s.segment);
}

/**
 * Paragraphs already split, by language and text: the writers, their revisions and the fact check read the same
 * researched pages again and again, and wink costs about 0.15 ms a paragraph.
 */
const recent = lru<string[]>(4_096);

/** Sentences of a line or paragraph after the shared repairs (cached). */
function splitLine(line: string, language: string): string[] {
  const key = `${language}\u0000${line}`;
  const hit = recent.get(key);
  if (hit) return [...hit];
  const out = splitFresh(line, language);
  recent.set(key, out);
  return [...out];
}

/** A sentence and where it sits in its line (start -1: it is not the line's own text, a marker was moved into it). */
interface Span {
  text: string;
  start: number;
  end: number;
}

/** An opening quotation mark the sentence has not closed: the quotation goes on in the next segment. */
function openQuote(text: string): boolean {
  const curly = (text.match(/“/g)?.length ?? 0) - (text.match(/”/g)?.length ?? 0);
  return curly > 0 || (text.match(/"/g)?.length ?? 0) % 2 === 1;
}

function splitFresh(line: string, language: string): string[] {
  const english = primary(language) === 'en';
  const out: Span[] = [];
  let cursor = 0;
  for (const raw of boundaries(line, language)) {
    let s = raw.trim();
    if (!s) continue;
    const at = line.indexOf(s, cursor);
    let start = at;
    if (at >= 0) cursor = at + s.length;
    const prev = out[out.length - 1];
    if (prev !== undefined) {
      const lead = LEADING_MARKERS.exec(s);
      if (lead) {
        prev.text = `${prev.text}${lead[1]!.replace(/\s+/g, '')}`;
        prev.start = -1;
        s = s.slice(lead[0].length).trim();
        if (!s) continue;
        start = at >= 0 ? line.indexOf(s, at) : -1;
      } else if (MARKERS_ONLY.test(s)) {
        prev.text = `${prev.text}${s.replace(/\s+/g, '')}`;
        prev.start = -1;
        continue;
      }
    }
    const last = out[out.length - 1];
    const joins =
      last !== undefined &&
      // No space after the stop: a dotted name (`asyncio.Queue`, `example.com`), not a sentence end.
      ((last.end >= 0 && start === last.end) ||
        NON_TERMINAL.test(last.text) ||
        CONTINUES.test(s) ||
        (openQuote(last.text) && /[”"]/.test(s)) ||
        // Intl.Segmenter ends sentences after initials and letter abbreviations (`z. B.`, `J. Smith`); wink does not.
        (!english && INITIAL.test(last.text)));
    if (last !== undefined && joins) {
      // Joined from the line itself where both parts are its own text, so `concurrent.futures` keeps its dot.
      if (last.start >= 0 && start >= 0) {
        last.text = line.slice(last.start, start + s.length);
        last.end = start + s.length;
      } else {
        last.text = `${last.text} ${s}`;
        last.start = -1;
      }
    } else out.push({ text: s, start, end: start >= 0 ? start + s.length : -1 });
  }
  return out.map((o) => o.text);
}

/** The sentences of `text` in `language` (a BCP 47 tag; English by default), trimmed, in order. */
export function splitSentences(text: string, language = 'en'): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const l = line.replace(/\s+/g, ' ').trim();
    if (l) out.push(...splitLine(l, language));
  }
  return out;
}

/** A splitter bound to one language. */
export function createSentenceSplitter(language: string): (text: string) => string[] {
  return (text) => splitSentences(text, language);
}
