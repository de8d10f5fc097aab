/**
 * Laying out a draft (docs/extractive-writer.md sections 6 and 9): the FAQ block and template lines are fixed,
 * the composer fills the sections, optimize mode keeps the imported page and adds what it lacks, and the model is
 * rendered to markdown. The brief runs the same layout to report each section's points and sources.
 */
import type { Brief, Draft, Faq } from '../types.ts';
import type { Context, Unit } from './context.ts';
import { compose, hasRun, MAX_SOURCE_SHARE, pickForTerms, readingOrder, sectionScorer } from './compose.ts';
import type { ComposeSection, Scored } from './compose.ts';
import { renderDraft } from './markdown.ts';
import type { DraftModel, DraftSectionModel, FaqBlock, Piece } from './markdown.ts';
import { importedHasFaq, MAX_SECTIONS, planOptimize, planSections, templateVars, withFaqSection } from './outline.ts';
import type { Avoid, PlanSection } from './outline.ts';
import { ctaLines, faqHeading, INTRODUCTION } from './templates.ts';
import { contentStems, countText, jaccard, normalizeSpace, RESEARCH_GAP, tokenize } from './text.ts';

export interface Layout {
  model: DraftModel;
  /** Units chosen per section (imported text and FAQ answers aside). */
  chosen: Map<PlanSection, Unit[]>;
  faqs: Faq[];
  /** What the layout taught the plan: pages at their share (within three points), and thin section headings. */
  avoid: Avoid;
  /** Sections left short only because their pages were at their share: kept in the outline with a note. */
  capped: Set<PlanSection>;
}

/**
 * The plan of a new or optimize-mode page, with the FAQ section when there are FAQs; `extra` adds sections, `full`
 * pages (at their share) give no further filler sections.
 */
export function planFor(ctx: Context, hasFaqs: boolean, extra = 0, avoid?: Avoid): PlanSection[] {
  const optimize = ctx.request.projectMode === 'optimize' && ctx.imported !== null;
  const plan = optimize ? planOptimize(ctx, extra, avoid) : planSections(ctx, extra, avoid);
  return hasFaqs && !(optimize && importedHasFaq(ctx)) ? withFaqSection(ctx, plan) : plan;
}

/** The sections a draft follows: the brief's outline, matched to the plan by heading; edited ones get matched fresh. */
export function sectionsFromBrief(ctx: Context, brief: Brief): ComposeSection[] {
  // Any section the brief can hold is in the largest plan.
  const plan = planFor(ctx, true, MAX_SECTIONS);
  const byHeading = new Map(plan.map((p) => [p.heading.toLowerCase(), p]));
  const out: ComposeSection[] = [];
  for (const o of brief.outline) {
    const heading = normalizeSpace(o.heading);
    if (!heading || ctx.excluded.matches(heading)) continue;
    const known = byHeading.get(heading.toLowerCase());
    if (known) {
      out.push(known);
      continue;
    }
    const members = new Set(
      ctx.headings.filter((h) => h.text.toLowerCase() === heading.toLowerCase()).map((h) => h.id),
    );
    out.push({
      heading,
      level: 2,
      kind: 'body',
      slot: null,
      members,
      templated: false,
      position: out.length,
      pointStems: contentStems(o.points.join(' '), ctx.language),
    });
  }
  if (!out.some((s) => s.kind === 'intro' || (s.kind === 'imported' && s.heading === INTRODUCTION))) {
    const intro = plan.find((p) => p.heading === INTRODUCTION);
    if (intro) out.unshift(intro);
  }
  return out;
}

const key = (t: string): string => normalizeSpace(t).toLowerCase();

/** A section with fewer words of material than this gets a research-gap note after what it has. */
export const GAP_MIN_WORDS = 20;

/** Two texts say the same when their content-word stems overlap this much (Jaccard), as in context.ts. */
const SAME = 0.6;

function sameAs(a: ReadonlySet<string>, seen: readonly ReadonlySet<string>[]): boolean {
  return a.size > 0 && seen.some((b) => jaccard(a, b) >= SAME);
}

interface FaqInDraft extends FaqBlock {
  /** Citation number of the page it comes from (null: not a researched page). */
  ref: number | null;
  words: number;
}

/**
 * FAQs that fit the draft: about a fifth of the target (the first one when it fits in 30%), none repeating an
 * earlier answer or the imported page, each page's FAQs within its share of the target.
 */
function faqsForDraft(ctx: Context, faqs: readonly Faq[], target: number): FaqInDraft[] {
  const blocks: FaqInDraft[] = [];
  let words = 0;
  const seen: Set<string>[] = (ctx.imported?.units ?? []).map((u) => new Set(u.stems));
  const perRef = new Map<number, number>();
  for (const f of faqs) {
    if (ctx.excluded.matches(f.question) || ctx.excluded.matches(f.answer)) continue;
    const cited = ctx.refs.find((r) => r.url === f.sourceUrl);
    const ref = cited?.origin === 'research' ? cited.number : null;
    const sentences = ctx.split(f.answer);
    const stems = sentences.map((t) => new Set(contentStems(t, ctx.language)));
    if (stems.some((st) => sameAs(st, seen))) continue;
    const answer: Piece[] = sentences.map((text) => ({
      kind: 'sentence',
      text,
      ref,
      url: f.sourceUrl,
      group: `faq:${blocks.length}`,
    }));
    const w = countText(f.question) + sentences.reduce((sum, t) => sum + countText(t), 0);
    if (words + w > target * 0.2 && !(blocks.length === 0 && w <= target * 0.3)) continue;
    if (ref !== null && (perRef.get(ref) ?? 0) + w > MAX_SOURCE_SHARE * target) continue;
    if (ref !== null) perRef.set(ref, (perRef.get(ref) ?? 0) + w);
    blocks.push({ question: f.question, answer, ref, words: w });
    seen.push(...stems);
    words += w;
  }
  return blocks;
}

/** A unit as a draft piece: researched units cite their page; the client's own words carry no marker. */
function piece(u: Unit): Piece {
  const ref = u.kind === 'raw' || u.origin !== 'research' ? null : u.ref;
  const url = u.kind === 'raw' ? null : u.url;
  return u.kind === 'item'
    ? { kind: 'item', text: u.text, ref, url, group: `${u.ref}:l${u.list}`, ordered: u.ordered }
    : { kind: u.kind === 'raw' ? 'raw' : 'sentence', text: u.text, ref, url, group: `${u.ref}:b${u.block}` };
}

/** The imported page's pieces for a block range: its text kept, headings below the section level kept. */
function importedPieces(ctx: Context, range: readonly [number, number]): Piece[] {
  const imported = ctx.imported;
  if (!imported) return [];
  const out: Piece[] = [];
  for (let b = range[0]; b < range[1]; b += 1) {
    const block = imported.blocks[b];
    if (!block) continue;
    if (block.kind === 'heading') {
      if (block.level >= 2 && !ctx.excluded.matches(block.text))
        out.push({ kind: 'heading', text: block.text, ref: null, group: `h${b}`, level: block.level });
      continue;
    }
    for (const u of imported.units) if (u.block === b) out.push(piece(u));
  }
  return out;
}

/**
 * The research-gap note of a section with too little material (docs/extractive-writer.md section 6). `capped`: the
 * sources had more to say here, but only from pages already at their share of the draft.
 */
export function gapNote(ctx: Context, s: PlanSection, words: number, capped = false): string {
  const clean = (t: string): string => t.replace(/[[\]]/g, '');
  if (s.kind === 'intro')
    return `${RESEARCH_GAP} no source opens on “${clean(ctx.topic)}”; add a source or write an introduction]`;
  if (s.slot?.ownOnly) {
    const client = clean(ctx.client.name);
    const about: Record<string, string> = {
      services: `the services ${client} offers`,
      why_choose: `why customers choose ${client}`,
      process: `how ${client} works with its customers`,
      area: `the places ${client} serves`,
    };
    return `${RESEARCH_GAP} the knowledge base says ${words > 0 ? 'little' : 'nothing'} about ${about[s.slot.key] ?? `“${clean(s.heading)}”`}; add it to the knowledge base or write this section]`;
  }
  if (capped)
    return `${RESEARCH_GAP} the pages about “${clean(s.heading)}” already give this draft their share (${Math.round(MAX_SOURCE_SHARE * 100)}% each); add a source or ${words > 0 ? 'expand' : 'write'} this section]`;
  return words > 0
    ? `${RESEARCH_GAP} the sources say little about “${clean(s.heading)}”; add a source or expand this section]`
    : `${RESEARCH_GAP} the sources say nothing about “${clean(s.heading)}”; add a source or write this section]`;
}

/**
 * Enforces MAX_SOURCE_SHARE on the composed draft: while a page's quoted words pass the share of the draft's words,
 * its last FAQ goes, then its weakest unit. A sentence that leans on the one before it goes with it.
 */
function enforceShare(
  chosen: Map<ComposeSection, Scored[]>,
  faqs: FaqInDraft[],
  fixedWithoutFaqs: number,
): FaqInDraft[] {
  let kept = [...faqs];
  const orphans = (): boolean => {
    let removed = false;
    for (const [s, items] of chosen) {
      const ids = new Set(items.map((i) => i.unit.id));
      const keep = items.filter((i) => !i.unit.refersBack || ids.has(i.unit.id - 1));
      if (keep.length !== items.length) {
        chosen.set(s, keep);
        removed = true;
      }
    }
    return removed;
  };
  while (orphans());
  for (;;) {
    const quoted = new Map<number, number>();
    let total = fixedWithoutFaqs;
    for (const f of kept) {
      total += f.words;
      if (f.ref !== null) quoted.set(f.ref, (quoted.get(f.ref) ?? 0) + f.words);
    }
    for (const items of chosen.values())
      for (const { unit } of items) {
        total += unit.words;
        if (unit.origin === 'research') quoted.set(unit.ref, (quoted.get(unit.ref) ?? 0) + unit.words);
      }
    let worst = -1;
    let share = MAX_SOURCE_SHARE;
    for (const [ref, words] of [...quoted].sort((a, b) => a[0] - b[0])) {
      if (total > 0 && words / total > share + 1e-9) {
        worst = ref;
        share = words / total;
      }
    }
    if (worst < 0) return kept;
    // The FAQ block gives way first: the body is what the page is for.
    const last = kept.map((f) => f.ref).lastIndexOf(worst);
    if (last >= 0) {
      kept = kept.filter((_f, i) => i !== last);
      continue;
    }
    let weakest: { s: ComposeSection; at: number; score: number } | null = null;
    for (const [s, items] of chosen)
      items.forEach((it, at) => {
        if (it.unit.ref === worst && it.unit.origin === 'research' && (!weakest || it.score < weakest.score))
          weakest = { s, at, score: it.score };
      });
    const w = weakest as { s: ComposeSection; at: number; score: number } | null;
    if (!w) return kept;
    chosen.get(w.s)?.splice(w.at, 1);
    while (orphans());
  }
}

/** Lays out the draft for a list of sections. */
export function layoutDraft(
  ctx: Context,
  sections: readonly ComposeSection[],
  faqs: readonly Faq[],
  h1: string,
): Layout {
  const target = ctx.request.wordCountTarget;
  const vars = templateVars(ctx);
  const hasFaqSection = sections.some((s) => s.kind === 'faq');
  let faqBlocks = hasFaqSection ? faqsForDraft(ctx, faqs, target) : [];
  const cta = ctaLines(ctx.style, vars);
  const imported = new Map(sections.filter((s) => s.range).map((s) => [s, importedPieces(ctx, s.range ?? [0, 0])]));
  let fixed = countText(h1);
  for (const s of sections) {
    // The opening has no heading; the FAQ block is counted with its FAQs.
    if (s.kind === 'intro' || s.heading === INTRODUCTION || s.kind === 'faq') {
      // nothing fixed
    } else fixed += countText(s.heading);
    if (s.kind === 'cta') fixed += cta.reduce((n, l) => n + countText(l), 0);
    for (const p of imported.get(s) ?? []) fixed += countText(p.text);
  }
  const faqHeadingWords = countText(faqHeading(ctx.language));
  const faqWords = (blocks: readonly FaqInDraft[]): number =>
    blocks.length > 0 ? faqHeadingWords + blocks.reduce((n, f) => n + f.words, 0) : 0;
  // No sentence twice: what the FAQ answers say stays out of the body.
  const faqStems = faqBlocks.flatMap((f) => f.answer.map((p) => new Set(contentStems(p.text, ctx.language))));
  const faqText = new Set(faqBlocks.flatMap((f) => f.answer.map((p) => key(p.text))));
  const reserved = new Set(
    ctx.units.filter((u) => faqText.has(key(u.text)) || sameAs(u.stems, faqStems)).map((u) => u.id),
  );
  // Optimize mode always adds something: at least a tenth of the target, even past it.
  const optimize = imported.size > 0;
  const withFaqs = fixed + faqWords(faqBlocks);
  const composeTarget = optimize ? Math.max(target, withFaqs + target * 0.1) : target;
  // The body takes its share of each page first; FAQs from a page over its share then give way (enforceShare).
  const chosen = compose(ctx, sections, { target: composeTarget, fixedWords: withFaqs, reserved });
  if (optimize) addMissingTerms(ctx, sections, chosen, reserved, composeTarget * 1.1 - withFaqs);
  const kept = enforceShare(chosen, faqBlocks, fixed + (faqBlocks.length > 0 ? faqHeadingWords : 0));
  if (kept.length !== faqBlocks.length) faqBlocks = kept;
  const quoted = new Map<number, number>();
  let total = fixed + faqWords(faqBlocks);
  for (const f of faqBlocks) if (f.ref !== null) quoted.set(f.ref, (quoted.get(f.ref) ?? 0) + f.words);
  for (const items of chosen.values())
    for (const { unit } of items) {
      total += unit.words;
      if (unit.origin === 'research') quoted.set(unit.ref, (quoted.get(unit.ref) ?? 0) + unit.words);
    }
  const full = new Set([...quoted].filter(([, w]) => w >= (MAX_SOURCE_SHARE - 0.03) * total).map(([r]) => r));

  const model: DraftModel = { h1, sections: [], refs: ctx.refs };
  const ordered = new Map<PlanSection, Unit[]>();
  const taken = new Set([...chosen.values()].flat().map((i) => i.unit.id));
  // Words a section could have taken from units no other section took (the share cap or budgets held them back).
  const placeable = (s: PlanSection): number => {
    const score = sectionScorer(ctx, s);
    return ctx.units.reduce(
      (n, u) => (!taken.has(u.id) && !reserved.has(u.id) && (score(u) ?? 0) >= 0.8 ? n + u.words : n),
      0,
    );
  };
  const thin = new Set<string>();
  const capped = new Set<PlanSection>();
  for (const s of sections) {
    const units = readingOrder(chosen.get(s) ?? []);
    if (s.kind !== 'faq') ordered.set(s, units);
    const name = s.kind === 'faq' ? faqHeading(ctx.language) : s.heading;
    const section: DraftSectionModel = { heading: s.heading === INTRODUCTION ? null : s.heading, name, pieces: [] };
    if (s.kind === 'faq') {
      section.heading = faqHeading(ctx.language);
      section.faqs = faqBlocks;
    }
    const own = imported.get(s);
    if (own) {
      section.pieces.push(...own);
      section.exact = true;
    }
    section.pieces.push(...units.map(piece));
    const words = units.reduce((n, u) => n + u.words, 0);
    if (s.kind === 'body' && !s.keep && !own && words < GAP_MIN_WORDS) thin.add(s.heading.toLowerCase());
    // A heading without enough material says what is missing instead of borrowing someone else's sentences.
    if (
      (s.kind === 'body' || s.kind === 'conclusion' || s.kind === 'intro') &&
      !own &&
      words < GAP_MIN_WORDS &&
      !(s.kind === 'intro' && words > 0)
    ) {
      const short = s.kind !== 'intro' && placeable(s) > words;
      if (short) capped.add(s);
      section.pieces.push({
        kind: 'note',
        text: gapNote(ctx, s, words, short),
        ref: null,
        url: null,
        group: 'gap',
      });
    }
    if (s.kind === 'cta')
      section.pieces.push(
        ...cta.map((text): Piece => ({ kind: 'sentence', text, ref: null, url: null, group: 'cta' })),
      );
    model.sections.push(section);
  }
  return {
    model,
    chosen: ordered,
    avoid: { full, thin },
    capped,
    faqs: faqBlocks.map((f) => faqs.find((x) => x.question === f.question)).filter((f): f is Faq => f !== undefined),
  };
}

/** Appends units to sections (optimize additions and revisions): each to the section that scores it highest. */
export function bestSection(ctx: Context, sections: readonly ComposeSection[], u: Unit): number {
  let best = -1;
  let bestScore = -Infinity;
  sections.forEach((s, i) => {
    if (s.kind === 'faq' || s.kind === 'cta' || s.kind === 'intro' || s.heading === INTRODUCTION) return;
    const score = sectionScorer(ctx, s)(u);
    if (score !== null && score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  return best;
}

/** The draft for a brief. */
export function buildDraft(ctx: Context, brief: Brief, h1: string): { draft: Draft; layout: Layout } {
  const layout = layoutDraft(ctx, sectionsFromBrief(ctx, brief), brief.faqs, h1);
  return { draft: renderDraft(layout.model), layout };
}

/** Terms among the top 25 that neither the imported page nor the chosen units use. */
export function missingTopTerms(ctx: Context, present: readonly Unit[], limit = 25): string[] {
  return ctx.terms.terms
    .slice(0, limit)
    .map((t) => t.key)
    .filter((k) => {
      const phrase = tokenize(k, ctx.language).map((t) => t.stem);
      return !present.some((u) => hasRun(u.seq, phrase));
    });
}

/** Optimize mode: one cited unit for each important term the page lacks, within the words left. */
function addMissingTerms(
  ctx: Context,
  sections: readonly ComposeSection[],
  chosen: Map<ComposeSection, Scored[]>,
  reserved: ReadonlySet<number>,
  room: number,
): void {
  const placed = [...chosen.values()].flat().map((s) => s.unit);
  const used = new Set([...reserved, ...placed.map((u) => u.id)]);
  const words = placed.reduce((n, u) => n + u.words, 0);
  const missing = missingTopTerms(ctx, [...(ctx.imported?.units ?? []), ...placed]);
  for (const pick of pickForTerms(ctx, sections, missing, used, Math.max(0, room - words), (u) =>
    bestSection(ctx, sections, u),
  )) {
    // A term no section fits is left out rather than dropped anywhere.
    const s = sections[pick.section];
    if (!s) continue;
    const list = chosen.get(s) ?? [];
    list.push({ unit: pick.unit, score: sectionScorer(ctx, s)(pick.unit) ?? 0 });
    chosen.set(s, list);
  }
}
