/**
 * Version 3's fact checks: the share of the run's fact list (facts.ts: statements at least two ranking pages share)
 * the page's own words state, and a bounded bonus for facts on the topic that no ranking page states (information
 * gain). Each missing fact is `add_fact` advice with the pages that state it, the most shared first.
 */
import { priorityOf } from '../advice.ts';
import { check } from '../checks.ts';
import type { Recommendation, ScoreCheck } from '../types.ts';
import { MAX_GAIN, type FactCoverage, type FactList } from './facts.ts';

/** `add_fact` items given, at most (the check's evidence counts them all). */
export const FACT_ADVICE = 10;

const round2 = (x: number) => Math.round(x * 100) / 100;
const clip = (s: string, n = 160) => (s.length <= n ? s : `${s.slice(0, n).replace(/\s+\S*$/, '')}...`);

export function factChecks(
  list: FactList,
  cov: FactCoverage,
  pageCount: number,
  points: { covered: number; gain: number },
): { details: ScoreCheck[]; advice: Recommendation[] } {
  const total = list.facts.length;
  const covered = check(
    'facts',
    'facts.covered',
    'Facts the ranking pages agree on',
    points.covered,
    total ? cov.covered.length / total : 1,
    {
      facts: total,
      covered: cov.covered.length,
      missing: cov.missing.length,
      missing_examples: cov.missing.slice(0, 10).map((f) => f.text),
      ...(total ? {} : { note: 'no fact is stated by two ranking pages' }),
    },
    `State the facts the ranking pages agree on: ${cov.covered.length} of ${total} are on this page (see the advice for each).`,
  );
  const gain = check(
    'facts',
    'facts.added',
    `Facts on the topic no ranking page states (up to ${MAX_GAIN})`,
    points.gain,
    cov.gain / MAX_GAIN,
    { added: cov.gain, examples: cov.added.slice(0, 5).map((m) => ({ fact: m.text, sentence: clip(m.sentence) })) },
    `Add facts on the topic that no ranking page states (${cov.gain} of ${MAX_GAIN} counted).`,
  );
  const each = total ? round2(points.covered / total) : 0;
  const advice = [...cov.missing]
    .sort((a, b) => b.urls.length - a.urls.length || (a.id < b.id ? -1 : 1))
    .slice(0, FACT_ADVICE)
    .map((f): Recommendation => ({
      id: `facts.covered:${f.id}`,
      check: 'facts.covered',
      category: 'facts',
      kind: 'add_fact',
      term: f.text,
      points: each,
      priority: priorityOf(each),
      recommendation: `Add the fact "${f.text}" if it holds for you: ${f.urls.length} of ${pageCount} ranking pages state it, e.g. "${clip(f.statement, 120)}" (${f.urls[0]}).`,
    }));
  return { details: [covered, gain], advice };
}
