import { describe, expect, it } from 'vitest';
import { answerFirst, questionKind } from '../../../../src/engine/analysis/score/v3/answer-first.ts';
import { calibration } from './fixtures.ts';

describe('answerFirst', () => {
  it('reads the kind of answer from the keyword', () => {
    expect(questionKind('how much does a water heater cost')).toBe('number');
    expect(questionKind('how long to boil an egg')).toBe('number');
    expect(questionKind('best running shoes for flat feet')).toBe('list');
    expect(questionKind('what is limescale')).toBe('definition');
    expect(questionKind('how to descale a kettle')).toBe('steps');
    expect(questionKind('water heater repair denver')).toBe('topic');
  });

  it('number: the opening gives the number', () => {
    const yes = answerFirst(
      '# Cost\n\nA water heater repair will cost $150 to $600 in most homes, and the part you need decides the price.',
      'how much does water heater repair cost',
    );
    expect(yes.kindMet).toBe(true);
    expect(yes.evidence).toBe('$150');
    const no = answerFirst(
      '# Cost\n\nWater heater repair costs vary a lot, and many things decide what you pay for the repair.',
      'how much does water heater repair cost',
    );
    expect(no.kindMet).toBe(false);
    expect(yes.score).toBeGreaterThan(no.score);
  });

  it('definition, steps and list', () => {
    expect(
      answerFirst('Limescale is the chalky crust hard water leaves when it is heated.', 'what is limescale').kindMet,
    ).toBe(true);
    expect(
      answerFirst('Many people ask about it. The answer depends on your water.', 'what is limescale').kindMet,
    ).toBe(false);
    expect(
      answerFirst('Fill the kettle with vinegar and water, then boil it.', 'how to descale a kettle').kindMet,
    ).toBe(true);
    expect(answerFirst('Kettles are great. We love our kettles.', 'how to descale a kettle').kindMet).toBe(false);
    expect(
      answerFirst(
        'The best running shoes for flat feet are the Brooks Adrenaline and the ASICS Kayano.',
        'best running shoes for flat feet',
      ).kindMet,
    ).toBe(true);
  });

  it('a keyword pile in the opening is not an answer; an opening on another topic scores 0', () => {
    expect(
      answerFirst('How to descale a kettle. Descale kettle guide. Kettle descale.', 'how to descale a kettle').score,
    ).toBe(0);
    expect(answerFirst('Brooks make good running shoes for flat feet.', 'how to descale a kettle').score).toBe(0);
  });
});

describe('answerFirst on the calibration set', () => {
  for (const c of calibration()) {
    it(c.topic.slug, () => {
      const s = (l: keyof typeof c.texts) => answerFirst(c.texts[l], c.topic.keyword).score;
      expect(s('expert')).toBe(100);
      expect(s('salad')).toBe(0);
      expect(s('offtopic')).toBe(0);
      expect(s('expert')).toBeGreaterThanOrEqual(s('stub'));
    });
  }
});
