import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../../src/engine/analysis/sentences.ts';

/** The one sentence splitter: wink for English, Intl.Segmenter otherwise, and the repairs both share. */
describe('splitSentences', () => {
  it.each([
    [
      'initials',
      'Brands like A.O. Smith and State last 10 years. Others fail sooner.',
      ['Brands like A.O. Smith and State last 10 years.', 'Others fail sooner.'],
    ],
    [
      'e.g. and decimals',
      'Use a 3.5 kW unit, e.g. a small one. It is cheap.',
      ['Use a 3.5 kW unit, e.g. a small one.', 'It is cheap.'],
    ],
    [
      'U.S. inside a sentence',
      'It works in the U.S. market too. Mr. Smith agrees.',
      ['It works in the U.S. market too.', 'Mr. Smith agrees.'],
    ],
    [
      'a quoted question and its speaker',
      '“Is it safe?” she asked. Yes it is!',
      ['“Is it safe?” she asked.', 'Yes it is!'],
    ],
    [
      'figure numbers and approximations',
      'See Fig. 3 for details. Prices vary (approx. 20%). Done.',
      ['See Fig. 3 for details.', 'Prices vary (approx. 20%).', 'Done.'],
    ],
    [
      'citation markers after the full stop',
      'One fact. [2] Next one [1]. Last.',
      ['One fact.[2]', 'Next one [1].', 'Last.'],
    ],
    [
      'dotted names keep their text',
      'For CPU-bound work, use concurrent.futures. Call asyncio.run(main()) once. Visit example.com today.',
      ['For CPU-bound work, use concurrent.futures.', 'Call asyncio.run(main()) once.', 'Visit example.com today.'],
    ],
    [
      'a dotted name inside a sentence',
      'Create the queue from an asyncio.Queue with a maxsize. Then start workers.',
      ['Create the queue from an asyncio.Queue with a maxsize.', 'Then start workers.'],
    ],
    [
      'a quotation of two sentences',
      'She said, “It works. Really.” Then she left.',
      ['She said, “It works. Really.”', 'Then she left.'],
    ],
    ['line breaks', 'First line without a stop\nSecond line.', ['First line without a stop', 'Second line.']],
  ])('English: %s', (_label, text, expected) => {
    expect(splitSentences(text, 'en-US')).toEqual(expected);
  });

  it('other languages: letter abbreviations and initials do not end a sentence', () => {
    expect(splitSentences('Dichtung z. B. tauschen. Laut J. Müller reichen 3,5 kW. Fertig.', 'de')).toEqual([
      'Dichtung z. B. tauschen.',
      'Laut J. Müller reichen 3,5 kW.',
      'Fertig.',
    ]);
  });

  it('answers the same sentences from its cache, and callers cannot change what it keeps', () => {
    const text = 'A cached paragraph. It has two sentences.';
    const first = splitSentences(text);
    first.push('changed');
    expect(splitSentences(text)).toEqual(['A cached paragraph.', 'It has two sentences.']);
  });
});
