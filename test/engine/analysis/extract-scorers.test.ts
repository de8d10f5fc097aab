// The scorer ports must agree with the published Python scorers; expected values were produced by running
// zyte-aeb/evaluate.py and wcxb-dev/evaluate.py on the same strings.
import { describe, expect, it } from 'vitest';
import {
  pyWordTokens,
  wcxbSnippetRate,
  wcxbTokens,
  wcxbWordF1,
  zyteMetrics,
  zyteShingleMatching,
} from '../../../bench/lib/extraction-scorers.ts';

const cases: [truth: string, pred: string][] = [
  [
    'The quick brown fox jumps over the lazy dog. The quick brown fox!',
    'quick brown fox jumps over the lazy cat; The quick brown fox',
  ],
  ['Ünïcödé wörds_1 2024 café', 'café Ünïcödé wörds_1'],
  ['one two', 'one two three'],
  ['', 'something here'],
  ['Hello World hello', ''],
];

describe('zyte-aeb scorer port', () => {
  it('matches string_shingle_matching', () => {
    const expected = [
      [0.35714285714285715, 0.2857142857142857, 0.35714285714285715],
      [0, 0.5, 0.5],
      [0, 0.5, 0.5],
      [0, 1, 0],
      [0, 0, 1],
    ];
    cases.forEach(([t, p], i) => {
      const got = zyteShingleMatching(t, p);
      (expected[i] as number[]).forEach((v, j) => expect(got[j]).toBeCloseTo(v, 12));
    });
  });

  it('matches metrics_from_tp_fp_fns', () => {
    const m = zyteMetrics(cases.map(([t, p]) => zyteShingleMatching(t, p)));
    expect(m.f1).toBeCloseTo(0.13157894736842105, 12);
    expect(m.precision).toBeCloseTo(0.1388888888888889, 12);
    expect(m.recall).toBeCloseTo(0.125, 12);
  });

  it("tokenises like Python's \\w+ (letters, numbers, underscore; not combining marks)", () => {
    expect(pyWordTokens('naïve e\u0301 x\u00b2 ½ _a-b 日本語')).toEqual(['naïve', 'e', 'x²', '½', '_a', 'b', '日本語']);
  });
});

describe('wcxb-dev scorer port', () => {
  it('matches word_f1', () => {
    const expected = [
      [0.9166666666666666, 0.8461538461538461, 0.8799999999999999],
      [1, 0.75, 0.8571428571428571],
      [0.6666666666666666, 1, 0.8],
      [0, 0, 0],
      [0, 0, 0],
    ];
    cases.forEach(([t, p], i) => {
      const got = wcxbWordF1(p, t);
      (expected[i] as number[]).forEach((v, j) => expect(got[j]).toBeCloseTo(v, 12));
    });
    expect(wcxbWordF1('', '')).toEqual([1, 1, 1]);
  });

  it('lowercases before tokenising, as Python does', () => {
    expect(wcxbTokens('İSTANBUL Straße')).toEqual(['i', 'stanbul', 'straße']);
  });

  it('checks snippets case-insensitively', () => {
    expect(wcxbSnippetRate('Hello World', ['hello', 'WORLD', 'nope'])).toBeCloseTo(2 / 3, 12);
    expect(wcxbSnippetRate('x', [])).toBe(1);
  });
});
