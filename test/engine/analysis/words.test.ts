import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Model } from 'wink-nlp';
import { stemEnglish } from '../../../src/engine/analysis/stem.ts';
import { createWink } from '../../../src/engine/analysis/wink.ts';
import { EXTRA_EN_STOP_WORDS, WINK_EN_STOP_WORDS, stopWordsFor } from '../../../src/engine/analysis/terms/stopwords.ts';
import { contentStems, stemEn, tokenize } from '../../../src/engine/analysis/words.ts';
import { stem as archiveStem, terms } from '../../../src/providers/web/archive/terms.ts';

/** One English stemmer (Porter2) and one stop-word list per language, for every tokenizer. */
describe('stemEnglish', () => {
  it('lets inflected forms meet', () => {
    for (const group of [
      ['descale', 'descaling', 'descaled', 'descales'],
      ['leak', 'leaks', 'leaking', 'leaked'],
      ['battery', 'batteries'],
      ['heater', 'heaters'],
      ['business', 'businesses'],
      ['bake', 'bakes', 'baking', 'baked'],
    ]) {
      expect(new Set(group.map(stemEnglish)), group.join(' ')).toEqual(new Set([stemEnglish(group[0]!)]));
    }
    expect(stemEnglish('running')).toBe('run');
    expect(stemEnglish("plumber's")).toBe(stemEnglish('plumber'));
  });

  it('leaves words with digits and very short words as they are', () => {
    expect(stemEnglish('mp3s')).toBe('mp3s');
    expect(stemEnglish('4k')).toBe('4k');
    expect(stemEnglish('is')).toBe('is');
  });

  it('is the stemmer of the word tokens and of the archive search terms', () => {
    for (const w of ['descaling', 'heating', 'organizations', 'batteries']) {
      expect(stemEn(w)).toBe(stemEnglish(w));
      expect(archiveStem(w)).toBe(stemEnglish(w));
    }
  });
});

describe('stop words', () => {
  it("copies wink's own English list exactly (its.stopWordFlag of the installed model)", () => {
    const require = createRequire(import.meta.url);
    const model = require('wink-eng-lite-web-model') as Model & {
      core(): { features: { lexeme: { list: string[] } } };
    };
    const nlp = createWink([]);
    const read = (text: string) => {
      const tokens = nlp.readDoc(text).tokens();
      return {
        values: tokens.out(nlp.its.value) as string[],
        flags: tokens.out(nlp.its.stopWordFlag) as unknown as boolean[],
        spaces: tokens.out(nlp.its.precedingSpaces) as string[],
      };
    };
    // Every copied word is one wink flags (`cannot` is read as `can` `not`, both flagged).
    for (const w of WINK_EN_STOP_WORDS) expect(read(w).flags.every(Boolean), w).toBe(true);
    // Every word of wink's lexicon made of letters that wink flags, read whole (not split as `shouldve` is), is in
    // the copy.
    const lexicon = model.core().features.lexeme.list.filter((w) => /^[a-z]+$/.test(w));
    const all = read(lexicon.join('\n'));
    const line = (i: number) => i === 0 || (all.spaces[i] ?? '').includes('\n');
    const whole = (i: number) => line(i) && (i + 1 === all.values.length || line(i + 1));
    const missing = all.values.filter((v, i) => whole(i) && all.flags[i] && !WINK_EN_STOP_WORDS.has(v));
    expect(missing).toEqual([]);
  }, 60_000);

  it('is one English list for every tokenizer: wink plus the project additions', () => {
    const en = stopWordsFor('en');
    for (const w of [...WINK_EN_STOP_WORDS, ...EXTRA_EN_STOP_WORDS]) expect(en.has(w), w).toBe(true);
    expect(en.size).toBe(new Set([...WINK_EN_STOP_WORDS, ...EXTRA_EN_STOP_WORDS]).size);
    // Topic words stay content words (the long generic lists count these as stop words).
    for (const w of ['computer', 'information', 'home', 'best', 'free', 'water', 'heater'])
      expect(en.has(w), w).toBe(false);
    expect(stopWordsFor('de').has('mensch')).toBe(false);
    expect(stopWordsFor('de').has('der')).toBe(true);
    expect(stopWordsFor('und').size).toBe(0);
  });

  it('marks the word tokens: stop words, negations and contractions of stop words, not possessives', () => {
    const stop = (text: string) =>
      tokenize(text, 'en')
        .filter((t) => t.stop)
        .map((t) => t.lower);
    expect(stop("It's the best heater you'll find, and it doesn't leak: John's pick.")).toEqual([
      "it's",
      'the',
      "you'll",
      'and',
      'it',
      "doesn't",
    ]);
    expect(contentStems('Descaling the espresso machines', 'en')).toEqual(['descal', 'espresso', 'machin']);
  });

  it('drops the same stop words from the archive search terms', () => {
    expect(terms("The Heat Pumps of Minnesota: we'll install yours together")).toEqual([
      'heat',
      'pump',
      'minnesota',
      'instal',
    ]);
  });
});
