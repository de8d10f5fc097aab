/**
 * Token stream for languages other than English, which wink's English model cannot tag.
 *
 * Graceful degradation, never a crash: Intl.Segmenter (word granularity, with ICU's dictionaries for Chinese,
 * Japanese and Thai) splits the text; words are lower-cased and are their own lemma (no morphology); stop words come
 * from the short per-language lists in stopwords.ts (de, fr, es, it, nl, pt, zh, ja; other languages get none);
 * Japanese words written only in hiragana are treated as stop words (particles, endings, auxiliaries); French,
 * Italian and Catalan elisions (`l'homme`) drop the elided article. n-grams are then built exactly as for English.
 * URLs and e-mail addresses are cut out first so they never become words.
 */
import { ELISIONS, stopWordsFor } from './stopwords.ts';
import type { LexToken, TokenStream } from './tokens.ts';
import { capOf, charLength, hasLetter, isCjk, normOf } from './tokens.ts';

const URL_OR_EMAIL = /\b(?:https?:\/\/|www\.)\S+|[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu;
const SENTENCE_END = /[.!?。！？…]/u;
const OPENERS = /^[:"“”‘'([{•·*|—–>«»「『【（]+$/u;
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;
const APOSTROPHE = /^(\p{L}{1,6})['’](\p{L}.*)$/u;

export interface SegmenterTokenizer {
  tokenize(text: string, language: string): TokenStream;
}

/** Creates a tokenizer that keeps one Intl.Segmenter per language for the factory's lifetime. */
export function createSegmenterTokenizer(): SegmenterTokenizer {
  const segmenters = new Map<string, Intl.Segmenter>();

  function segmenterFor(language: string): Intl.Segmenter {
    const hit = segmenters.get(language);
    if (hit) return hit;
    let segmenter: Intl.Segmenter;
    try {
      segmenter = new Intl.Segmenter(language, { granularity: 'word' });
    } catch {
      // An invalid tag must not fail the analysis: ICU's root rules still split most scripts sensibly.
      segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
    }
    if (segmenters.size < 64) segmenters.set(language, segmenter);
    return segmenter;
  }

  function tokenize(text: string, language: string): TokenStream {
    const stopWords = stopWordsFor(language);
    const elisions = ELISIONS[language];
    const cleaned = text.replace(URL_OR_EMAIL, ' ¦ ');
    const tokens: LexToken[] = [];
    let sentence = 0;
    let pendingBreak = true;
    let pendingStart = true;
    let spaceBefore = false;
    let wordCount = 0;

    const push = (surface: string, kind: LexToken['kind'], key: string, stop: boolean): void => {
      tokens.push({
        surface,
        norm: normOf(surface),
        key,
        head: true,
        code: false,
        kind,
        pos: '',
        cap: kind === 'word' ? capOf(surface) : 'none',
        stop,
        sentence,
        sentenceStart: kind === 'word' && pendingStart,
        breakBefore: pendingBreak,
        spaceBefore,
        entity: '',
      });
      pendingBreak = false;
      spaceBefore = false;
    };

    for (const part of segmenterFor(language).segment(cleaned)) {
      const seg = part.segment;
      if (!part.isWordLike) {
        if (/^\s+$/u.test(seg)) {
          spaceBefore = true;
          if (/[\n\r]/.test(seg)) boundary();
          continue;
        }
        push(seg, 'punct', '', false);
        if (SENTENCE_END.test(seg)) boundary();
        else if (OPENERS.test(seg)) pendingStart = true;
        continue;
      }
      if (!hasLetter(seg)) {
        wordCount += 1;
        push(seg, 'number', '', false);
        pendingStart = false;
        continue;
      }
      let surface = seg;
      const elided = elisions ? APOSTROPHE.exec(seg) : null;
      if (elided && elisions?.has((elided[1] ?? '').toLowerCase())) surface = elided[2] ?? seg;
      const lower = surface.toLowerCase();
      const stop =
        stopWords.has(lower) ||
        (language === 'ja' && HIRAGANA_ONLY.test(lower)) ||
        (!isCjk(lower) && charLength(lower) < 2);
      wordCount += 1;
      push(surface, 'word', stop ? '' : lower, stop);
      pendingStart = false;
    }

    function boundary(): void {
      if (!pendingBreak) sentence += 1;
      pendingBreak = true;
      pendingStart = true;
    }

    return { tokens, wordCount, spans: [], identifiers: [], isCommonWord: () => true };
  }

  return { tokenize };
}
