import { describe, expect, it } from 'vitest';
import {
  competitorRates,
  placements,
  saturation,
  termCredit,
  termUses,
} from '../../../../src/engine/analysis/score/v3/saturation.ts';
import { analyzeText } from '../../../../src/engine/analysis/score/v3/text.ts';
import { calibration } from './fixtures.ts';

const target = { term: 'citric acid', medianRate: 4, maxRate: 8 };

describe('saturation', () => {
  it('credit saturates after the first uses', () => {
    const credit = (n: number) => termCredit({ sentence: n, heading: 0, fragment: 0 }, 1000, target).credit;
    const c = [0, 1, 2, 4, 6].map(credit);
    expect(c[0]).toBe(0);
    expect(c[1]! - c[0]!).toBeGreaterThan(c[2]! - c[1]!);
    expect(c[3]).toBe(1);
    expect(c[4]).toBe(1);
  });

  it('loses credit above the competitors’ highest rate, none at twice it', () => {
    const at = (n: number) => termCredit({ sentence: n, heading: 0, fragment: 0 }, 1000, target);
    expect(at(8).credit).toBe(1);
    expect(at(12).credit).toBeCloseTo(0.5, 5);
    expect(at(12).overuseFactor).toBeCloseTo(0.5, 5);
    expect(at(16).credit).toBe(0);
  });

  it('a use in a sentence is worth more than one in a heading-only list or a fragment', () => {
    const prose = 'Citric acid dissolves the scale in about twenty minutes.';
    const list = '- Citric acid\n- Vinegar\n- Lemon';
    const p = termUses(placements(analyzeText(prose)), 'citric acid');
    const l = termUses(placements(analyzeText(list)), 'citric acid');
    expect(p).toEqual({ sentence: 1, heading: 0, fragment: 0 });
    expect(l).toEqual({ sentence: 0, heading: 0, fragment: 1 });
    const t = { ...target, medianRate: 2 };
    expect(termCredit(p, 1000, t).credit).toBeGreaterThan(termCredit(l, 1000, t).credit);
    expect(termUses(placements(analyzeText('## Citric acid\n\nText.')), 'citric acid').heading).toBe(1);
  });

  it('matches by stems and scores the weighted mean', () => {
    const r = saturation('Descaling kettles takes ten minutes with the right acid.', [
      { term: 'descale kettle', medianRate: 1, maxRate: 200, weight: 3 },
      { term: 'limescale', medianRate: 1, maxRate: 200, weight: 1 },
    ]);
    expect(r.terms[0]!.uses.sentence).toBe(1);
    expect(r.terms[1]!.credit).toBe(0);
    expect(r.score).toBe(75);
    expect(saturation('text', []).score).toBeNull();
  });

  it('competitor rates: median and highest per 1,000 words', () => {
    const pages = ['Vinegar works. Vinegar smells.', 'Vinegar is cheap.', 'Citric acid is better.'].map((t) =>
      placements(analyzeText(t)),
    );
    const r = competitorRates(pages, 'vinegar');
    expect(r.maxRate).toBeCloseTo(500, 5);
    expect(r.medianRate).toBeCloseTo(1000 / 3, 5);
  });
});

describe('saturation on the calibration set', () => {
  for (const c of calibration()) {
    it(c.topic.slug, () => {
      const comp = c.competitors.map((p) => placements(analyzeText(p.text)));
      // The salad's own terms (its bullet lists): what it stuffs.
      const terms = [...new Set([...c.texts.salad.matchAll(/^- (.+)$/gm)].map((m) => m[1]!.toLowerCase()))];
      const targets = terms.map((term) => ({ term, ...competitorRates(comp, term) })).filter((t) => t.medianRate > 0);
      const s = (l: keyof typeof c.texts) => saturation(c.texts[l], targets).score!;
      expect(s('expert')).toBeGreaterThan(s('salad'));
      expect(s('expert')).toBeGreaterThan(s('stub'));
      expect(s('expert')).toBeGreaterThan(s('offtopic'));
    });
  }
});
