import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.ts';
import {
  EXPECTED,
  holds,
  LABELS,
  labelledTexts,
  loadTopics,
  pageSentences,
  pairName,
  scoreAll,
  startCalibration,
  type CalibrationWorld,
  type Label,
  type ScoreAnswer,
} from './helpers/calibration.ts';

/**
 * The score's calibration set: per topic of test/fixtures/scoring/, a real
 * Optimize run of an offline archive built from the fixture pages, and five labelled texts scored with the real
 * score_content path. The expected orderings: the expert article highest, the keyword salad at least 15 points
 * below it, the collage of competitor sentences below it, the off-topic article lowest.
 *
 * Version 2 got 7 of the 28 orderings wrong (the salad and the collage above the expert article); version 3 holds
 * every one. `npm run bench -- scoring` prints the same figures as a table.
 */

const topics = loadTopics();

const tmp = tempDir('calibration-');
let w: CalibrationWorld;
let scored: Map<string, Record<Label, ScoreAnswer>>;

beforeAll(async () => {
  w = await startCalibration(tmp.dir, topics);
  scored = await scoreAll(w);
}, 120_000);
afterAll(async () => {
  await w?.close();
  tmp.cleanup();
});

const scoresOf = (slug: string) =>
  Object.fromEntries(LABELS.map((l) => [l, scored.get(slug)![l].rankabilityScore])) as Record<Label, number>;

describe('the calibration set', () => {
  it('has at least 4 topics of 5-8 competitor pages, each run comparing at least 4 of them', () => {
    expect(topics.length).toBeGreaterThanOrEqual(4);
    for (const topic of topics) {
      expect(topic.pages.length, topic.slug).toBeGreaterThanOrEqual(5);
      expect(topic.pages.length, topic.slug).toBeLessThanOrEqual(8);
      // A page of another type than the search intent's is left out (the water-heater topic's articles beside its
      // service pages): the run compares the rest.
      expect(w.runs.get(topic.slug)!.result.competitorCount, topic.slug).toBeGreaterThanOrEqual(4);
    }
  });

  it('builds the salad from the run, the collage from the pages, and the off-topic text from another topic', () => {
    for (const [i, topic] of topics.entries()) {
      const next = topics[(i + 1) % topics.length]!;
      const run = w.runs.get(topic.slug)!.result;
      const texts = labelledTexts(topic, next, run);
      for (const r of run.recommendations.filter((x) => x.kind === 'add_term' && x.term))
        expect(texts.salad, `${topic.slug}: ${r.term}`).toContain(r.term!);
      const answers = texts.salad.split(/^### .*\?$/m).slice(1);
      expect(answers.length).toBeGreaterThan(0);
      for (const a of answers) expect(a.trim()).toBe('Yes.');
      const sentences = new Set(topic.pages.flatMap((p) => pageSentences(p.html)));
      const body = texts.collage.split('\n').filter((l) => l && !l.startsWith('#'));
      expect(body.length).toBeGreaterThan(5);
      // Every paragraph is competitor sentences one after another.
      for (const para of body) {
        let rest = para;
        while (rest) {
          const s = [...sentences].find((x) => rest.startsWith(x));
          expect(s, rest).toBeDefined();
          rest = rest.slice(s!.length).trim();
        }
      }
      expect(texts.offtopic).toBe(next.expert);
      const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
      expect(words(topic.expert), topic.slug).toBeGreaterThanOrEqual(900);
      expect(words(topic.stub), topic.slug).toBeLessThanOrEqual(150);
    }
  });

  it('scores the same text the same', async () => {
    const topic = topics[0]!;
    const again = await w.score(topic.slug, topic.expert);
    expect(again.rankabilityScore).toBe(scored.get(topic.slug)!.expert.rankabilityScore);
  });
});

describe.each(topics.map((t) => [t.slug]))('calibration: %s', (slug) => {
  for (const e of EXPECTED) {
    const name = pairName(e);
    it(name, () => {
      const s = scoresOf(slug);
      expect(holds(e, s), `${name}: ${JSON.stringify(s)}`).toBe(true);
    });
  }
});

describe('what version 3 adds', () => {
  it('lists the collage passages copied from the competitors (rewrite_copied advice)', () => {
    for (const topic of topics) {
      const kinds = scored.get(topic.slug)!.collage.recommendations.map((r) => r.kind);
      expect(kinds, topic.slug).toContain('rewrite_copied');
    }
  });

  it('rates the readability of the salad below that of the expert article on every topic', () => {
    for (const topic of topics) {
      const s = scored.get(topic.slug)!;
      expect(s.salad.categoryScores.readability!, topic.slug).toBeLessThan(s.expert.categoryScores.readability!);
    }
  });
});
