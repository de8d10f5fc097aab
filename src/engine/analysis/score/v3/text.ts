/**
 * The text model every version-3 block reads: the markdown's blocks (headings, paragraphs, list items,
 * table rows, code) and, for prose blocks, their sentences with wink's part-of-speech tags, each judged well formed
 * (a sentence a reader reads as one) or a fragment.
 *
 * A sentence is well formed when it has a predicate (an AUX, or a VERB that is neither a bare `-ing` form nor an
 * infinitive after `to`), a sensible length (4 to 60 words), at least one
 * function word (a determiner, pronoun, preposition, auxiliary, conjunction or particle: prose has them, a pile of
 * keywords does not), and no run of more than five nouns, names and adjectives in a row (a keyword pile that a
 * tagger happened to give a verb). Deterministic: the tags are wink's, which do not depend on what it read before.
 */
import type { WinkMethods } from 'wink-nlp';
import { createWink } from '../../wink.ts';

export type BlockKind = 'heading' | 'paragraph' | 'list' | 'table' | 'code';

export interface Block {
  kind: BlockKind;
  /** Heading level (1-6); 0 for other blocks. */
  level: number;
  /** The block's text, markdown emphasis, links and list markers removed. */
  text: string;
  /** Index of the block in the text, in order. */
  index: number;
}

export interface Sentence {
  text: string;
  /** Index of its block. */
  block: number;
  blockKind: BlockKind;
  /** Word tokens (letters or digits), as written. */
  words: string[];
  /** wink's POS tag per word token, aligned with `words`. */
  tags: string[];
  hasVerb: boolean;
  functionWords: number;
  /** Longest run of NOUN / PROPN / ADJ / NUM tokens. */
  nounRun: number;
  wellFormed: boolean;
  /** Why a sentence is not well formed: the first failed test; null when it is. */
  reason: 'no_verb' | 'too_short' | 'too_long' | 'no_function_word' | 'noun_pile' | null;
}

export interface AnalyzedText {
  blocks: Block[];
  /** Sentences of paragraphs and list items (headings, tables and code have none). */
  sentences: Sentence[];
  /** Word count of the whole text (every block but code). */
  words: number;
}

export const MIN_SENTENCE_WORDS = 4;
export const MAX_SENTENCE_WORDS = 60;
export const MAX_NOUN_RUN = 5;

const FUNCTION_TAGS = new Set(['DET', 'PRON', 'ADP', 'AUX', 'CCONJ', 'SCONJ', 'PART']);
const NOUNISH = new Set(['NOUN', 'PROPN', 'ADJ', 'NUM']);
const WORD_TYPES = new Set(['word', 'number']);

/** Markdown inline markup removed: links keep their text, emphasis and code marks go, HTML tags go. */
export function plainInline(s: string): string {
  return s
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/(\*\*|__|\*|_|`)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The blocks of a markdown (or plain) text. A line of plain text is a paragraph. */
export function parseBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const push = (kind: BlockKind, level: number, raw: string) => {
    const text = kind === 'code' ? raw.trim() : plainInline(raw);
    if (text) blocks.push({ kind, level, text, index: blocks.length });
  };
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let para: string[] = [];
  const flush = () => {
    if (para.length) push('paragraph', 0, para.join(' '));
    para = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const t = line.trim();
    if (/^(```|~~~)/.test(t)) {
      flush();
      const code: string[] = [];
      for (i += 1; i < lines.length && !/^(```|~~~)/.test(lines[i]!.trim()); i += 1) code.push(lines[i]!);
      push('code', 0, code.join('\n'));
      continue;
    }
    if (!t) {
      flush();
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*$/.exec(t);
    if (h) {
      flush();
      push('heading', h[1]!.length, h[2]!);
      continue;
    }
    if (/^\|.*\|$/.test(t)) {
      flush();
      if (/^\|[\s:|-]+\|$/.test(t)) continue;
      push(
        'table',
        0,
        t
          .replace(/^\||\|$/g, '')
          .split('|')
          .map((c) => c.trim())
          .join(' | '),
      );
      continue;
    }
    const li = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(t);
    if (li) {
      flush();
      push('list', 0, li[1]!);
      continue;
    }
    if (/^>\s?/.test(t)) {
      para.push(t.replace(/^>\s?/, ''));
      continue;
    }
    // A continuation line of a list item belongs to it.
    const last = blocks[blocks.length - 1];
    if (!para.length && last?.kind === 'list' && /^\s{2,}/.test(line)) {
      last.text = plainInline(`${last.text} ${t}`);
      continue;
    }
    para.push(t);
  }
  flush();
  return blocks;
}

/** Per block (kind and text) of an analysis, its sentences. */
function sentencesByBlock(a: AnalyzedText): Map<string, Sentence[]> {
  const out = new Map<string, Sentence[]>();
  for (const s of a.sentences) {
    const b = a.blocks[s.block];
    if (!b) continue;
    const key = `${b.kind}\n${b.text}`;
    const list = out.get(key) ?? [];
    // A block text said twice is read twice: keep the first block's sentences only.
    if (!list.length || list[0]!.block === s.block) list.push(s);
    out.set(key, list);
  }
  return out;
}

/** wink is rebuilt after this many texts so its lexicon cache stays bounded; tags do not depend on it. */
const RECYCLE_AFTER = 500;
let nlp: { wink: WinkMethods; uses: number } | null = null;

function wink(): WinkMethods {
  if (!nlp || nlp.uses >= RECYCLE_AFTER) nlp = { wink: createWink(['sbd', 'pos']), uses: 0 };
  nlp.uses += 1;
  return nlp.wink;
}

/** Word tokens of a plain string (letters or digits). */
export function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+(?:['’.,][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Nouns, names and adjectives in a row that a sentence without a function word may still have. */
const TERSE_NOUN_RUN = 3;

function judge(
  words: number,
  hasVerb: boolean,
  functionWords: number,
  nounRun: number,
  terminal: boolean,
): Sentence['reason'] {
  if (words < MIN_SENTENCE_WORDS) return 'too_short';
  if (words > MAX_SENTENCE_WORDS) return 'too_long';
  if (!hasVerb) return 'no_verb';
  // A terse sentence ("Hard water carries dissolved calcium carbonate.") has no function word but ends like one
  // and names few things in a row; a keyword pile does neither.
  if (functionWords === 0 && !(terminal && words >= 5 && nounRun <= TERSE_NOUN_RUN)) return 'no_function_word';
  if (nounRun > MAX_NOUN_RUN) return 'noun_pile';
  return null;
}

/**
 * The text's blocks and sentences: each paragraph and list item read by wink on its own (one pass over the text).
 * `reuse`: an analysis of a text with many of the same blocks (the same text with its copied passages blanked); a
 * block of the same kind and text keeps its sentences instead of being read again.
 */
export function analyzeText(markdown: string, reuse?: AnalyzedText): AnalyzedText {
  const blocks = parseBlocks(markdown);
  const prose = blocks.filter((b) => b.kind === 'paragraph' || b.kind === 'list');
  const sentences: Sentence[] = [];
  const known = reuse ? sentencesByBlock(reuse) : null;
  if (prose.length) {
    let nlp: WinkMethods | null = null;
    const its = () => (nlp ??= wink()).its;
    for (const b of prose) {
      const same = known?.get(`${b.kind}\n${b.text}`);
      if (same) {
        sentences.push(...same.map((x) => (x.block === b.index ? x : { ...x, block: b.index })));
        continue;
      }
      nlp ??= wink();
      const doc = nlp.readDoc(b.text.replaceAll('’', "'"));
      // One read of the block's tokens; sentences are spans of them (fewer calls into wink than per sentence).
      const all = doc.tokens();
      const tokenValues = all.out(its().value) as string[];
      const tokenTypes = all.out(its().type) as string[];
      const tokenTags = all.out(its().pos) as string[];
      const spans = doc.sentences().out(its().span) as unknown as [number, number][];
      const texts = doc.sentences().out() as string[];
      spans.forEach(([from, to], k) => {
        const values = tokenValues.slice(from, to + 1);
        const types = tokenTypes.slice(from, to + 1);
        const tags = tokenTags.slice(from, to + 1);
        const text = texts[k] ?? values.join(' ');
        const words: string[] = [];
        const wtags: string[] = [];
        let functionWords = 0;
        let run = 0;
        let nounRun = 0;
        let hasVerb = false;
        values.forEach((v, i) => {
          const tag = tags[i] ?? 'X';
          // A predicate: an auxiliary, or a verb that is not a bare `-ing` form or an infinitive after `to`
          // ("best running shoes", "how to descale a kettle" are titles, not sentences).
          if (
            tag === 'AUX' ||
            (tag === 'VERB' && !/ing$/i.test(v) && !(i > 0 && tags[i - 1] === 'PART' && /^to$/i.test(values[i - 1]!)))
          )
            hasVerb = true;
          if (FUNCTION_TAGS.has(tag)) functionWords += 1;
          if (NOUNISH.has(tag)) {
            run += 1;
            nounRun = Math.max(nounRun, run);
          } else if (tag !== 'PUNCT' || !/^[-–/]$/.test(v)) run = 0;
          if (WORD_TYPES.has(types[i] ?? '') || /[\p{L}\p{N}]/u.test(v)) {
            if (tag === 'PUNCT' || tag === 'SYM') return;
            words.push(v);
            wtags.push(tag);
          }
        });
        if (!words.length) return;
        const reason = judge(words.length, hasVerb, functionWords, nounRun, /[.!?]["'”’)]*\s*$/.test(text));
        sentences.push({
          text,
          block: b.index,
          blockKind: b.kind,
          words,
          tags: wtags,
          hasVerb,
          functionWords,
          nounRun,
          wellFormed: reason === null,
          reason,
        });
      });
    }
  }
  const words = blocks.filter((b) => b.kind !== 'code').reduce((a, b) => a + wordsOf(b.text).length, 0);
  return { blocks, sentences, words };
}
