/**
 * Answer first (score version 3): does the opening answer the question the keyword asks?
 *
 * The opening is the first sentences of the body (headings skipped) up to 3 sentences or 100 words. The keyword says
 * what kind of answer it wants (`questionKind`):
 * - `number` ("how much", "how long", "cost", "price"): a number with a unit or a currency;
 * - `list` ("best ...", "top ...", "... vs ...", "types of"): named items (two or more names, or a series of three);
 * - `definition` ("what is", "what are", "meaning"): a sentence "<the keyword's subject> is / are / means / refers to";
 * - `steps` ("how to", "how do I", "ways to"): an instruction (a sentence opening on a verb, "To <verb> ..., <verb>"),
 *   or a numbered list right after the opening;
 * - `topic` (anything else): only the overlap counts.
 * Score: 100 * overlap * (0.5 + 0.5 * kind met) (the kind of answer without the keyword's subject answers nothing),
 * times the opening's share in well-formed sentences (a keyword pile that repeats the keyword is not an answer). Overlap is the share of the
 * keyword's content words (by stem) in the opening.
 */
import { tokenize } from '../../words.ts';
import { analyzeText, type AnalyzedText, type Sentence } from './text.ts';

export type AnswerKind = 'number' | 'list' | 'definition' | 'steps' | 'topic';

export const OPENING_SENTENCES = 3;
export const OPENING_WORDS = 100;

export interface AnswerFirstResult {
  score: number;
  kind: AnswerKind;
  opening: string;
  /** Share of the keyword's content words in the opening, 0-1. */
  overlap: number;
  missingWords: string[];
  /** Whether the opening has the kind of answer the keyword asks (true for `topic`). */
  kindMet: boolean;
  /** What met it (the number, the names, the defining or instructing sentence). */
  evidence: string | null;
  /** Share of the opening's words in well-formed sentences. */
  proseShare: number;
}

/** The kind of answer a keyword asks for. */
export function questionKind(keyword: string): AnswerKind {
  const k = keyword.toLowerCase().trim();
  if (/^how (much|many|long|often|far|big|old|hot|cold|heavy)\b|\b(cost|costs|price|prices|pricing|fee|fees)\b/.test(k))
    return 'number';
  if (/^(what|who) (is|are|was|were|does|do)\b|^define\b|\b(meaning|definition)\b/.test(k)) return 'definition';
  if (/^how (to|do|does|can|should)\b|^ways to\b|^steps to\b/.test(k)) return 'steps';
  if (/^(best|top)\b|\bbest\b|\b(vs|versus)\b|^types of\b|\b(ideas|examples|alternatives)\b/.test(k)) return 'list';
  return 'topic';
}

const UNIT =
  /(?:[$€£¥]\s?\d[\d,.]*|\d[\d,.]*\s?(?:%|percent|°|degrees?|[kmcµ]?g\b|grams?|kilos?|kg|lbs?|pounds?|oz|ounces?|[mcdk]?l\b|ml|litres?|liters?|gallons?|mm|cm|km|m\b|inch(?:es)?|feet|ft|miles?|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|dollars?|usd|euros?|kw|w\b|watts?|volts?|v\b|mph))/i;

function metKind(kind: AnswerKind, opening: Sentence[], a: AnalyzedText, stems: Set<string>): string | null {
  const text = opening.map((s) => s.text).join(' ');
  switch (kind) {
    case 'number':
      return UNIT.exec(text)?.[0] ?? null;
    case 'list': {
      // Names: capitalised words (not sentence-initial) or tagged PROPN, runs counted once.
      const names = new Set<string>();
      for (const s of opening) {
        let run: string[] = [];
        const flush = () => {
          if (run.length) names.add(run.join(' '));
          run = [];
        };
        s.words.forEach((w, i) => {
          if (i > 0 && (/^\p{Lu}/u.test(w) || /\d/.test(w)) && (s.tags[i] === 'PROPN' || /^\p{Lu}/u.test(w)))
            run.push(w);
          else if (run.length && /\d/.test(w)) run.push(w);
          else flush();
        });
        flush();
      }
      if (names.size >= 2) return [...names].slice(0, 4).join(', ');
      const series = /\b[\w-]+(?: [\w-]+){0,3}, [\w-]+(?: [\w-]+){0,3},? (?:and|or) [\w-]+/.exec(text);
      return series?.[0] ?? null;
    }
    case 'definition': {
      for (const s of opening) {
        const m = /^(.{0,80}?)\b(is|are|means|refers to|describes)\b/i.exec(s.text);
        if (m && tokenize(m[1]!, 'en').some((t) => stems.has(t.stem))) return s.text;
      }
      return null;
    }
    case 'steps': {
      for (const s of opening) {
        if (s.tags[0] === 'VERB' && s.wellFormed) return s.text;
        if (/^to\b/i.test(s.text) && /,\s*\w+/.test(s.text) && s.wellFormed) return s.text;
      }
      const last = opening[opening.length - 1];
      const next = last ? a.blocks.slice(last.block + 1).find((b) => b.kind !== 'heading') : undefined;
      if (next?.kind === 'list') return next.text;
      return null;
    }
    default:
      return null;
  }
}

/** How well the opening of a text answers the question its keyword asks. */
/**
 * `topicWords`: the keyword's words the opening should use (the score passes its head terms, without modifiers such
 * as "best" or "under" and numbers); by default every content word of the keyword.
 */
export function answerFirst(
  input: string | AnalyzedText,
  keyword: string,
  topicWords?: readonly string[],
): AnswerFirstResult {
  const a = typeof input === 'string' ? analyzeText(input) : input;
  const kind = questionKind(keyword);
  const opening: Sentence[] = [];
  let words = 0;
  for (const s of a.sentences) {
    if (opening.length >= OPENING_SENTENCES || words >= OPENING_WORDS) break;
    opening.push(s);
    words += s.words.length;
  }
  const text = opening.map((s) => s.text).join(' ');
  const keywordTokens = topicWords
    ? topicWords.flatMap((w) => tokenize(w, 'en'))
    : tokenize(keyword, 'en').filter((t) => !t.stop);
  const stems = new Set(keywordTokens.map((t) => t.stem));
  const present = new Set(tokenize(text, 'en').map((t) => t.stem));
  const missingWords = keywordTokens.filter((t) => !present.has(t.stem)).map((t) => t.lower);
  const overlap = stems.size ? [...stems].filter((s) => present.has(s)).length / stems.size : 0;
  const evidence = kind === 'topic' ? null : metKind(kind, opening, a, stems);
  const kindMet = kind === 'topic' || evidence !== null;
  const proseWords = opening.filter((s) => s.wellFormed).reduce((n, s) => n + s.words.length, 0);
  const proseShare = words ? proseWords / words : 0;
  const base = overlap * (kindMet ? 1 : 0.5);
  return {
    score: Math.round(100 * base * proseShare * 10) / 10,
    kind,
    opening: text,
    overlap: Math.round(overlap * 100) / 100,
    missingWords,
    kindMet,
    evidence,
    proseShare: Math.round(proseShare * 100) / 100,
  };
}
