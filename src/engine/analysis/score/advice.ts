/**
 * The recommendations a user reads: one list, each item with the points it would add and a priority, sorted by
 * points. Conflicts are resolved before the list is made (docs/scoring.md, "Coherent advice"):
 * - term targets are measured at the length the length check recommends, so "trim the page" and "use this more"
 *   agree;
 * - the keyword's head terms are only "overused" above the competitors' highest rate and a stuffing threshold;
 * - a term the page overuses is never also asked for in headings;
 * - a name found both as a term and as an entity is one item;
 * - coverage advice is given per term (what to add, use more or less) and not again as a summary of the check.
 */
import type { Category, Priority, Recommendation, ScoreCheck, TermAdvice } from './types.ts';

/** Priority by points: high from 2 points, medium from 0.75. */
export function priorityOf(points: number): Priority {
  return points >= 2 ? 'high' : points >= 0.75 ? 'medium' : 'low';
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * `own`: advice a check gives in its own kind (version 3: copied passages, facts, the answer first); the check is
 * not given again as a `fix`. `covered`: checks whose advice another item gives (version 3's topicality).
 */
export function buildRecommendations(
  details: readonly ScoreCheck[],
  termAdvice: readonly TermAdvice[],
  own: readonly Recommendation[] = [],
  covered: ReadonlySet<string> = new Set(),
): Recommendation[] {
  const categoryOf = new Map<string, Category>(details.map((d) => [d.id, d.category]));
  const out: Recommendation[] = [];
  const seen = new Map<string, Recommendation>();
  for (const a of termAdvice) {
    const key = a.term.toLowerCase();
    const same = seen.get(key);
    if (same) {
      // One item per name: following it earns both checks' points.
      same.points = round2(same.points + a.points);
      same.priority = priorityOf(same.points);
      continue;
    }
    if (a.points <= 0) continue;
    const r: Recommendation = {
      id: `${a.check}:${a.term}`,
      check: a.check,
      category: categoryOf.get(a.check) ?? 'coverage',
      kind: a.kind,
      term: a.term,
      points: a.points,
      priority: priorityOf(a.points),
      recommendation: a.recommendation,
    };
    seen.set(key, r);
    out.push(r);
  }
  const given = new Set([...own.map((r) => r.check), ...covered]);
  out.push(...own.filter((r) => r.points > 0));
  for (const d of details) {
    if (d.category === 'coverage' || d.recommendation === null || given.has(d.id)) continue;
    const points = round2(d.possible - d.earned);
    if (points <= 0) continue;
    out.push({
      id: d.id,
      check: d.id,
      category: d.category,
      kind: 'fix',
      term: null,
      points,
      priority: priorityOf(points),
      recommendation: d.recommendation,
    });
  }
  return out.sort((a, b) => b.points - a.points || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
