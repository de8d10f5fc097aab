/**
 * The brief (docs/extractive-writer.md section 3): outline with each section's points and sources, SEO metadata,
 * entities and FAQs. The outline is the plan after a trial layout, so it lists only sections the sources can fill.
 */
import type { Brief, OutlineSection } from '../types.ts';
import type { Context, Unit } from './context.ts';
import { layoutDraft, planFor } from './draft.ts';
import { buildFaqs } from './faqs.ts';
import { MAX_SECTIONS } from './outline.ts';
import type { PlanSection } from './outline.ts';
import { buildSeo } from './seo.ts';
import { briefEntities } from './terms.ts';
import { INTRODUCTION } from './templates.ts';
import { renderDraft } from './markdown.ts';
import { compareStrings, contentStems, countWords } from './text.ts';

/**
 * Up to five key phrases of a section: the competitor terms its sentences use, weighted by importance, by how many
 * of the sentences use them and 1.5x for phrases of two or three words; topic and heading words left out.
 */
export function sectionPoints(ctx: Context, units: readonly Unit[], heading: string): string[] {
  const skip = new Set([...ctx.topicStems, ...contentStems(heading, ctx.language)]);
  const stats = new Map(ctx.terms.terms.map((t) => [t.key, t]));
  const weight = new Map<string, number>();
  for (const u of units) {
    for (const k of u.terms) {
      const t = stats.get(k);
      if (t) weight.set(k, (weight.get(k) ?? 0) + t.importance * (t.n > 1 ? 1.5 : 1));
    }
  }
  const ranked = [...weight].sort((a, b) => b[1] - a[1] || compareStrings(a[0], b[0])).map(([k]) => k);
  const out: string[] = [];
  for (const k of ranked) {
    const stems = contentStems(k, ctx.language);
    if (stems.length === 0 || stems.every((x) => skip.has(x))) continue;
    // A phrase that contains a chosen one (or is contained by it) adds nothing.
    if (out.some((o) => o.includes(k) || k.includes(o))) continue;
    out.push(k);
    if (out.length === 5) break;
  }
  return out.map((k) => stats.get(k)?.display ?? k);
}

function refsOf(units: readonly Unit[]): number[] {
  return [...new Set(units.map((u) => u.ref))].sort((a, b) => a - b);
}

/** Builds the brief. */
export function buildBrief(ctx: Context): Brief {
  const seo = buildSeo(ctx);
  const base = planFor(ctx, false);
  const faqs = buildFaqs(
    ctx,
    base.filter((s) => s.heading !== INTRODUCTION).map((s) => s.heading),
  );
  // More sections (up to nine) while the sources have material the planned ones cannot take; pages already at their
  // share of the draft give no further sections. The longest trial wins.
  let plan = planFor(ctx, faqs.length > 0);
  let layout = layoutDraft(ctx, plan, faqs, seo.h1);
  let words = countWords(renderDraft(layout.model).markdown);
  const key = (p: readonly PlanSection[]): string => p.map((s) => s.heading).join('\n');
  const tried = new Set([key(plan)]);
  for (let extra = 1; words < ctx.request.wordCountTarget * 0.9 && extra <= MAX_SECTIONS; extra += 1) {
    const wider = planFor(ctx, faqs.length > 0, extra, layout.avoid);
    if (tried.has(key(wider))) continue;
    tried.add(key(wider));
    const next = layoutDraft(ctx, wider, faqs, seo.h1);
    const nextWords = countWords(renderDraft(next.model).markdown);
    if (nextWords <= words) continue;
    plan = wider;
    layout = next;
    words = nextWords;
  }
  // A service page's own sections stay even when empty: the draft then says what the client should supply.
  const filled = (s: PlanSection): boolean =>
    s.kind === 'cta' ||
    s.keep === true ||
    layout.capped.has(s) ||
    (s.kind === 'faq' ? layout.faqs.length > 0 : s.range !== undefined || (layout.chosen.get(s)?.length ?? 0) > 0);
  // Sections with no material at all go; those the share cap starved stay, with their note.
  if (!plan.every(filled)) {
    plan = plan.filter(filled);
    layout = layoutDraft(ctx, plan, faqs, seo.h1);
  }
  const importedUnits = (s: PlanSection): Unit[] =>
    s.range
      ? (ctx.imported?.units ?? []).filter((u) => u.block >= (s.range?.[0] ?? 0) && u.block < (s.range?.[1] ?? 0))
      : [];
  const outline: OutlineSection[] = plan.map((s) => {
    if (s.kind === 'faq') {
      const refs = faqs
        .map((f) => ctx.refs.find((r) => r.url === f.sourceUrl)?.number)
        .filter((n): n is number => n !== undefined);
      return {
        heading: s.heading,
        level: 2,
        points: faqs.map((f) => f.question),
        sources: [...new Set(refs)].sort((a, b) => a - b),
      };
    }
    const units = [...importedUnits(s), ...(layout.chosen.get(s) ?? [])];
    const points =
      s.kind === 'cta'
        ? [ctx.client.name, ...(ctx.client.domain ? [ctx.client.domain] : [])]
        : sectionPoints(ctx, units, s.heading);
    return { heading: s.heading, level: s.level, points, sources: refsOf(units) };
  });
  return { outline, seoMetadata: seo, entities: briefEntities(ctx.terms), faqs };
}
