/**
 * The outline plan (docs/extractive-writer.md section 4): cluster the research's H2/H3 headings by shared stems,
 * score the clusters, fill the intent's and the page contract's slots, top up with the best remaining clusters,
 * and order sections by where the sources put them.
 */
import type { Context, HeadingOcc, Unit } from './context.ts';
import { placementOf, SECTION_MATCH_THRESHOLD, subjectStems } from './placement.ts';
import { faqHeading, keywordPhrase, slotHeading, slotsFor, INTRODUCTION } from './templates.ts';
import type { Slot, TemplateVars } from './templates.ts';
import { compareStrings, countText, jaccard, overlap, tokenize } from './text.ts';
import { matchTerms } from './terms.ts';

export type SectionKind = 'intro' | 'body' | 'conclusion' | 'cta' | 'faq' | 'imported';

export interface PlanSection {
  heading: string;
  level: 2 | 3;
  kind: SectionKind;
  slot: Slot | null;
  /** Heading occurrences the section was planned from (a cluster's members); placement does not depend on them. */
  members: ReadonlySet<number>;
  templated: boolean;
  position: number;
  /** Imported sections: the page's blocks [from, to) the section keeps. */
  range?: readonly [number, number];
  /** Kept in the outline even without material (a service page's own sections): the draft says what is missing. */
  keep?: boolean;
}

interface Cluster {
  id: number;
  members: HeadingOcc[];
  stems: ReadonlySet<string>;
  heading: string;
  score: number;
  position: number;
  material: number;
  /** The material by citation number. */
  byRef: ReadonlyMap<number, number>;
}

/** Words of material below which a section is not planned. */
export const MIN_SECTION_WORDS = 30;

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
  return {
    topic: ctx.topic,
    keyword: keywordPhrase(ctx.topic, area),
    client: ctx.client.name,
    area,
    domain: ctx.client.domain?.trim() || null,
    topicHasArea,
  };
}

/** Words of research material a heading can hold, by page: units whose source section matches it (placement.ts). */
export function placeableByRef(ctx: Context, heading: string): Map<number, number> {
  const place = placementOf(ctx, heading);
  const out = new Map<number, number>();
  for (const u of ctx.units) {
    if (u.origin !== 'research' || u.faq || u.kind === 'raw') continue;
    if (place(u) >= SECTION_MATCH_THRESHOLD) out.set(u.ref, (out.get(u.ref) ?? 0) + u.words);
  }
  return out;
}

/** Words of research material a heading can hold. */
export function placeableWords(ctx: Context, heading: string): number {
  let words = 0;
  for (const w of placeableByRef(ctx, heading).values()) words += w;
  return words;
}

/** Clusters of usable research headings, best first; `material` is what their heading can hold. */
export function clusterHeadings(ctx: Context): Cluster[] {
  const topic = new Set(ctx.topicStems);
  const occs = ctx.headings
    .filter((h) => !h.unusable && !h.dropped && !h.faq && h.level >= 2 && h.level <= 3 && countText(h.text) <= 14)
    // Subjects as placement sees them (synonyms as one: prices and cost); a heading that is all topic words (`What is
    // a tankless water heater?`) keeps its function words instead.
    .map((h) => {
      const own = subjectStems(h.text, topic, ctx.language);
      return {
        h,
        stems:
          own.size > 0
            ? own
            : new Set(
                tokenize(h.text, ctx.language)
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
  return clusters
    .map((c, id) => {
      const refs = new Set(c.members.map((m) => m.ref)).size;
      const termWeight =
        c.members.reduce((sum, m) => sum + matchTerms(ctx.termIndex, m.text).score, 0) / c.members.length;
      const heading = representative(c.members, ctx);
      const byRef = placeableByRef(ctx, heading);
      const words = [...byRef.values()].reduce((a, b) => a + b, 0);
      const hint = overlap(ctx.hints, c.stems) > 0 ? 0.3 : 0;
      return {
        id,
        members: c.members,
        stems: c.stems,
        heading,
        score: (2 * refs) / sourceCount + 0.5 * termWeight + hint + 0.5 * Math.min(1, words / 150),
        position: c.members.reduce((sum, m) => sum + m.position, 0) / c.members.length,
        material: words,
        byRef,
      };
    })
    .sort((a, b) => b.score - a.score || a.position - b.position || a.id - b.id);
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

/**
 * The client's own sentences (knowledge base, imported page) that suit a templated slot: its cue words plus the
 * topic, or (service area) the area's name with a word about serving it. Researched sentences never fill a slot by
 * cue words: they go where their source section matches the heading.
 */
export function slotMaterial(ctx: Context, slot: Slot, unit: Unit): boolean {
  if (unit.faq || unit.kind === 'raw' || unit.origin === 'research') return false;
  if (slot.key === 'area') return areaMatcher(ctx)(unit);
  return slot.material.test(unit.text);
}

function areaMatcher(ctx: Context): (u: Unit) => boolean {
  const area = ctx.client.serviceArea ?? '';
  const stems = tokenize(area, ctx.language)
    .filter((t) => !t.stop)
    .map((t) => t.stem);
  return (u) => stems.length > 0 && overlap(u.stems, stems) > 0;
}

/** Service-page sections planned even without material: the draft then says what the client should supply. */
const KEEP: ReadonlySet<string> = new Set(['services', 'why_choose', 'area']);

/** What a trial layout taught: pages at their share of the draft, and headings that got too little material. */
export interface Avoid {
  full: ReadonlySet<number>;
  thin: ReadonlySet<string>;
}

const NO_AVOID: Avoid = { full: new Set(), thin: new Set() };

/**
 * The planned sections of a new page: intro, slots and top clusters, in reading order; `extra` adds sections, and
 * clusters whose material lies only on `full` pages (at their share of the draft), or whose heading came out `thin`
 * in a trial, are passed over.
 */
export function planSections(ctx: Context, extra = 0, avoid: Avoid = NO_AVOID): PlanSection[] {
  const { full, thin } = avoid;
  const contract = ctx.request.pageContract ?? 'article';
  const all = clusterHeadings(ctx);
  const clusters = all.filter((c) => c.material >= MIN_SECTION_WORDS);
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
  const ownWords = (slot: Slot): number =>
    ctx.units.reduce((sum, u) => (slotMaterial(ctx, slot, u) ? sum + u.words : sum), 0);
  // Each page may give only its share of the draft (MAX_SOURCE_SHARE): once a trial layout shows pages at their
  // share, a cluster whose material lies only on them would add a heading, not words.
  const room = (byRef: ReadonlyMap<number, number>): number => {
    let w = 0;
    for (const [ref, m] of byRef) if (!full.has(ref)) w += m;
    return w;
  };
  const worth = (c: Cluster): boolean => room(c.byRef) >= MIN_SECTION_WORDS && !thin.has(c.heading.toLowerCase());

  for (const slot of slotsFor(ctx.request.intent, contract)) {
    const fits = (text: string): boolean => slot.heading.test(text) && !slot.notHeading?.test(text);
    const fitting = (c: Cluster): boolean => fits(c.heading) || c.members.some((m) => fits(m.text));
    const matching = clusters.filter((c) => !used.has(c.id) && fitting(c));
    if (slot.key === 'contact') {
      const heading = slotHeading('contact', ctx.style, vars);
      if (heading && english)
        add({ heading, level: 2, kind: 'cta', slot, members: new Set(), templated: true, position: 1 });
      continue;
    }
    if (slot.ownOnly) {
      // Another business's services, process, service area or reasons to choose it are never the client's: the
      // research sections about them stay out of the page, and only the client's own words fill the slot.
      for (const c of all) if (fitting(c)) used.add(c.id);
      const heading = english ? slotHeading(slot.key, ctx.style, vars) : null;
      const keep = ctx.commercial && KEEP.has(slot.key);
      if (!heading || (!keep && ownWords(slot) < MIN_SECTION_WORDS / 2)) continue;
      add({
        heading,
        level: 2,
        kind: 'body',
        slot,
        members: new Set(),
        templated: true,
        position: slot.nominal,
        keep,
      });
      continue;
    }
    if (slot.contract) {
      const heading = english ? slotHeading(slot.key, ctx.style, vars) : (matching[0]?.heading ?? null);
      if (!heading) continue;
      const material = placeableWords(ctx, heading) + ownWords(slot);
      if (material < MIN_SECTION_WORDS) continue;
      // The clusters the templated heading stands for are not planned again under their own headings.
      for (const c of matching.slice(0, 3)) used.add(c.id);
      add({
        heading,
        level: 2,
        kind: slot.key === 'conclusion' ? 'conclusion' : 'body',
        slot,
        members: new Set(matching.slice(0, 3).flatMap((c) => c.members.map((m) => m.id))),
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
    if (heading && placeableWords(ctx, heading) >= MIN_SECTION_WORDS * 2) {
      add({ heading, level: 2, kind: 'body', slot, members: new Set(), templated: true, position: slot.nominal });
    }
  }
  // The slots come in priority order; keep the CTA, a service page's own sections (they hold the client's words,
  // not the research's, so they do not count against the section number) and the best of the rest, then top up
  // with clusters.
  const cta = candidates.filter((c) => c.kind === 'cta');
  const scaffold = candidates.filter((c) => c.keep);
  const rest = [
    ...scaffold,
    ...candidates.filter((c) => c.kind !== 'cta' && !c.keep).slice(0, Math.max(1, n - cta.length)),
  ];
  for (const c of clusters) {
    if (rest.length - scaffold.length + cta.length >= n) break;
    if (used.has(c.id) || headings.has(c.heading.toLowerCase())) continue;
    if (!worth(c)) continue;
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
export function planOptimize(ctx: Context, extra = 0, avoid: Avoid = NO_AVOID): PlanSection[] {
  const imported = ctx.imported;
  if (!imported) return planSections(ctx, extra, avoid);
  const { full, thin } = avoid;
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
    if ([...c.byRef].reduce((w, [ref, m]) => (full.has(ref) ? w : w + m), 0) < MIN_SECTION_WORDS) continue;
    if (thin.has(c.heading.toLowerCase())) continue;
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
