/**
 * Version 3's coverage checks: the terms and names of the model, each credited by saturation (saturation.ts) on the
 * page's own words (copied passages removed), so the first uses in sentences earn most, lists and headings of bare
 * terms earn little, and uses beyond the competitors' highest rate lose credit. Each term the page lacks, underuses
 * or overuses gets its advice, with the points it would add and the counts behind it.
 */
import type { UsageStatus } from '../../terms/types.ts';
import { check, statusAdvice, statusEvidence } from '../checks.ts';
import type { CompetitorModel, ModelTerm } from '../model.ts';
import type { EntityRow, ScoreCheck, TermAdvice } from '../types.ts';
import { rateKey, type ModelV3, type TermRates } from './model.ts';
import { termCredit, termUses, type Placements, type TermCredit } from './saturation.ts';

/** Credit below which a used term is "under"-used. */
export const UNDER_CREDIT = 0.75;

export interface CoverageRow {
  model: ModelTerm;
  rates: TermRates;
  credit: TermCredit;
  status: UsageStatus;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const times = (n: number) => `${n} ${n === 1 ? 'time' : 'times'}`;

function statusOf(c: TermCredit): UsageStatus {
  const uses = c.uses.sentence + c.uses.heading + c.uses.fragment;
  if (uses === 0) return 'missing';
  if (c.overuseFactor < 1) return 'over';
  return c.credit < UNDER_CREDIT ? 'under' : 'ok';
}

/** A head term is only overused above the keyword-stuffing rate as well (a page about X says X). */
export const STUFFING_PER_1000 = 30;
/** Uses any term may have before it counts as overused, whatever the competitors' rate. */
export const FREE_USES = 2;

/**
 * The rate above which uses lose credit: the competitors' highest, but never below FREE_USES uses in the page, and
 * for the keyword's head terms never below the stuffing rate.
 */
export function overuseRate(m: ModelTerm, rates: TermRates, words: number): number {
  return Math.max(rates.max, (FREE_USES * 1000) / Math.max(1, words), m.head ? STUFFING_PER_1000 : 0);
}

/**
 * Every model term and name credited on the page's own text (`own`; the page has `pageWords` words). Targets are measured at the page's length, but never
 * above the competitors' p75 length: a thorough page is not asked to repeat terms to keep up with its own length.
 */
export function coverageRows(
  model: CompetitorModel & { v3: ModelV3 },
  own: Placements,
  pageWords: number,
): CoverageRow[] {
  const words = Math.max(1, Math.min(pageWords, model.wordCount.p75 || pageWords));
  return [...model.terms, ...model.entities].map((m) => {
    const rates = model.v3.rates[rateKey(m)] ?? { p25: 0, median: 0, p75: 0, max: 0 };
    // Rates are of the whole page (copied passages hold words too); only the uses are the own text's.
    const raw = termCredit(termUses(own, m.key), pageWords, {
      term: m.display,
      medianRate: rates.median,
      maxRate: overuseRate(m, rates, pageWords),
    });
    // The target at the capped length (termCredit measures it at the page's own length).
    const target = Math.max(1, (rates.median * words) / 1000);
    const x = raw.effectiveUses / target;
    const saturated = Math.min(1, (1.5 * x) / (x + 0.5));
    const credit = { ...raw, targetUses: round2(target), saturated: round2(saturated) };
    credit.credit = Math.round(saturated * raw.overuseFactor * 1000) / 1000;
    return { model: m, rates, credit, status: statusOf(credit) };
  });
}

function advice(r: CoverageRow, check: string, points: number, pageCount: number, words: number): TermAdvice {
  const name = r.model.display;
  const c = r.credit;
  // Rounded up: credit saturates only at the whole target, so "about 2 times" must not be asked of a page with 2.
  const target = Math.max(1, Math.ceil(c.targetUses - 1e-9));
  const uses = c.uses.sentence + c.uses.heading + c.uses.fragment;
  if (r.status === 'missing')
    return {
      check,
      term: name,
      kind: 'add_term',
      points,
      recommendation: `Add "${name}" in a sentence: ${r.model.pages} of ${pageCount} ranking pages use it, about ${times(target)} in a page this long.`,
    };
  if (r.status === 'over') {
    const most = Math.max(1, Math.floor((overuseRate(r.model, r.rates, words) * words) / 1000));
    return {
      check,
      term: name,
      kind: 'use_less',
      points,
      recommendation: `Use "${name}" less: ${times(uses)} now (${Math.round(c.rate * 10) / 10} per 1,000 words); ${r.model.head ? `above every ranking page and the keyword-stuffing limit of ${STUFFING_PER_1000} per 1,000 words` : `no ranking page uses it more than ${Math.round(r.rates.max * 10) / 10} per 1,000 words`}, about ${times(most)} in a page this long.`,
    };
  }
  const elsewhere = c.uses.heading + c.uses.fragment;
  const where = elsewhere
    ? `${times(uses)} now, ${c.uses.sentence} in sentences (uses in headings, lists and fragments count for less)`
    : `${times(uses)} now`;
  return {
    check,
    term: name,
    kind: 'use_more',
    points,
    recommendation: `Use "${name}" more, in sentences: ${where}; the ranking pages that use it do so about ${times(target)} in a page this long.`,
  };
}

const GROUPS = [
  { id: 'coverage.terms', label: 'Coverage of the terms the ranking pages use', kind: 'term', what: 'terms' },
  { id: 'coverage.entities', label: 'Coverage of the names the ranking pages mention', kind: 'entity', what: 'names' },
] as const;

/** The coverage checks (worth `points`) of a page of `words` own words, and the per-term advice. */
export function coverageChecks(
  rows: readonly CoverageRow[],
  pageCount: number,
  words: number,
  points: { terms: number; entities: number },
): { details: ScoreCheck[]; advice: TermAdvice[] } {
  const details: ScoreCheck[] = [];
  const out: TermAdvice[] = [];
  for (const g of GROUPS) {
    const possible = g.kind === 'term' ? points.terms : points.entities;
    const inGroup = rows.filter((r) => r.model.kind === g.kind);
    const total = inGroup.reduce((a, r) => a + r.model.importance, 0);
    if (total === 0) {
      details.push(
        check(
          'coverage',
          g.id,
          g.label,
          possible,
          1,
          { considered: 0, note: `the ranking pages share no ${g.what}` },
          '',
        ),
      );
      continue;
    }
    const earned = inGroup.reduce((a, r) => a + r.model.importance * r.credit.credit, 0);
    for (const r of inGroup) {
      if (r.credit.credit >= 1) continue;
      const p = round2((possible * r.model.importance * (1 - r.credit.credit)) / total);
      if (p > 0) out.push(advice(r, g.id, p, pageCount, words));
    }
    const by = (s: UsageStatus) => inGroup.filter((r) => r.status === s).map((r) => r.model.display);
    details.push(
      check(
        'coverage',
        g.id,
        g.label,
        possible,
        earned / total,
        { considered: inGroup.length, ...statusEvidence(by) },
        statusAdvice(g.what, by, 'in sentences') ||
          `Use the ${g.what} in sentences, not only in headings, lists or fragments.`,
      ),
    );
  }
  return { details, advice: out };
}

/** The term table of the answer: the competitors' range and the page's uses at its length. */
export function entityRows(rows: readonly CoverageRow[], words: number): EntityRow[] {
  const at = (rate: number) => Math.round((rate * words) / 1000);
  return rows.map((r) => ({
    term: r.model.display,
    kind: r.model.kind,
    importance: r.model.importance,
    sourceCount: r.model.pages,
    competitorRange: {
      p25: Math.max(1, at(r.rates.p25)),
      median: Math.max(1, at(r.rates.median)),
      p75: Math.max(1, at(r.rates.p75)),
    },
    sourceUses: r.credit.uses.sentence + r.credit.uses.heading + r.credit.uses.fragment,
    status: r.status,
  }));
}
