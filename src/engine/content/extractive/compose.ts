/**
 * Choosing sentences for sections (docs/extractive-writer.md section 6): a deterministic relevance score per
 * (section, sentence), word budgets per section, a round-robin fill so no section starves, then a top-up or trim
 * pass that lands the whole draft near the word target when the sources have the material.
 */
import type { Context, Unit } from './context.ts';
import { slotMaterial } from './outline.ts';
import type { PlanSection } from './outline.ts';
import { placementOf, SECTION_MATCH_THRESHOLD } from './placement.ts';
import { overlap, tokenize } from './text.ts';

/** A planned section as the composer sees it: plus extra stems to match (an edited brief's points). */
export interface ComposeSection extends PlanSection {
  pointStems?: readonly string[];
}

/**
 * At most this share of a draft's words may be quoted from any one researched page (its body sentences and list
 * items, FAQ questions and answers), over all the draft's words (countWords, research-gap notes aside).
 */
export const MAX_SOURCE_SHARE = 0.3;

export interface ComposeOptions {
  /** Words the whole draft aims at. */
  target: number;
  /** Words already committed: headings, FAQ block, template lines, kept imported text. */
  fixedWords: number;
  /** Units that must not be chosen (already placed, or used as FAQ answers). */
  reserved: ReadonlySet<number>;
  /** Words each researched page already has in the fixed part (its FAQs), by citation number. */
  sourceWords?: ReadonlyMap<number, number>;
}

export interface Scored {
  unit: Unit;
  score: number;
}

/** Share of the body budget for the opening, the conclusion and a CTA's own contact lines. */
const SHARE: Partial<Record<PlanSection['kind'], number>> = { intro: 0.1, conclusion: 0.1, cta: 0.05 };

/** Topic words a sentence must name (as a share of the topic's) to open the draft. */
export const INTRO_TOPIC_COVERAGE = 0.5;

/**
 * Relevance of units to a section: a score, or null when a unit does not belong there at all. A researched unit
 * belongs under a heading only when its source section matches it (placement.ts); the opening takes on-topic
 * sentences from the openings of the pages; the client's own sentences fill templated slots by their cue words.
 */
export function sectionScorer(ctx: Context, section: ComposeSection): (u: Unit) => number | null {
  const place = placementOf(ctx, section.heading);
  return (u) => {
    if (u.kind === 'raw' || u.origin === 'imported') return null;
    const topicCov = ctx.topicStems.length ? overlap(u.stems, ctx.topicStems) / ctx.topicStems.length : 0;
    const hint = ctx.hints.size ? Math.min(0.6, 0.2 * overlap(u.stems, ctx.hints)) : 0;
    const own = u.origin !== 'research';
    if (section.kind === 'intro') {
      // The opening quotes the openings of the research; the client's own facts go to the sections they answer.
      if (own || u.section !== -1 || u.kind !== 'sentence' || u.question || u.refersBack || u.faq) return null;
      // A labelled line ("Verdict: ...", "Short answer: ...") is a box of its page, not an opening.
      if (/^[\p{L}’' ]{1,24}:\s/u.test(u.text)) return null;
      if (topicCov < INTRO_TOPIC_COVERAGE) return null;
      return 2 * topicCov + 1 + (1 - u.position) + 0.5 * u.termScore + hint;
    }
    const slotOwn = section.slot !== null && section.templated && slotMaterial(ctx, section.slot, u);
    if (section.kind === 'cta' || section.slot?.ownOnly) {
      if (!slotOwn) return null;
      return 2 + 0.5 * topicCov + 0.5 * u.termScore + hint - (u.question ? 0.4 : 0);
    }
    if (u.faq) return null;
    const match = place(u);
    if (match < SECTION_MATCH_THRESHOLD && !slotOwn) return null;
    const points = section.pointStems?.length ? overlap(u.stems, section.pointStems) / section.pointStems.length : 0;
    return (
      3 * Math.min(1, match) +
      1.5 * (slotOwn ? 1 : 0) +
      points +
      0.5 * topicCov +
      0.5 * u.termScore +
      hint +
      (own ? 0.2 : 0) -
      (u.refersBack ? 0.3 : 0) -
      (u.question ? 0.4 : 0)
    );
  };
}

function ranked(ctx: Context, section: ComposeSection, reserved: ReadonlySet<number>): Scored[] {
  const out: Scored[] = [];
  const scoreOf = sectionScorer(ctx, section);
  for (const unit of ctx.units) {
    if (reserved.has(unit.id)) continue;
    const score = scoreOf(unit);
    if (score !== null && score >= 0.8) out.push({ unit, score });
  }
  // Ties go to the earlier unit: lower citation number, then earlier in its page.
  out.sort((a, b) => b.score - a.score || a.unit.id - b.unit.id);
  if (section.kind !== 'intro') return out;
  // An opening reads as one voice: it draws on the two sources with the best opening sentences.
  const refs = [...new Set(out.map((s) => s.unit.ref))].slice(0, 2);
  return out.filter((s) => refs.includes(s.unit.ref));
}

/** Words a researched page may still give when the draft has `total` words (its quoted words count in the total). */
export function shareRoom(quoted: number, total: number): number {
  // q + w <= s (t + w)  <=>  w <= (s t - q) / (1 - s)
  return (MAX_SOURCE_SHARE * total - quoted) / (1 - MAX_SOURCE_SHARE);
}

/** Chooses units for every section, each page within MAX_SOURCE_SHARE of the expected draft; scored, per section. */
export function compose(
  ctx: Context,
  sections: readonly ComposeSection[],
  o: ComposeOptions,
): Map<ComposeSection, Scored[]> {
  const fillable = sections.filter((s) => s.kind !== 'faq' && s.kind !== 'imported');
  const lists = new Map(fillable.map((s) => [s, ranked(ctx, s, o.reserved)]));
  const body = Math.max(0, o.target - o.fixedWords);
  const fixedShare = fillable.reduce((sum, s) => sum + (SHARE[s.kind] ?? 0), 0);
  const others = fillable.filter((s) => SHARE[s.kind] === undefined).length;
  const budget = new Map(
    fillable.map((s) => [s, body * (SHARE[s.kind] ?? (others ? (1 - fixedShare) / others : 0))] as const),
  );
  const chosen = new Map<ComposeSection, Scored[]>(fillable.map((s) => [s, []]));
  const filled = new Map<ComposeSection, number>(fillable.map((s) => [s, 0]));
  const used = new Set<number>();
  const quoted = new Map(o.sourceWords ?? []);
  let total = o.fixedWords;
  // What the draft can reach: each page gives at most its share of the target, the client's own words any amount.
  const eligible = new Map<number, number>();
  const seen = new Set<number>();
  for (const list of lists.values())
    for (const { unit } of list)
      if (!seen.has(unit.id)) {
        seen.add(unit.id);
        eligible.set(unit.ref, (eligible.get(unit.ref) ?? 0) + unit.words);
      }
  let reachable = o.fixedWords;
  for (const [ref, words] of eligible)
    reachable += ctx.refs[ref - 1]?.origin === 'research' ? Math.min(words, MAX_SOURCE_SHARE * o.target) : words;
  const expected = Math.min(o.target, reachable);
  const withinShare = (u: Unit): boolean =>
    u.origin !== 'research' || u.words <= shareRoom(quoted.get(u.ref) ?? 0, Math.max(total, expected - u.words));

  const take = (s: ComposeSection, item: Scored): void => {
    used.add(item.unit.id);
    chosen.get(s)?.push(item);
    filled.set(s, (filled.get(s) ?? 0) + item.unit.words);
    if (item.unit.origin === 'research') quoted.set(item.unit.ref, (quoted.get(item.unit.ref) ?? 0) + item.unit.words);
    total += item.unit.words;
  };
  const round = (accept: (s: ComposeSection, u: Unit) => boolean, sectionsToFill: readonly ComposeSection[]): void => {
    const pointer = new Map(sectionsToFill.map((s) => [s, 0]));
    let progress = true;
    while (progress) {
      progress = false;
      for (const s of sectionsToFill) {
        const list = lists.get(s) ?? [];
        let i = pointer.get(s) ?? 0;
        while (i < list.length) {
          const item = list[i++];
          if (!item || used.has(item.unit.id) || !accept(s, item.unit)) continue;
          take(s, item);
          progress = true;
          break;
        }
        pointer.set(s, i);
      }
    }
  };

  // Phase 1: each section up to its budget (a first unit always fits; later ones may overshoot by 20%).
  round((s, u) => {
    const f = filled.get(s) ?? 0;
    const b = budget.get(s) ?? 0;
    return f < b && (f === 0 || f + u.words <= b * 1.2) && withinShare(u);
  }, fillable);
  // Phase 2: short of the target, any body section takes more while the total stays under +8%.
  if (total < o.target * 0.97) {
    const bodySections = fillable.filter((s) => s.kind === 'body' || s.kind === 'conclusion');
    round((_s, u) => total < o.target * 0.97 && total + u.words <= o.target * 1.08 && withinShare(u), bodySections);
  }
  // Phase 3: over +10% (long fixed parts), drop the weakest unit of the fullest section, keeping one per section.
  while (total > o.target * 1.1) {
    let worst: ComposeSection | null = null;
    let ratio = 0;
    for (const s of fillable) {
      const items = chosen.get(s) ?? [];
      const r = (filled.get(s) ?? 0) / Math.max(1, budget.get(s) ?? 0);
      if (items.length > 1 && r > ratio) {
        worst = s;
        ratio = r;
      }
    }
    if (!worst) break;
    const items = chosen.get(worst) ?? [];
    const drop = items.pop();
    if (!drop) break;
    filled.set(worst, (filled.get(worst) ?? 0) - drop.unit.words);
    total -= drop.unit.words;
  }
  return chosen;
}

/** Sources in the order of their best unit in the section; within a source, page order. */
export function readingOrder(items: readonly Scored[]): Unit[] {
  const firstRank = new Map<number, number>();
  items.forEach((it, i) => {
    if (!firstRank.has(it.unit.ref)) firstRank.set(it.unit.ref, i);
  });
  return items
    .map((it) => it.unit)
    .sort((a, b) => (firstRank.get(a.ref) ?? 0) - (firstRank.get(b.ref) ?? 0) || a.id - b.id);
}

/** True when `phrase` (stems) occurs as a run in `seq`. */
export function hasRun(seq: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  for (let i = 0; i + phrase.length <= seq.length; i += 1) {
    let k = 0;
    while (k < phrase.length && seq[i + k] === phrase[k]) k += 1;
    if (k === phrase.length) return true;
  }
  return false;
}

export interface TermPick {
  term: string;
  unit: Unit;
  /** Index into the sections given, or -1 when no section fits the unit (the caller may open one). */
  section: number;
}

/**
 * For each term in order, the best unused unit that contains it and fits the remaining words: units that fit a
 * section (by `place`, which must be pure) first, scored by that section; then units no section fits, by term score
 * and topic coverage. Ties: the earlier unit. Terms no unit carries are skipped.
 */
export function pickForTerms(
  ctx: Context,
  sections: readonly ComposeSection[],
  terms: readonly string[],
  used: Set<number>,
  maxWords: number,
  place: (u: Unit) => number,
  share?: { fits(u: Unit): boolean; take(u: Unit): void },
): TermPick[] {
  const picks: TermPick[] = [];
  let left = maxWords;
  for (const term of terms) {
    const phrase = tokenize(term, ctx.language).map((t) => t.stem);
    if (phrase.length === 0 || ctx.banned.matches(term)) continue;
    // A unit that writes the term as it is goes first: stems also meet across derivations (`condensing` for
    // `condensate`).
    const literal = term.toLowerCase();
    let best: { unit: Unit; section: number; score: number; exact: boolean } | null = null;
    for (const u of ctx.units) {
      if (
        used.has(u.id) ||
        u.kind === 'raw' ||
        u.origin === 'imported' ||
        u.faq ||
        u.words > left ||
        !hasRun(u.seq, phrase) ||
        (share && !share.fits(u))
      )
        continue;
      const section = place(u);
      const s = sections[section];
      const topicCov = ctx.topicStems.length ? overlap(u.stems, ctx.topicStems) / ctx.topicStems.length : 0;
      const score = s ? (sectionScorer(ctx, s)(u) ?? 0) : u.termScore + topicCov - 10;
      const exact = u.text.toLowerCase().includes(literal);
      if (!best || (exact && !best.exact) || (exact === best.exact && score > best.score))
        best = { unit: u, section: s ? section : -1, score, exact };
    }
    if (!best) continue;
    used.add(best.unit.id);
    left -= best.unit.words;
    share?.take(best.unit);
    picks.push({ term, unit: best.unit, section: best.section });
  }
  return picks;
}
