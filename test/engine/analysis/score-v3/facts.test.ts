import { describe, expect, it } from 'vitest';
import { buildFactList, extractFacts, factCoverage } from '../../../../src/engine/analysis/score/v3/facts.ts';
import { calibration } from './fixtures.ts';

const pages = [
  { url: 'https://a.example/', text: 'Use 15 g of citric acid in 500 ml of water. We tested a Russell Hobbs kettle.' },
  {
    url: 'https://b.example/',
    text: 'Dissolve 15 grams of citric acid in the kettle. Russell Hobbs kettles scale fast.',
  },
  {
    url: 'https://c.example/',
    text: 'Leave it for 15 g minutes? No: leave the vinegar for 60 minutes. Boil 500 ml of milk.',
  },
];

describe('facts', () => {
  it('extracts numbers with units and subjects, and names', () => {
    const m = extractFacts(
      'Add 15 g of citric acid to 1.5 litres of water; it costs $4. Brooks Adrenaline GTS 24 is stable.',
    );
    expect(m.filter((x) => x.kind === 'number').map((x) => x.key)).toEqual(['15 g', '1.5 l', 'usd 4']);
    expect(m.find((x) => x.key === '15 g')!.context).toEqual(expect.arrayContaining(['citric', 'acid']));
    expect(m.filter((x) => x.kind === 'entity').map((x) => x.text)).toEqual(['Brooks Adrenaline GTS 24']);
  });

  it('a fact is what two pages share (value, unit and a subject word)', () => {
    const list = buildFactList(pages);
    const ids = list.facts.map((f) => f.id);
    expect(ids).toContain('number:15 g');
    expect(ids).toContain('entity:russell hobbs');
    // 500 ml of water and 500 ml of milk share no subject word: not one fact.
    expect(ids).not.toContain('number:500 ml');
    const f = list.facts.find((x) => x.id === 'number:15 g')!;
    expect(f.urls).toEqual(['https://a.example/', 'https://b.example/']);
    expect(f.about).toEqual(expect.arrayContaining(['citric', 'acid']));
  });

  it('coverage and bounded information gain', () => {
    const list = buildFactList(pages);
    const none = factCoverage('Kettles are useful.', list, 'descale kettle');
    expect(none.covered).toEqual([]);
    expect(none.score).toBe(0);
    const some = factCoverage('Mix 15 g of citric acid with water and boil the kettle.', list, 'descale kettle');
    expect(some.covered.map((f) => f.id)).toEqual(['number:15 g']);
    const more = factCoverage(
      'Mix 15 g of citric acid with water. Russell Hobbs say descale the kettle every 4 weeks; ' +
        'a kettle uses 10% more energy when scaled, a kettle lasts 5 years, a kettle holds 1.7 litres, ' +
        'a kettle boils in 3 minutes, a kettle draws 3 kW and a kettle costs $30.',
      list,
      'descale kettle',
    );
    expect(more.covered).toHaveLength(list.facts.length);
    expect(more.gain).toBe(5);
    expect(more.added.length).toBeGreaterThan(5);
    expect(more.score).toBe(100);
    expect(factCoverage('x', { facts: [], known: [], topic: [] }).score).toBeNull();
  });
});

describe('facts on the calibration set', () => {
  for (const c of calibration()) {
    it(c.topic.slug, () => {
      const list = buildFactList(c.competitors);
      expect(list.facts.length).toBeGreaterThanOrEqual(5);
      for (const f of list.facts) expect(f.urls.length).toBeGreaterThanOrEqual(2);
      const s = (l: keyof typeof c.texts) => factCoverage(c.texts[l], list, c.topic.keyword).score!;
      expect(s('expert')).toBeGreaterThan(s('salad'));
      expect(s('expert')).toBeGreaterThan(s('stub'));
      expect(s('expert')).toBeGreaterThan(s('offtopic'));
    });
  }
});
