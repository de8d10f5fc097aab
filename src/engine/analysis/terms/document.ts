/**
 * One page -> DocumentTerms: cut code lines out of the body, choose the pipeline by language, count n-grams in the
 * body, headings and title, find entities in the body and count them in the headings and title.
 */
import { stripCode } from './code.ts';
import { GENERIC_ZIPF, zipf } from './frequency.ts';
import type { EnglishTokenizer } from './english.ts';
import type { EntityTable, SentenceClasses } from './entities.ts';
import { classifySentences, findEntities, unknownProperNoun, winningType } from './entities.ts';
import type { TermTable } from './ngrams.ts';
import { countNgrams, pickDisplay } from './ngrams.ts';
import type { SegmenterTokenizer } from './tokenize.ts';
import type { LexToken, TokenStream } from './tokens.ts';
import type { DocEntity, DocTerm, DocumentInput, DocumentTerms } from './types.ts';

export interface DocumentAnalyzerDeps {
  english: EnglishTokenizer;
  segmenter: SegmenterTokenizer;
  /** Text beyond this many characters is ignored, bounding the time one page can take. */
  maxChars: number;
}

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;
const ANY_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const LETTER = /\p{L}/gu;

/** The primary subtag of a BCP 47 tag, lower case; `en` when absent or unusable. */
export function primaryLanguage(tag: string | undefined): string {
  const primary = (tag ?? '').trim().split(/[-_]/)[0]?.toLowerCase() ?? '';
  return /^[a-z]{2,8}$/.test(primary) ? primary : 'en';
}

/** Builds `analyzeDocument` over the two tokenizers. */
export function createDocumentAnalyzer(deps: DocumentAnalyzerDeps): (doc: DocumentInput) => DocumentTerms {
  function stream(text: string, language: string): { stream: TokenStream; method: DocumentTerms['method'] } {
    // Pages labelled English are sometimes not: wink's English tokenizer sees CJK text as one unknown token.
    if (language === 'en' && !mostlyCjk(text)) {
      try {
        return { stream: deps.english.tokenize(text), method: 'wink' };
      } catch {
        // Never fail a page on a tokenizer edge case; the segmenter handles any text.
      }
    }
    return { stream: deps.segmenter.tokenize(text, language === 'en' ? 'und' : language), method: 'segmenter' };
  }

  return function analyzeDocument(doc: DocumentInput): DocumentTerms {
    const language = primaryLanguage(doc.language);
    // Code blocks carried as text lines are never terms (code.ts); the words they use are never names.
    const { prose: text, codeWords } = stripCode(clip(doc.text, deps.maxChars));
    const body = stream(text, language);
    const headingText = clip((doc.headings ?? []).filter((h) => typeof h === 'string').join('\n'), deps.maxChars);
    // Headings and titles are often Title Case, which the tagger reads as proper nouns; lower case tags them as prose.
    const headings = stream(headingText.toLowerCase(), language).stream;
    const title = stream(clip(doc.title ?? '', deps.maxChars).toLowerCase(), language).stream;

    // A capitalised word the page's code uses (`None`, `False`) is a literal, not a term.
    // A generic English word capitalised on its own mid-sentence as a proper noun (`True`, `Office`) is a literal or
    // a piece of a name: it may sit inside a phrase but never ends a term (`Round Rock` is left to the name rules).
    const tokens = body.stream.tokens;
    tokens.forEach((t, i) => {
      if (t.cap !== 'none' && codeWords.has(t.surface)) t.key = '';
      else if (
        t.pos === 'PROPN' &&
        t.cap === 'title' &&
        !t.sentenceStart &&
        !capitalisedNeighbour(tokens, i) &&
        zipf(t.norm) >= GENERIC_ZIPF
      ) {
        t.head = false;
      }
    });
    const classes = classifySentences(body.stream.tokens);
    const terms: TermTable = new Map();
    countNgrams(body.stream.tokens, terms, 'count', displayFor(body.stream, classes));
    countNgrams(headings.tokens, terms, 'headingCount', (t) => t.surface);
    countNgrams(title.tokens, terms, 'titleCount', (t) => t.surface);

    const entities = findEntities(body.stream, language, classes, codeWords);
    return {
      language,
      method: body.method,
      wordCount: body.stream.wordCount,
      terms: termList(terms),
      entities: entityList(entities, lines(headings.tokens), lines(title.tokens)),
    };
  };
}

function capitalisedNeighbour(tokens: readonly LexToken[], i: number): boolean {
  const t = tokens[i];
  const prev = tokens[i - 1];
  const next = tokens[i + 1];
  const cap = (x: LexToken | undefined) => x !== undefined && x.kind === 'word' && x.cap !== 'none';
  return (t !== undefined && !t.breakBefore && cap(prev)) || (next !== undefined && !next.breakBefore && cap(next));
}

function clip(text: unknown, maxChars: number): string {
  if (typeof text !== 'string') return '';
  const t = text.length > maxChars ? text.slice(0, maxChars) : text;
  return t.normalize('NFC');
}

function mostlyCjk(text: string): boolean {
  const sample = text.slice(0, 4000);
  if (!ANY_CJK.test(sample)) return false;
  const letters = sample.match(LETTER)?.length ?? 0;
  const cjk = sample.match(CJK_CHAR)?.length ?? 0;
  return letters > 0 && cjk / letters > 0.3;
}

// A capital that only comes from position (sentence start, title-case line, shouting) is not shown in the display
// form unless the same word is capitalised mid-sentence elsewhere on the page or is a proper noun wink does not know.
function displayFor(stream: TokenStream, classes: SentenceClasses): (t: LexToken) => string {
  const { tokens } = stream;
  const { titleLines, shouting } = classes;
  const positional = (t: LexToken): boolean =>
    t.sentenceStart || titleLines.has(t.sentence) || shouting.has(t.sentence);
  const genuine = new Set<string>();
  for (const t of tokens) {
    if (t.cap !== 'none' && (!positional(t) || unknownProperNoun(stream, t))) genuine.add(t.norm);
  }
  return (t) =>
    (t.cap === 'title' || t.cap === 'upper') && positional(t) && !genuine.has(t.norm)
      ? t.surface.toLowerCase()
      : t.surface;
}

function termList(table: TermTable): DocTerm[] {
  // The default sort compares UTF-16 code units: the documented, locale-independent order.
  const keys = [...table.keys()].sort();
  return keys.flatMap((key) => {
    const acc = table.get(key);
    if (!acc) return [];
    return [
      {
        key,
        display: pickDisplay(acc.forms) ?? pickDisplay(acc.fallbackForms) ?? key,
        n: acc.n,
        count: acc.count,
        headingCount: acc.headingCount,
        titleCount: acc.titleCount,
      },
    ];
  });
}

/** Splits a token stream into lines of normalised tokens, for counting entities in headings. */
function lines(tokens: readonly LexToken[]): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  for (const t of tokens) {
    if (t.breakBefore && current.length > 0) {
      out.push(current);
      current = [];
    }
    current.push(t.norm);
  }
  if (current.length > 0) out.push(current);
  return out;
}

function occurrences(lineList: readonly string[][], match: readonly string[]): number {
  if (match.length === 0) return 0;
  let n = 0;
  for (const line of lineList) {
    for (let i = 0; i + match.length <= line.length; i += 1) {
      let k = 0;
      while (k < match.length && line[i + k] === match[k]) k += 1;
      if (k === match.length) n += 1;
    }
  }
  return n;
}

function entityList(table: EntityTable, headingLines: string[][], titleLines: string[][]): DocEntity[] {
  const keys = [...table.keys()].sort();
  return keys.flatMap((key) => {
    const acc = table.get(key);
    if (!acc) return [];
    return [
      {
        key,
        display: pickDisplay(acc.forms) ?? key,
        type: acc.kind === 'name' ? winningType(acc.votes) : 'other',
        kind: acc.kind,
        count: acc.count,
        headingCount: occurrences(headingLines, acc.match),
        titleCount: occurrences(titleLines, acc.match),
      },
    ];
  });
}
