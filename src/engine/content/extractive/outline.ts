/**
 * The outline plan (docs/extractive-writer.md section 4): cluster the research's H2/H3 headings by shared stems,
 * score the clusters, fill the intent's and the page contract's slots, top up with the best remaining clusters,
 * and order sections by where the sources put them.
 */
import type { Context, HeadingOcc, Unit } from './context.ts';
import { faqHeading, slotHeading, slotsFor, INTRODUCTION } from './templates.ts';
import type { Slot, TemplateVars } from './templates.ts';
import { compareStrings, countText, jaccard, overlap, tokenize } from './text.ts';
import { matchTerms } from './terms.ts';

export type SectionKind = 'intro' | 'body' | 'conclusion' | 'cta' | 'faq' | 'imported';

export interface PlanSection {
  heading: string;
  level: 2 | 3;
  kind: SectionKind;
  slot: Slot | null;
  /** Heading occurrences whose sentences are the section's own material. */
  members: ReadonlySet<number>;
  templated: boolean;
  position: number;
  /** Imported sections: the page's blocks [from, to) the section keeps. */
  range?: readonly [number, number];
}

interface Cluster {
  id: number;
  members: HeadingOcc[];
  stems: ReadonlySet<string>;
  heading: string;
  score: number;
  position: number;
  material: number;
}

/** Words of material below which a section is not planned. */
export const MIN_SECTION_WORDS = 40;

export const MAX_SECTIONS = 9;

/** Body sections (intro and FAQ aside) for a word target: 4 to 9. */
export function sectionCount(wordCountTarget: number): number {
  return Math.max(4, Math.min(MAX_SECTIONS, Math.round(wordCountTarget / 250) + 2));
}

/** Template variables of a request. */
export function templateVars(ctx: Context): TemplateVars {
  const area = ctx.client.serviceArea?.trim() || null;
  const areaStems = tokenize(area ?? '', ctx.language)
    .filter((t) => !t.stop)
    .map((t) => t.stem);
  const topicHasArea = overlap(new Set(ctx.topicStems), areaStems) > 0;
  return { topic: ctx.topic, client: ctx.client.name, area, domain: ctx.client.domain?.trim() || null, topicHasArea };
}

/** Clusters of usable research headings, best first. */
export function clusterHeadings(ctx: Context): Cluster[] {
  const topic = new Set(ctx.topicStems);
  const occs = ctx.headings
    .filter((h) => !h.unusable && !h.faq && h.level >= 2 && h.level <= 3 && countText(h.text) <= 14)
    // A heading that is all topic words (`What is a tankless water heater?`) keeps its function words instead.
    .map((h) => {
      const own = h.stems.filter((x) => !topic.has(x));
      return {
        h,
        stems: new Set(
          own.length > 0
            ? own
            : tokenize(h.text, ctx.language)
                .map((t) => t.stem)
                .filter((x) => !topic.has(x)),
        ),
      };
    })
    .filter((o) => o.stems.size > 0)
    .sort((a, b) => a.h.ref - b.h.ref || a.h.position - b.h.position);
  const clusters: { members: HeadingOcc[]; stems: Set<string> }[] = [];
  for (const o of occs) {
    let best = -1;
    let bestSim = 0;
    clusters.forEach((c, i) => {
      const sim = jaccard(o.stems, c.stems);
      if (sim > bestSim) {
        best = i;
        bestSim = sim;
      }
    });
    const target = best >= 0 && bestSim >= 0.5 ? clusters[best] : undefined;
    if (target) target.members.push(o.h);
    else clusters.push({ members: [o.h], stems: o.stems });
  }
  const sourceCount = Math.max(1, new Set(ctx.headings.map((h) => h.ref)).size);
  const material = nativeWords(ctx.units);
  return clusters
    .map((c, id) => {
      const refs = new Set(c.members.map((m) => m.ref)).size;
      const termWeight =
        c.members.reduce((sum, m) => sum + matchTerms(ctx.termIndex, m.text).score, 0) / c.members.length;
      const words = c.members.reduce((sum, m) => sum + (material.get(m.id) ?? 0), 0);
      const hint = overlap(ctx.hints, c.stems) > 0 ? 0.3 : 0;
      return {
        id,
        members: c.members,
        stems: c.stems,
        heading: representative(c.members, ctx),
        score: (2 * refs) / sourceCount + 0.5 * termWeight + hint + 0.5 * Math.min(1, words / 150),
        position: c.members.reduce((sum, m) => sum + m.position, 0) / c.members.length,
        material: words,
      };
    })
    .sort((a, b) => b.score - a.score || a.position - b.position || a.id - b.id);
}

function nativeWords(units: readonly Unit[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const u of units) {
    if (u.faq || u.origin !== 'research') continue;
    const id = u.headingIds[u.headingIds.length - 1];
    if (id !== undefined) out.set(id, (out.get(id) ?? 0) + u.words);
  }
  return out;
}

/** The cluster's heading: its most frequent wording, then the one with more competitor terms, then source order. */
function representative(members: readonly HeadingOcc[], ctx: Context): string {
  const count = new Map<string, number>();
  for (const m of members) count.set(m.text.toLowerCase(), (count.get(m.text.toLowerCase()) ?? 0) + 1);
  const ranked = [...members].sort(
    (a, b) =>
      (count.get(b.text.toLowerCase()) ?? 0) - (count.get(a.text.toLowerCase()) ?? 0) ||
      matchTerms(ctx.termIndex, b.text).score - matchTerms(ctx.termIndex, a.text).score ||
      a.ref - b.ref ||
      a.position - b.position,
  );
  return (ranked[0]?.text ?? '').replace(/[:\s]+$/, '');
}

/** Sentences that suit a templated slot: its cue words plus the topic or an important term. */
export function slotMaterial(ctx: Context, slot: Slot, unit: Unit): boolean {
  if (unit.faq || unit.kind === 'raw') return false;
  if (slot.ownOnly && unit.origin === 'research') return false;
  const own = unit.origin !== 'research';
  if (slot.key === 'area') return areaMatcher(ctx)(unit) && (own || AREA_CUE.test(unit.text));
  if (!own && slot.researchMaterial && !slot.researchMaterial.test(unit.text)) return false;
  const related = overlap(unit.stems, ctx.topicStems) > 0 || unit.termScore >= 0.3 || own;
  // A conclusion may also come from what the sources say near their end.
  return (
    related && (slot.material.test(unit.text) || (slot.key === 'conclusion' && unit.position >= 0.75 && !unit.question))
  );
}

const AREA_CUE =
  /\b(?:serv(?:e|es|ed|ing)|areas?|neighbou?rhoods?|cities|communities|county|suburbs?|across|throughout|nearby|local(?:ly)?)\b/i;

function areaMatcher(ctx: Context): (u: Unit) => boolean {
  const area = ctx.client.serviceArea ?? '';
  const stems = tokenize(area, ctx.language)
    .filter((t) => !t.stop)
    .map((t) => t.stem);
  return (u) => stems.length > 0 && overlap(u.stems, stems) > 0;
}

/** The planned sections of a new page: intro, slots and top clusters, in reading order; `extra` adds sections. */
export function planSections(ctx: Context, extra = 0): PlanSection[] {
  const contract = ctx.request.pageContract ?? 'article';
  const clusters = clusterHeadings(ctx).filter((c) => c.material >= MIN_SECTION_WORDS);
  const used = new Set<number>();
  const vars = templateVars(ctx);
  const n = Math.min(MAX_SECTIONS, sectionCount(ctx.request.wordCountTarget) + extra);
  const english = ctx.language === 'en';
  const candidates: PlanSection[] = [];
  const headings = new Set<string>();
  const add = (p: PlanSection): void => {
    const k = p.heading.toLowerCase();
    if (headings.has(k) || ctx.excluded.matches(p.heading)) return;
    headings.add(k);
    candidates.push(p);
  };
  const available = (members: ReadonlySet<number>, slot: Slot | null): number =>
    ctx.units.reduce((sum, u) => {
      const native = u.headingIds.some((id) => members.has(id)) && !u.faq;
      return native || (slot && slotMaterial(ctx, slot, u)) ? sum + u.words : sum;
    }, 0);

  const ownWords = (slot: Slot): number =>
    ctx.units.reduce((sum, u) => (u.origin !== 'research' && slotMaterial(ctx, slot, u) ? sum + u.words : sum), 0);
  // A section with no source heading behind it needs sentences that name most of the topic.
  const half = Math.max(1, Math.ceil(ctx.topicStems.length / 2));
  const availableStrict = (slot: Slot): number =>
    ctx.units.reduce(
      (sum, u) => (slotMaterial(ctx, slot, u) && overlap(u.stems, ctx.topicStems) >= half ? sum + u.words : sum),
      0,
    );

  for (const slot of slotsFor(ctx.request.intent, contract)) {
    const fits = (text: string): boolean => slot.heading.test(text) && !slot.notHeading?.test(text);
    const matching = clusters.filter(
      (c) => !used.has(c.id) && (fits(c.heading) || c.members.some((m) => fits(m.text))),
    );
    if (slot.key === 'contact') {
      const heading = slotHeading('contact', ctx.style, vars);
      if (heading && english)
        add({ heading, level: 2, kind: 'cta', slot, members: new Set(), templated: true, position: 1 });
      continue;
    }
    if (slot.contract) {
      const take = matching.slice(0, 3);
      const members = new Set(take.flatMap((c) => c.members.map((m) => m.id)));
      const heading = english ? slotHeading(slot.key, ctx.style, vars) : (take[0]?.heading ?? null);
      // The client's own facts fill a section sooner: half the words suffice when they are the client's.
      const enough =
        available(members, english ? slot : null) >= MIN_SECTION_WORDS ||
        (slot.preferOwn && english && ownWords(slot) >= MIN_SECTION_WORDS / 2);
      if (!heading || !enough) continue;
      for (const c of take) used.add(c.id);
      add({
        heading,
        level: 2,
        kind: slot.key === 'conclusion' ? 'conclusion' : 'body',
        slot,
        members,
        templated: english,
        position: slot.nominal,
      });
      continue;
    }
    const best = matching[0];
    if (best) {
      used.add(best.id);
      add({
        heading: best.heading,
        level: 2,
        kind: 'body',
        slot,
        members: new Set(best.members.map((m) => m.id)),
        templated: false,
        position: best.position,
      });
      continue;
    }
    const heading = english ? slotHeading(slot.key, ctx.style, vars) : null;
    if (heading && availableStrict(slot) >= MIN_SECTION_WORDS * 2) {
      add({ heading, level: 2, kind: 'body', slot, members: new Set(), templated: true, position: slot.nominal });
    }
  }
  // The slots come in priority order; keep the CTA and the best of the rest, then top up with clusters.
  const cta = candidates.filter((c) => c.kind === 'cta');
  const rest = candidates.filter((c) => c.kind !== 'cta').slice(0, Math.max(1, n - cta.length));
  for (const c of clusters) {
    if (rest.length + cta.length >= n) break;
    if (used.has(c.id) || headings.has(c.heading.toLowerCase())) continue;
    used.add(c.id);
    headings.add(c.heading.toLowerCase());
    rest.push({
      heading: c.heading,
      level: 2,
      kind: 'body',
      slot: null,
      members: new Set(c.members.map((m) => m.id)),
      templated: false,
      position: c.position,
    });
  }
  const sections: PlanSection[] = [
    { heading: INTRODUCTION, level: 2, kind: 'intro', slot: null, members: new Set(), templated: true, position: -1 },
    ...rest,
    ...cta,
  ];
  return sections.sort((a, b) => a.position - b.position || compareStrings(a.heading, b.heading));
}

/** Adds the FAQ section where the contract puts it: before the call to action, or after an article's conclusion. */
export function withFaqSection(ctx: Context, sections: readonly PlanSection[]): PlanSection[] {
  const faq: PlanSection = {
    heading: faqHeading(ctx.language),
    level: 2,
    kind: 'faq',
    slot: null,
    members: new Set(),
    templated: true,
    position: 0,
  };
  const cta = sections.findIndex((s) => s.kind === 'cta');
  const out = [...sections];
  out.splice(cta >= 0 ? cta : out.length, 0, faq);
  return out;
}

/** The sections of optimize mode: the imported page's own (opening and H2s), then the clusters it lacks. */
export function planOptimize(ctx: Context, extra = 0): PlanSection[] {
  const imported = ctx.imported;
  if (!imported) return planSections(ctx, extra);
  const blocks = imported.blocks;
  const top = Math.min(...blocks.filter((b) => b.kind === 'heading' && b.level >= 2).map((b) => b.level), 7);
  const starts = blocks.flatMap((b, i) => (b.kind === 'heading' && b.level === top ? [i] : []));
  const sections: PlanSection[] = [
    {
      heading: INTRODUCTION,
      level: 2,
      kind: 'imported',
      slot: null,
      members: new Set(),
      templated: true,
      position: -1,
      range: [0, starts[0] ?? blocks.length],
    },
  ];
  starts.forEach((start, i) => {
    const heading = blocks[start]?.text ?? '';
    const range: [number, number] = [start + 1, starts[i + 1] ?? blocks.length];
    const prev = sections[sections.length - 1];
    // A heading that names an excluded topic goes; its text (already filtered) stays with the section above.
    if (ctx.excluded.matches(heading) && prev?.range) prev.range = [prev.range[0], range[1]];
    else
      sections.push({
        heading,
        level: 2,
        kind: 'imported',
        slot: null,
        members: new Set(),
        templated: false,
        position: i,
        range,
      });
  });
  // Added sections go before a closing call to action of the page, else at the end.
  const last = sections[sections.length - 1];
  const closing = last && last.heading !== INTRODUCTION && CLOSING.test(last.heading) ? last.position : Infinity;
  const room = Math.max(1, Math.min(MAX_SECTIONS, sectionCount(ctx.request.wordCountTarget) + extra) - starts.length);
  const taken = new Set(sections.map((s) => s.heading.toLowerCase()));
  for (const c of gapClusters(ctx, imported.headings)) {
    if (sections.length - 1 - starts.length >= room) break;
    if (taken.has(c.heading.toLowerCase())) continue;
    taken.add(c.heading.toLowerCase());
    const position = Number.isFinite(closing) ? closing - 1 + c.position / 2 : starts.length + c.position;
    sections.push({
      heading: c.heading,
      level: 2,
      kind: 'body',
      slot: null,
      members: new Set(c.members.map((m) => m.id)),
      templated: false,
      position,
    });
  }
  return sections.sort((a, b) => a.position - b.position);
}

const CLOSING = /\b(?:contact|call|book|schedule|get in touch|quote|get started)\b/i;

/** True when the imported page already has an FAQ section. */
export function importedHasFaq(ctx: Context): boolean {
  return (ctx.imported?.blocks ?? []).some(
    (b) => b.kind === 'heading' && /\b(?:faqs?|frequently asked)\b/i.test(b.text),
  );
}

/** Clusters the imported page lacks (Jaccard of heading stems < 0.5 with every imported heading), best first. */
export function gapClusters(ctx: Context, importedHeadings: readonly HeadingOcc[]): ReturnType<typeof clusterHeadings> {
  const topic = new Set(ctx.topicStems);
  const own = importedHeadings.map((h) => new Set(h.stems.filter((x) => !topic.has(x))));
  return clusterHeadings(ctx).filter(
    (c) => c.material >= MIN_SECTION_WORDS && own.every((o) => jaccard(o, c.stems) < 0.5),
  );
}
