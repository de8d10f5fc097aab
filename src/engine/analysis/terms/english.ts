/**
 * English token stream from wink-nlp: its tokenizer, sentence boundaries, POS tags, lemmas, stop-word flags and
 * numeric/date entities.
 *
 * Lemma keys follow wink's lemmas with three exceptions, all for consistency across pages (a term must get the same
 * key whatever the tagger decided in each page's context):
 * - `-ing` forms keep their surface (`running shoes` -> `running shoe`): the tagger flips between VERB, ADJ and NOUN
 *   for them, and wink lemmatises only the VERB reading, which would split one phrase into two keys.
 * - adjectives keep their surface: wink maps `best` to `good`, which merges terms a reader treats as different.
 * - proper nouns take the lemma the word gets on its own (`Shoes` in a title-case line -> `shoe`), because wink does
 *   not lemmatise PROPN and title-case lines are tagged PROPN wholesale.
 */
import type { WinkMethods } from 'wink-nlp';
import { EXTRA_EN_STOP_WORDS } from './stopwords.ts';
import type { LexToken, SpanEntity, TokenStream } from './tokens.ts';
import { capOf, charLength, hasLetter, isCjk, normOf } from './tokens.ts';

const CONTENT_POS = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ', 'ADV', 'X']);
// Words wink labels as part of these entities are not terms: `March` in `5 March 2024`, `today`.
const NON_TERM_ENTITIES = new Set(['DATE', 'TIME']);
// A capital after one of these starts a quotation, a list item or a label, not a name.
const OPENERS = new Set([':', '"', '“', '”', '‘', "'", '(', '[', '{', '•', '·', '*', '|', '—', '–', '>', '«', '»']);
const CONTEXT_FREE_CACHE_LIMIT = 50_000;

export interface EnglishTokenizer {
  tokenize(text: string): TokenStream;
}

/** Binds the English pipeline to one loaded wink instance. */
export function createEnglishTokenizer(nlp: WinkMethods): EnglishTokenizer {
  const its = nlp.its;
  // A pure function of the word, memoised: the same word always gets the same key, whatever was read before.
  const contextFree = new Map<string, string>();

  function contextFreeKey(lower: string): string {
    const hit = contextFree.get(lower);
    if (hit !== undefined) return hit;
    const tokens = nlp.readDoc(lower).tokens();
    let key = lower;
    if (tokens.length() === 1) {
      const pos = (tokens.out(its.pos) as string[])[0] ?? 'X';
      const lemma = (tokens.out(its.lemma) as string[])[0] ?? lower;
      key = pos === 'PROPN' ? lower : lemmaKey(lower, pos, lemma, () => lower);
    }
    if (contextFree.size >= CONTEXT_FREE_CACHE_LIMIT) contextFree.clear();
    contextFree.set(lower, key);
    return key;
  }

  function tokenize(text: string): TokenStream {
    const doc = nlp.readDoc(text);
    const all = doc.tokens();
    const values = all.out(its.value) as string[];
    const types = all.out(its.type) as string[];
    const tags = all.out(its.pos) as string[];
    const lemmas = all.out(its.lemma) as string[];
    const stops = all.out(its.stopWordFlag) as unknown as boolean[];
    const spaces = all.out(its.precedingSpaces) as string[];
    const sentenceStarts = new Set((doc.sentences().out(its.span) as unknown as number[][]).map((s) => s[0]));
    const entitySpans = doc.entities().out(its.span) as unknown as number[][];
    const entityLabels = doc.entities().out(its.type) as string[];

    const labelAt = new Array<string>(values.length).fill('');
    const rawSpans: Array<{ start: number; end: number; label: string }> = [];
    entitySpans.forEach((span, k) => {
      const [start, end] = span;
      const label = entityLabels[k] ?? '';
      if (start === undefined || end === undefined) return;
      for (let i = start; i <= end; i += 1) labelAt[i] = label;
      rawSpans.push({ start, end, label });
    });

    const tokens: LexToken[] = [];
    const outIndex = new Array<number>(values.length).fill(-1);
    let sentence = 0;
    let pendingBreak = true;
    let pendingStart = true;
    let wordCount = 0;
    for (let i = 0; i < values.length; i += 1) {
      const surface = values[i] ?? '';
      const type = types[i] ?? '';
      const space = spaces[i] ?? '';
      const newline = space.includes('\n') || space.includes('\r') || (type === 'tabCRLF' && /[\n\r]/.test(surface));
      if ((sentenceStarts.has(i) || newline) && !pendingBreak) {
        sentence += 1;
        pendingBreak = true;
        pendingStart = true;
      }
      if (type === 'tabCRLF') continue;
      const kind = kindOf(type);
      const lower = surface.toLowerCase();
      const pos = tags[i] ?? 'X';
      const stop = (stops[i] ?? false) || EXTRA_EN_STOP_WORDS.has(lower);
      const clitic = lower.startsWith("'") || lower.startsWith('’');
      if ((kind === 'word' && !clitic) || kind === 'number') wordCount += 1;
      const isTerm =
        kind === 'word' &&
        CONTENT_POS.has(pos) &&
        !stop &&
        !clitic &&
        !lower.includes('.') &&
        hasLetter(lower) &&
        (charLength(lower) >= 2 || isCjk(lower)) &&
        !NON_TERM_ENTITIES.has(labelAt[i] ?? '');
      const token: LexToken = {
        surface,
        norm: normOf(surface),
        key: isTerm ? lemmaKey(lower, pos, lemmas[i] ?? lower, contextFreeKey) : '',
        kind,
        pos,
        cap: kind === 'word' ? capOf(surface) : 'none',
        stop,
        sentence,
        sentenceStart: kind === 'word' && pendingStart,
        breakBefore: pendingBreak,
        spaceBefore: space.length > 0,
        entity: labelAt[i] ?? '',
      };
      outIndex[i] = tokens.length;
      tokens.push(token);
      pendingBreak = false;
      if (kind === 'word' || kind === 'number') pendingStart = false;
      if (kind === 'punct' && OPENERS.has(surface)) pendingStart = true;
    }

    const spans: SpanEntity[] = [];
    for (const s of rawSpans) {
      const start = outIndex[s.start] ?? -1;
      const end = outIndex[s.end] ?? -1;
      if (start >= 0 && end >= start) spans.push({ start, end, label: s.label });
    }
    return { tokens, wordCount, spans, isCommonWord: (w) => !doc.isOOV(w) };
  }

  return { tokenize };
}

function kindOf(type: string): LexToken['kind'] {
  if (type === 'word') return 'word';
  if (type === 'number' || type === 'ordinal') return 'number';
  if (type === 'punctuation') return 'punct';
  return 'other';
}

function lemmaKey(lower: string, pos: string, lemma: string, contextFreeKey: (w: string) => string): string {
  if (lower.length > 4 && lower.endsWith('ing')) return lower;
  if (pos === 'ADJ') return lower;
  if (pos === 'PROPN') return contextFreeKey(lower);
  return lemma.toLowerCase();
}
