import { describe, expect, it } from 'vitest';
import {
  buildOriginalityModel,
  deserializeOriginalityModel,
  modelBytes,
  originality,
  originalityScore,
  serializeOriginalityModel,
} from '../../../../src/engine/analysis/score/v3/originality.ts';
import { calibration } from './fixtures.ts';

const A = 'https://a.example/descale';
const B = 'https://b.example/kettle';
const pages = [
  {
    url: A,
    text: 'Fill the kettle halfway with a mix of water and white vinegar, then boil it and leave it for an hour.\nRinse it twice.',
  },
  {
    url: B,
    text: 'Citric acid works faster than vinegar and leaves no smell in the kettle afterwards, which tea drinkers like.',
  },
];

describe('originality', () => {
  const model = buildOriginalityModel(pages);

  it('an original text copies nothing and scores 100', () => {
    const r = originality(
      'My grandmother cleaned hers with lemon peel every Sunday, and it never furred up once.',
      model,
    );
    expect(r.copiedWords).toBe(0);
    expect(r.passages).toEqual([]);
    expect(r.score).toBe(100);
  });

  it('finds a copied passage (case, punctuation and markup ignored) with its source', () => {
    const text =
      'Here is my method. **Citric acid** works faster than Vinegar, and leaves no smell in the kettle afterwards. I like it.';
    const r = originality(text, model);
    expect(r.passages).toHaveLength(1);
    expect(r.passages[0]).toMatchObject({ url: B, words: 14 });
    expect(r.passages[0]!.text).toBe(
      'Citric acid works faster than Vinegar, and leaves no smell in the kettle afterwards',
    );
    expect(r.copiedShare).toBeCloseTo(14 / r.words, 5);
    expect(r.score).toBeLessThan(100);
  });

  it('splits passages stitched from two pages and attributes each', () => {
    const text =
      'Fill the kettle halfway with a mix of water and white vinegar, then boil it. Citric acid works faster than vinegar and leaves no smell.';
    const r = originality(text, model);
    expect(r.passages.map((p) => p.url).sort()).toEqual([A, B]);
    expect(r.bySource.map((s) => s.url).sort()).toEqual([A, B]);
    expect(r.copiedShare).toBeGreaterThan(0.9);
  });

  it('shingles do not span lines: eight words across two lines are not a copy', () => {
    const r = originality(
      'then boil it and leave it for an hour.\nRinse it twice.',
      buildOriginalityModel([pages[0]!], 8),
    );
    expect(r.passages.map((p) => p.text)).toEqual(['then boil it and leave it for an hour']);
  });

  it('counts the text repeating itself (a keyword salad) as unoriginal', () => {
    const salad = Array.from(
      { length: 12 },
      (_, i) => `Term${i} how to descale a kettle. How to descale a kettle term${i}.`,
    ).join(' ');
    const r = originality(salad, model);
    expect(r.copiedWords).toBe(0);
    expect(r.selfRepeatShare).toBeGreaterThan(0.6);
    expect(r.repeatedPhrases[0]).toMatchObject({ phrase: 'how to descale a', uses: 24 });
    expect(r.score).toBe(0);
  });

  it('the score falls with the unoriginal share', () => {
    expect(originalityScore(0)).toBe(100);
    expect(originalityScore(0.1)).toBeGreaterThan(originalityScore(0.2));
    expect(originalityScore(0.6)).toBe(0);
    expect(originalityScore(0.9)).toBe(0);
  });

  it('the model serialises to base64 and back to the same answers', () => {
    const data = JSON.parse(JSON.stringify(serializeOriginalityModel(model))) as ReturnType<
      typeof serializeOriginalityModel
    >;
    const back = deserializeOriginalityModel(data);
    expect([...back.hashes]).toEqual([...model.hashes]);
    expect([...back.sources]).toEqual([...model.sources]);
    const text = 'Citric acid works faster than vinegar and leaves no smell in the kettle afterwards.';
    expect(originality(text, back)).toEqual(originality(text, model));
    expect(modelBytes(model)).toBe(model.hashes.length * 6);
  });

  it('is deterministic', () => {
    const again = buildOriginalityModel(pages);
    expect([...again.hashes]).toEqual([...model.hashes]);
  });
});

describe('originality on the calibration set', () => {
  for (const c of calibration()) {
    it(c.topic.slug, () => {
      const model = buildOriginalityModel(c.competitors);
      // About 6 bytes per shingle, fewer shingles than words: under 6 KB per 1,000 competitor words.
      expect(modelBytes(model) / model.words).toBeLessThan(6);
      const r = Object.fromEntries(
        Object.entries(c.texts).map(([label, text]) => [label, originality(text, model)]),
      ) as Record<keyof typeof c.texts, ReturnType<typeof originality>>;
      expect(r.expert.score).toBeGreaterThan(r.salad.score);
      expect(r.expert.score).toBeGreaterThan(r.collage.score);
      expect(r.expert.copiedShare).toBeLessThan(0.2);
      expect(r.collage.copiedShare).toBeGreaterThan(0.8);
      expect(r.collage.passages.length).toBeGreaterThan(10);
      // Its passages name the competitor pages they came from, every page of the collage's round robin.
      const urls = new Set(r.collage.passages.map((p) => p.url));
      expect(urls).toEqual(new Set(c.competitors.map((p) => p.url)));
      expect(r.salad.selfRepeatShare).toBeGreaterThan(0.5);
      expect(r.offtopic.copiedShare).toBeLessThan(0.02);
    });
  }
});
