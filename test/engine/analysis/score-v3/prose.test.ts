import { describe, expect, it } from 'vitest';
import { prose } from '../../../../src/engine/analysis/score/v3/prose.ts';
import { analyzeText, parseBlocks } from '../../../../src/engine/analysis/score/v3/text.ts';
import { calibration } from './fixtures.ts';

const ARTICLE = `# Descaling a kettle

Limescale builds up in a kettle when hard water is boiled again and again. The crust is calcium carbonate, and it
makes the kettle slower and noisier. Citric acid dissolves it in about twenty minutes, while vinegar needs an hour and
leaves a smell that takes two or three boils to clear. If you live in a hard water area, descale once a month.

## Why it matters

A thin layer on the element wastes energy, because the scale insulates the element from the water. Flakes also end up
in your tea, which few people enjoy.
`;

const FRAGMENTS = `# Kettle descaling

- Kettle descaling
- Citric acid
- White vinegar limescale kettle
- Hard water
- Kettle element

Kettle descaling citric acid. Vinegar kettle. Limescale kettle descaling guide. Descaling kettle tips.
`;

describe('text blocks and sentences', () => {
  it('parses headings, lists, tables, code and paragraphs', () => {
    const blocks = parseBlocks(
      '# Title\n\nA **bold** [link](http://x).\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```',
    );
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'paragraph', 'list', 'list', 'table', 'table', 'code']);
    expect(blocks[1]!.text).toBe('A bold link.');
  });

  it('tells sentences from fragments', () => {
    const a = analyzeText(
      'Unplug the kettle and let it cool. Best running shoes for flat feet. How to descale a kettle citric acid. Yes.',
    );
    expect(a.sentences.map((s) => [s.wellFormed, s.reason])).toEqual([
      [true, null],
      [false, 'no_verb'],
      [false, 'no_verb'],
      [false, 'too_short'],
    ]);
  });
});

describe('prose', () => {
  it('an article is prose; a list of fragments is not, and is not "easy to read"', () => {
    const good = prose(ARTICLE);
    const bad = prose(FRAGMENTS);
    expect(good.sentences.score).toBe(100);
    expect(bad.sentences.score).toBe(0);
    expect(good.readability.score).toBeGreaterThan(50);
    expect(bad.readability.score).toBe(0);
    expect(bad.readability.evidence.fleschOnSentences).toBeNull();
    expect(good.score).toBeGreaterThan(bad.score + 40);
  });

  it('readability differs between texts that differ', () => {
    const plain = prose('The cat sat on the mat. The dog ran to the park. We had tea at home. It was a good day.');
    const dense = prose(
      'Contemporary electrochemical descaling methodologies necessitate considerable procedural standardisation. Organisational implementation demonstrates substantial variability internationally.',
    );
    expect(plain.readability.evidence.fleschOnSentences).not.toEqual(dense.readability.evidence.fleschOnSentences);
    expect(plain.readability.score).toBeGreaterThan(dense.readability.score);
  });

  it('repetition: the same trigrams and openings again and again', () => {
    const rep = prose(
      Array.from({ length: 10 }, (_, i) => `The best kettle descaler is citric acid number ${i} for you.`).join(' '),
    );
    expect(rep.repetition.score).toBeLessThan(30);
    expect(rep.variety.score).toBeLessThan(30);
    expect(prose(ARTICLE).repetition.score).toBe(100);
  });

  it('FAQ answers that answer, and "Yes." that does not', () => {
    const faq = prose(`## FAQ

### Is vinegar safe for a kettle?

Vinegar is safe for a kettle if you rinse it and boil fresh water twice afterwards.

### Does citric acid work on a glass kettle?

Yes.
`);
    expect(faq.faq).not.toBeNull();
    expect(faq.faq!.evidence).toMatchObject({ questions: 2, answered: 1 });
    expect(faq.faq!.evidence.unanswered).toEqual(['Does citric acid work on a glass kettle?']);
    expect(faq.faq!.score).toBe(50);
    expect(prose(ARTICLE).faq).toBeNull();
  });

  it('is deterministic', () => {
    expect(prose(ARTICLE)).toEqual(prose(ARTICLE));
  });
});

describe('prose on the calibration set', () => {
  for (const c of calibration()) {
    it(c.topic.slug, () => {
      const r = Object.fromEntries(Object.entries(c.texts).map(([l, t]) => [l, prose(t)])) as Record<
        keyof typeof c.texts,
        ReturnType<typeof prose>
      >;
      expect(r.expert.score).toBeGreaterThan(r.salad.score + 40);
      expect(r.expert.score).toBeGreaterThan(r.collage.score);
      expect(r.expert.readability.score).toBeGreaterThan(r.salad.readability.score);
      expect(r.expert.sentences.score).toBeGreaterThan(r.salad.sentences.score);
      expect(r.salad.faq!.score).toBe(0);
    });
  }
});
