/**
 * Laying out a draft (docs/extractive-writer.md sections 6 and 9): the FAQ block and template lines are fixed,
 * the composer fills the sections, optimize mode keeps the imported page and adds what it lacks, and the model is
 * rendered to markdown. The brief runs the same layout to report each section's points and sources.
 */
import type { Brief, Draft, Faq } from '../types.ts';
import type { Context, Unit } from './context.ts';
import { compose, hasRun, pickForTerms, sectionScorer } from './compose.ts';
import type { ComposeSection } from './compose.ts';
import { renderDraft } from './markdown.ts';
import type { DraftModel, DraftSectionModel, FaqBlock, Piece } from './markdown.ts';
import { importedHasFaq, MAX_SECTIONS, planOptimize, planSections, templateVars, withFaqSection } from './outline.ts';
import type { PlanSection } from './outline.ts';
import { ctaLines, faqHeading, INTRODUCTION } from './templates.ts';
import { contentStems, countText, normalizeSpace, tokenize } from './text.ts';

export interface Layout {
  model: DraftModel;
  /** Units chosen per section (imported text and FAQ answers aside). */
  chosen: Map<PlanSection, Unit[]>;
  faqs: Faq[];
}

/** The plan of a new or optimize-mode page, with the FAQ section when there are FAQs; `extra` adds sections. */
export function planFor(ctx: Context, hasFaqs: boolean, extra = 0): PlanSection[] {
  const optimize = ctx.request.projectMode === 'optimize' && ctx.imported !== null;
  const plan = optimize ? planOptimize(ctx, extra) : planSections(ctx, extra);
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

/** FAQs that fit the draft: about a fifth of the target (the first one when it fits in 30%). */
function faqsForDraft(ctx: Context, faqs: readonly Faq[], target: number): FaqBlock[] {
  const blocks: FaqBlock[] = [];
  let words = 0;
  for (const f of faqs) {
    if (ctx.excluded.matches(f.question) || ctx.excluded.matches(f.answer)) continue;
    const ref = ctx.refs.find((r) => r.url === f.sourceUrl)?.number ?? null;
    const answer: Piece[] = ctx
      .split(f.answer)
      .map((text) => ({ kind: 'sentence', text, ref, group: `faq:${blocks.length}` }));
    const w = countText(f.question) + answer.reduce((sum, p) => sum + countText(p.text), 0);
    if (words + w > target * 0.2 && !(blocks.length === 0 && w <= target * 0.3)) continue;
    blocks.push({ question: f.question, answer });
    words += w;
  }
  return blocks;
}

function piece(u: Unit): Piece {
  return u.kind === 'item'
    ? { kind: 'item', text: u.text, ref: u.ref, group: `${u.ref}:l${u.list}`, ordered: u.ordered }
    : {
        kind: u.kind === 'raw' ? 'raw' : 'sentence',
        text: u.text,
        ref: u.kind === 'raw' ? null : u.ref,
        group: `${u.ref}:b${u.block}`,
      };
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

/** Lays out the draft for a list of sections. */
export function layoutDraft(
  ctx: Context,
  sections: readonly ComposeSection[],
  faqs: readonly Faq[],
  h1: string,
): Layout {
  const target = ctx.request.wordCountTarget;
  const vars = templateVars(ctx);
  const faqBlocks = faqsForDraft(ctx, faqs, target);
  const faqText = new Set(faqBlocks.flatMap((f) => f.answer.map((p) => key(p.text))));
  const reserved = new Set(ctx.units.filter((u) => faqText.has(key(u.text))).map((u) => u.id));
  const cta = ctaLines(ctx.style, vars);
  const imported = new Map(sections.filter((s) => s.range).map((s) => [s, importedPieces(ctx, s.range ?? [0, 0])]));
  let fixed = countText(h1);
  for (const s of sections) {
    // The opening has no heading; the FAQ block counts whole.
    if (s.kind === 'intro' || s.heading === INTRODUCTION) {
      // nothing fixed
    } else if (s.kind === 'faq') {
      if (faqBlocks.length > 0)
        fixed +=
          countText(s.heading) +
          faqBlocks.reduce(
            (n, f) => n + countText(f.question) + f.answer.reduce((m, p) => m + countText(p.text), 0),
            0,
          );
    } else fixed += countText(s.heading);
    if (s.kind === 'cta') fixed += cta.reduce((n, l) => n + countText(l), 0);
    for (const p of imported.get(s) ?? []) fixed += countText(p.text);
  }
  // Optimize mode always adds something: at least a tenth of the target, even past it.
  const optimize = imported.size > 0;
  const composeTarget = optimize ? Math.max(target, fixed + target * 0.1) : target;
  const chosen = compose(ctx, sections, { target: composeTarget, fixedWords: fixed, reserved });
  if (optimize) addMissingTerms(ctx, sections, chosen, reserved, composeTarget * 1.1 - fixed);

  const model: DraftModel = { h1, sections: [], refs: ctx.refs };
  for (const s of sections) {
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
    section.pieces.push(...(chosen.get(s) ?? []).map(piece));
    if (s.kind === 'cta')
      section.pieces.push(...cta.map((text): Piece => ({ kind: 'sentence', text, ref: null, group: 'cta' })));
    model.sections.push(section);
  }
  return {
    model,
    chosen: new Map([...chosen].map(([k, v]) => [k as PlanSection, v])),
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
  chosen: Map<ComposeSection, Unit[]>,
  reserved: ReadonlySet<number>,
  room: number,
): void {
  const placed = [...chosen.values()].flat();
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
    list.push(pick.unit);
    chosen.set(s, list);
  }
}
