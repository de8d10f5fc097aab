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
import type { ItsFunction, WinkMethods } from 'wink-nlp';
import { EXTRA_EN_STOP_WORDS } from './stopwords.ts';
import type { LexToken, SpanEntity, TokenStream } from './tokens.ts';
import { CONTRACTION, capOf, charLength, hasLetter, isCjk, normOf } from './tokens.ts';

// Terms are noun phrases: nouns, proper nouns and untaggable words head them, adjectives and `-ing` forms modify
// them; other verbs and adverbs (`ensure`, `highly`) end a phrase and are never a term.
const MODIFIER_POS = new Set(['ADJ']);
const HEAD_POS = new Set(['NOUN', 'PROPN', 'X']);
const MODIFIER_AFTER = new Set(['DET', 'ADP', 'ADJ', 'NUM']);
// An identifier in prose: snake_case, lowerCamelCase (`getLogger`, not `iPhone` or `macOS`).
const IDENTIFIER_SHAPE = /_|^\p{Ll}{2,}\p{Lu}\p{Ll}/u;
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
  // wink's typings give lemma the addon-taking signature, which its own out() does not accept; it is the same helper.
  const lemmaOf = its.lemma as unknown as ItsFunction<string>;
  // A pure function of the word, memoised: the same word always gets the same key, whatever was read before.
  const contextFree = new Map<string, string>();

  function contextFreeKey(lower: string): string {
    const hit = contextFree.get(lower);
    if (hit !== undefined) return hit;
    const doc = nlp.readDoc(lower);
    const tokens = doc.tokens();
    let key = lower;
    if (tokens.length() === 1) {
      const pos = (tokens.out(its.pos) as string[])[0] ?? 'X';
      const lemma = (tokens.out(lemmaOf) as string[])[0] ?? lower;
      // `Earbuds` in a title-case line and `earbuds` in a sentence are one term.
      key =
        pos === 'PROPN'
          ? lower
          : nounFallback(
              lemmaKey(lower, pos, lemma, () => lower),
              lower,
              pos,
              doc.isOOV,
            );
    }
    if (contextFree.size >= CONTEXT_FREE_CACHE_LIMIT) contextFree.clear();
    contextFree.set(lower, key);
    return key;
  }

  function tokenize(text: string): TokenStream {
    // wink recognises contractions (`they've`, `don't`) only with a straight apostrophe.
    const doc = nlp.readDoc(text.replaceAll('’', "'"));
    const all = doc.tokens();
    const values = all.out(its.value) as string[];
    const types = all.out(its.type) as string[];
    const tags = all.out(its.pos) as string[];
    const lemmas = all.out(lemmaOf) as string[];
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

    const rawIdentifiers = identifierSpans(values, types, spaces);
    const inIdentifier = new Array<boolean>(values.length).fill(false);
    for (const span of rawIdentifiers) for (let i = span.start; i <= span.end; i += 1) inIdentifier[i] = true;

    const tokens: LexToken[] = [];
    const outIndex = new Array<number>(values.length).fill(-1);
    let sentence = 0;
    let pendingBreak = true;
    let pendingStart = true;
    let wordCount = 0;
    for (let i = 0; i < values.length; i += 1) {
      let surface = values[i] ?? '';
      let type = types[i] ?? '';
      const space = spaces[i] ?? '';
      const newline = space.includes('\n') || space.includes('\r') || (type === 'tabCRLF' && /[\n\r]/.test(surface));
      if ((sentenceStarts.has(i) || newline) && !pendingBreak) {
        sentence += 1;
        pendingBreak = true;
        pendingStart = true;
      }
      if (type === 'tabCRLF') continue;
      let pos = tags[i] ?? 'X';
      let lemma = lemmas[i] ?? surface;
      let stopFlag = stops[i] ?? false;
      const first = i;
      // wink's tokenizer breaks words at letters outside Latin-1 (`Jelić` -> `Jeli` + `ć`); glue the pieces back.
      while (isLetterPiece(type, surface) && isLetterPiece(types[i + 1] ?? '', values[i + 1] ?? '')) {
        const next = values[i + 1] ?? '';
        const asciiSeam = isAscii(surface.charCodeAt(surface.length - 1)) && isAscii(next.charCodeAt(0));
        if ((spaces[i + 1] ?? '') !== '' || asciiSeam) break;
        i += 1;
        surface += next;
        type = 'word';
        pos = pos === 'PROPN' || tags[i] === 'PROPN' ? 'PROPN' : pos === 'X' ? (tags[i] ?? 'X') : pos;
        lemma = surface;
        stopFlag = false;
        outIndex[i] = tokens.length;
      }
      if (type === 'unk' && hasLetter(surface)) type = 'word';
      const kind = kindOf(type);
      const lower = surface.toLowerCase();
      const stop = stopFlag || EXTRA_EN_STOP_WORDS.has(lower) || CONTRACTION.test(lower);
      const clitic = lower.startsWith("'") || lower.startsWith('’');
      if ((kind === 'word' && !clitic) || kind === 'number') wordCount += 1;
      const ing = lower.length > 4 && lower.endsWith('ing');
      // A "verb" right after a determiner, a preposition or an adjective modifies the noun after it: a participle
      // (`a clogged drain`, `about frozen pipes`) or a noun the tagger misread (`a burr grinder`); after a subject it
      // is the verb of a clause (`we tested machines`).
      if (pos === 'VERB' && MODIFIER_AFTER.has(tags[first - 1] ?? '')) pos = 'ADJ';
      const code = inIdentifier[first] === true;
      const isTerm =
        kind === 'word' &&
        !stop &&
        !clitic &&
        !code &&
        (HEAD_POS.has(pos) || MODIFIER_POS.has(pos) || (pos === 'VERB' && ing)) &&
        !NON_TERM_ENTITIES.has(labelAt[first] ?? '') &&
        !lower.includes('.') &&
        (lower.length > 2 || charLength(lower) >= 2 || isCjk(lower)) &&
        hasLetter(lower);
      const token: LexToken = {
        surface,
        norm: lower.includes('.') && lower.length > 1 ? normOf(surface) : lower,
        key: isTerm ? nounFallback(lemmaKey(lower, pos, lemma, contextFreeKey), lower, pos, doc.isOOV) : '',
        head: isTerm && HEAD_POS.has(pos),
        code,
        kind,
        pos,
        cap: kind === 'word' ? capOf(surface) : 'none',
        stop,
        sentence,
        sentenceStart: kind === 'word' && pendingStart,
        breakBefore: pendingBreak,
        spaceBefore: space.length > 0,
        entity: labelAt[first] ?? '',
      };
      outIndex[first] = tokens.length;
      tokens.push(token);
      pendingBreak = false;
      if (kind === 'word' || kind === 'number') pendingStart = false;
      if (kind === 'punct' && OPENERS.has(surface)) pendingStart = true;
    }

    const spans: SpanEntity[] = reindex(rawSpans, outIndex);
    const identifiers: TokenStream['identifiers'] = reindex(rawIdentifiers, outIndex).map(({ start, end }) => ({
      start,
      end,
    }));
    return { tokens, wordCount, spans, identifiers, isCommonWord: (w) => !doc.isOOV(w) };
  }

  return { tokenize };
}

/** Spans over wink's tokens re-indexed to the stream's tokens; a span whose ends were dropped (line breaks) goes. */
function reindex<T extends { start: number; end: number }>(raw: readonly T[], outIndex: readonly number[]): T[] {
  const out: T[] = [];
  for (const s of raw) {
    const start = outIndex[s.start] ?? -1;
    const end = outIndex[s.end] ?? -1;
    if (start >= 0 && end >= start) out.push({ ...s, start, end });
  }
  return out;
}

/**
 * Identifiers in prose, by raw token span: words joined by dots without spaces (`asyncio.Queue`), a word called
 * (`gather(`), snake_case and lowerCamelCase words. A span covers the words and the dots between them.
 */
function identifierSpans(
  values: readonly string[],
  types: readonly string[],
  spaces: readonly string[],
): Array<{ start: number; end: number }> {
  const word = (i: number) => types[i] === 'word' || types[i] === 'unk';
  const tight = (i: number) => (spaces[i] ?? ' ') === '';
  const out: Array<{ start: number; end: number }> = [];
  let i = 0;
  while (i < values.length) {
    if (!word(i)) {
      i += 1;
      continue;
    }
    let end = i;
    while (values[end + 1] === '.' && tight(end + 1) && word(end + 2) && tight(end + 2)) end += 2;
    const dotted = end > i;
    const called = values[end + 1] === '(' && tight(end + 1);
    let shaped = false;
    for (let k = i; k <= end; k += 2) if (IDENTIFIER_SHAPE.test(values[k] ?? '')) shaped = true;
    // `e.g` and `U.S` are abbreviations, not code: a dotted chain needs a part of three letters or more.
    const longPart = dotted && values.slice(i, end + 1).some((v, k) => k % 2 === 0 && v.length >= 3);
    if ((dotted && longPart) || called || shaped) out.push({ start: i, end });
    i = end + 1;
  }
  return out;
}

function isAscii(code: number): boolean {
  return code < 128;
}

function isLetterPiece(type: string, value: string): boolean {
  return (type === 'word' || type === 'unk') && hasLetter(value);
}

function kindOf(type: string): LexToken['kind'] {
  if (type === 'word') return 'word';
  if (type === 'number' || type === 'ordinal') return 'number';
  if (type === 'punctuation') return 'punct';
  return 'other';
}

// wink singularises a noun only when it knows the singular, so `frothers` stays plural while `machines` does not.
// For nouns outside its lexicon, regular English plural endings are removed instead.
function nounFallback(key: string, lower: string, pos: string, isOOV: (w: string) => boolean): string {
  if (pos !== 'NOUN' || key !== lower || lower.length < 4 || !lower.endsWith('s') || !isOOV(lower)) return key;
  if (/(ss|us|is|os|as)$/.test(lower)) return key;
  if (lower.endsWith('ies') && lower.length > 4) return lower.slice(0, -3) + 'y';
  if (/(sses|xes|ches|shes|zzes)$/.test(lower)) return lower.slice(0, -2);
  return lower.slice(0, -1);
}

function lemmaKey(lower: string, pos: string, lemma: string, contextFreeKey: (w: string) => string): string {
  if (lower.length > 4 && lower.endsWith('ing')) return lower;
  if (pos === 'ADJ') return lower;
  if (pos === 'PROPN') return contextFreeKey(lower);
  return lemma.toLowerCase();
}
