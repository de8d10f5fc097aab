/**
 * `npm run bench -- scoring`: the score's calibration table.
 *
 * For every topic of test/fixtures/scoring/ (competitor pages written for the tests, served as an offline WARC built
 * from their HTML), one real Optimize run of the in-process app, then five labelled texts scored with the real
 * score_content path (test/optimize/helpers/calibration.ts): a coherent expert article, a keyword salad built from
 * the run's own recommendations, a collage of the competitors' sentences, a thin stub and an off-topic article (the
 * expert article of another topic). Prints each text's score per topic, the pairwise ordering accuracy against the
 * expected order (expert > collage, expert > salad by >= 15 points, expert > stub, the off-topic article below every
 * other text) and which of the issue's goals pass. Works with whatever scorer is current: the version is printed.
 * `--categories` adds each text's category scores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EXPECTED,
  goals,
  holds,
  LABELS,
  pairName,
  scoreAll,
  startCalibration,
  type Label,
} from '../test/optimize/helpers/calibration.ts';
import { table } from './lib/harness.ts';

export async function run(args: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-api-bench-scoring-'));
  const t0 = performance.now();
  const w = await startCalibration(dir);
  try {
    const tRuns = performance.now() - t0;
    const scored = await scoreAll(w);
    const tScores = performance.now() - t0 - tRuns;
    const versions = new Set([...scored.values()].flatMap((s) => LABELS.map((l) => s[l].scoringVersion)));
    const all: Record<Label, number>[] = [];
    const rows: string[][] = [];
    for (const topic of w.topics) {
      const s = scored.get(topic.slug)!;
      const scores = Object.fromEntries(LABELS.map((l) => [l, s[l].rankabilityScore])) as Record<Label, number>;
      all.push(scores);
      const run = w.runs.get(topic.slug)!.result;
      rows.push([
        topic.keyword,
        String(run.competitorCount),
        ...LABELS.map((l) => scores[l].toFixed(1)),
        (scores.expert - scores.salad).toFixed(1),
        EXPECTED.filter((e) => holds(e, scores)).length + '/' + EXPECTED.length,
      ]);
    }
    process.stdout.write(
      `scoring version ${[...versions].join(', ')}; ${w.topics.length} topics, 5 texts each; ` +
        `runs ${(tRuns / 1000).toFixed(1)} s, ${w.topics.length * LABELS.length} scores ${(tScores / 1000).toFixed(1)} s\n\n`,
    );
    process.stdout.write(table(['keyword', 'competitors', ...LABELS, 'expert-salad', 'orderings held'], rows) + '\n');

    if (args.includes('--categories')) {
      const crows: string[][] = [];
      for (const topic of w.topics) {
        const s = scored.get(topic.slug)!;
        for (const l of LABELS)
          crows.push([
            topic.slug,
            l,
            Object.entries(s[l].categoryScores)
              .map(([k, v]) => `${k} ${Math.round(v)}`)
              .join(', '),
          ]);
      }
      process.stdout.write(table(['topic', 'text', 'category scores (% of each category)'], crows) + '\n');
    }

    const prow = EXPECTED.map((e) => {
      const held = all.filter((s) => holds(e, s)).length;
      return [pairName(e), `${held}/${all.length}`];
    });
    const heldTotal = EXPECTED.reduce((n, e) => n + all.filter((s) => holds(e, s)).length, 0);
    const total = EXPECTED.length * all.length;
    process.stdout.write(table(['expected ordering', 'topics where it holds'], prow));
    process.stdout.write(
      `pairwise ordering accuracy: ${heldTotal}/${total} = ${((100 * heldTotal) / total).toFixed(0)}%\n\n`,
    );
    process.stdout.write(
      table(
        ['goal', 'pass'],
        goals(all).map((g) => [g.goal, g.pass ? 'PASS' : 'fail']),
      ),
    );
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
