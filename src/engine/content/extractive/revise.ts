/**
 * An optimization pass over a draft (docs/extractive-writer.md section 10). It only inserts: a cited sentence for
 * each missing or under-used term (in the section that fits it best, or a new section under the source's own
 * heading), an FAQ section or a list when the recommendations ask for one, and an H1 that names the keyword.
 * Existing text is never removed or reworded, and insertions stop at +15% of the word target.
 */
import type { Brief, Draft, DraftSentence, RevisionGoals } from '../types.ts';
import type { Context, Unit } from './context.ts';
import { pickForTerms, sectionScorer, shareRoom } from './compose.ts';
import type { ComposeSection } from './compose.ts';
import { bestSection } from './draft.ts';
import { buildFaqs } from './faqs.ts';
import { templateVars } from './outline.ts';
import { faqHeading, slotHeading, slotsFor, INTRODUCTION } from './templates.ts';
import { capitalizeFirst, contentStems, countText, countWords, jaccard, normalizeSpace } from './text.ts';
import { containsPhrase } from './terms.ts';

interface Parsed {
  lines: string[];
  h1: number;
  /** H2 sections in order: heading line and the line where the next H1/H2 starts. */
  sections: { heading: string; line: number; end: number }[];
  sources: number;
  cited: Map<string, number>;
}

function parse(markdown: string): Parsed {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const heads: { heading: string; line: number; level: number }[] = [];
  let fence = false;
  lines.forEach((l, i) => {
    if (/^\s*(```|~~~)/.test(l)) fence = !fence;
    const m = fence ? null : /^(#{1,2})\s+(.*)$/.exec(l);
    if (m) heads.push({ heading: normalizeSpace(m[2] ?? ''), line: i, level: m[1]?.length ?? 2 });
  });
  const sections = heads
    .filter((h) => h.level === 2)
    .map((h) => ({
      heading: h.heading,
      line: h.line,
      end: heads.find((x) => x.line > h.line)?.line ?? lines.length,
    }));
  const src = sections.find((s) => /^sources$/i.test(s.heading));
  const cited = new Map<string, number>();
  if (src) {
    for (let i = src.line + 1; i < src.end; i += 1) {
      const m = /^(\d+)\.\s+\[[^\]]*\]\(<?([^)>]*)>?\)/.exec(lines[i] ?? '');
      if (m) cited.set(m[2] ?? '', Number(m[1]));
    }
  }
  return { lines, h1: lines.findIndex((l) => /^#\s+/.test(l)), sections, sources: src?.line ?? -1, cited };
}

/** Lines to insert before line `at`; `order` sorts insertions at one line. */
interface Insert {
  at: number;
  order: number;
  lines: string[];
}

/** Words a unit (or an FAQ answer) would add, and the page they quote. */
interface Quote {
  origin: Unit['origin'] | undefined;
  url: string;
  words: number;
}

/** Each researched page's words in the draft, kept within its share (MAX_SOURCE_SHARE) as words are added. */
interface SourceShare {
  /** Whether the words fit their page's share. */
  fits(q: Quote): boolean;
  /** Counts the words in, for their page and the whole draft. */
  take(q: Quote): void;
}

/** A section a unit can go to, with the line its additions are inserted at (-1: a new section). */
type Target = ComposeSection & { line: number };

/** One revision pass in progress: the parsed draft, what it will insert and what it may still add. */
interface Revision {
  ctx: Context;
  doc: Parsed;
  /** Insertions by line; at one line, additions to the section above come before new sections, then the FAQ. */
  inserts: Insert[];
  added: DraftSentence[];
  /** Words still allowed under +15% of the word target. */
  room: number;
  faqName: string;
  /** The call-to-action heading, which takes no insertion. */
  cta: string | null;
  /** Where new sections go: before the FAQ, the sources, the conclusion or the call to action. */
  closingLine: number;
  /** The citation number of a page, numbering a new source as it is first cited. */
  cite: (url: string) => number;
  /** Sources list entries for the pages cited for the first time. */
  newRefs: string[];
  /** Content stems of every sentence the draft has or gets, so no sentence goes in twice. */
  presentStems: Set<string>[];
  /** Units the draft already has, or that say the same as one of its sentences. */
  used: Set<number>;
  share: SourceShare;
}

/** Whether a heading is an FAQ section's. */
function isFaqHeading(heading: string, faqName: string): boolean {
  return /\b(?:faqs?|frequently asked)\b/i.test(heading) || heading === faqName;
}

/** Queues lines to insert before line `at` of the draft. */
function insertAt(rev: Revision, at: number, lines: string[], order = 0): void {
  rev.inserts.push({ at, order: order * 1e6 + rev.inserts.length, lines });
}

/** The line new sections go before: the first FAQ, sources, conclusion or call-to-action section, else the end. */
function closingLineOf(ctx: Context, doc: Parsed, faqName: string, cta: string | null): number {
  const conclusion = slotsFor('educate', 'article').find((s) => s.key === 'conclusion')?.heading;
  const closing = doc.sections.find(
    (s) =>
      isFaqHeading(s.heading, faqName) ||
      /^sources$/i.test(s.heading) ||
      conclusion?.test(s.heading) ||
      s.heading === cta,
  );
  return closing?.line ?? (doc.sources >= 0 ? doc.sources : doc.lines.length);
}

/** Citation numbers: the draft's own list first; a new source gets the next free number and a Sources entry. */
function citationList(ctx: Context, doc: Parsed): { cite: (url: string) => number; newRefs: string[] } {
  const cited = new Map(doc.cited);
  const newRefs: string[] = [];
  let next = Math.max(0, ...cited.values()) + 1;
  const cite = (url: string): number => {
    const known = cited.get(url);
    if (known !== undefined) return known;
    const title = ctx.refs.find((r) => r.url === url)?.title ?? url;
    cited.set(url, next);
    newRefs.push(`${next}. [${title.replace(/[[\]]/g, '')}](${/[\s()]/.test(url) ? `<${url}>` : url})`);
    return next++;
  };
  return { cite, newRefs };
}

/** Whether a sentence with these stems says the same as one the draft has. */
function repeatsAny(presentStems: readonly ReadonlySet<string>[], stems: ReadonlySet<string>): boolean {
  return stems.size > 0 && presentStems.some((p) => jaccard(stems, p) >= 0.6);
}

/** Units the draft already has, or that say the same as one of its sentences: they stay out. */
function usedUnits(ctx: Context, draft: Draft, presentStems: readonly ReadonlySet<string>[]): Set<number> {
  const present = new Set([...draft.sentences.map((s) => normalizeSpace(s.text).toLowerCase())]);
  return new Set(
    ctx.units
      .filter(
        (u) =>
          present.has(normalizeSpace(u.text).toLowerCase()) ||
          draft.markdown.includes(u.text) ||
          repeatsAny(presentStems, u.stems),
      )
      .map((u) => u.id),
  );
}

/** Each researched page's share of the draft (MAX_SOURCE_SHARE), counted as the draft stands. */
function sourceShares(ctx: Context, draft: Draft): SourceShare {
  const quoted = new Map<string, number>();
  for (const s of draft.sentences)
    if (s.sourceUrl && ctx.refs.some((r) => r.url === s.sourceUrl && r.origin === 'research'))
      quoted.set(s.sourceUrl, (quoted.get(s.sourceUrl) ?? 0) + countText(s.text));
  let total = countWords(draft.markdown);
  return {
    fits: (q) => q.origin !== 'research' || q.words <= shareRoom(quoted.get(q.url) ?? 0, total),
    take: (q) => {
      if (q.origin === 'research') quoted.set(q.url, (quoted.get(q.url) ?? 0) + q.words);
      total += q.words;
    },
  };
}

/** A revision pass over the draft as it stands, with nothing inserted yet. */
function startRevision(ctx: Context, draft: Draft): Revision {
  const doc = parse(draft.markdown);
  const faqName = faqHeading(ctx.language);
  const cta = slotHeading('contact', ctx.style, templateVars(ctx));
  const presentStems = draft.sentences.map((s) => new Set(contentStems(s.text, ctx.language)));
  return {
    ctx,
    doc,
    inserts: [],
    added: [],
    room: Math.max(0, Math.floor(ctx.request.wordCountTarget * 1.15) - countWords(draft.markdown)),
    faqName,
    cta,
    closingLine: closingLineOf(ctx, doc, faqName, cta),
    ...citationList(ctx, doc),
    presentStems,
    used: usedUnits(ctx, draft, presentStems),
    share: sourceShares(ctx, draft),
  };
}

/** A unit as a line of the draft: the client's own words carry no citation marker; researched ones cite their page. */
function renderUnit(rev: Revision, u: Unit): string {
  return `${u.kind === 'item' ? '- ' : ''}${u.text}${u.origin === 'research' ? ` [${rev.cite(u.url)}]` : ''}`;
}

/** Adds an FAQ section when the recommendations ask for one and the draft has none. */
function addFaqSection(rev: Revision, brief: Brief, goals: RevisionGoals): void {
  const { ctx, doc, faqName } = rev;
  if (
    doc.sections.some((s) => isFaqHeading(s.heading, faqName)) ||
    !goals.recommendations.some((r) => /\bfaq|frequently asked/i.test(r))
  )
    return;
  const faqs = (
    brief.faqs.length
      ? brief.faqs
      : buildFaqs(
          ctx,
          doc.sections.map((s) => s.heading),
        )
  ).filter((f) => !ctx.excluded.matches(f.question) && !ctx.excluded.matches(f.answer));
  const lines: string[] = [];
  let words = countText(faqName);
  for (const f of faqs) {
    const w = countText(f.question) + countText(f.answer);
    if (words + w > Math.min(rev.room, ctx.request.wordCountTarget * 0.2)) continue;
    const ref = ctx.refs.find((r) => r.url === f.sourceUrl);
    const sentences = ctx.split(f.answer);
    const stems = sentences.map((t) => new Set(contentStems(t, ctx.language)));
    if (stems.some((x) => repeatsAny(rev.presentStems, x))) continue;
    const quote = { origin: ref?.origin, url: ref?.url ?? '', words: w };
    if (!rev.share.fits(quote)) continue;
    rev.presentStems.push(...stems);
    rev.share.take(quote);
    const n = ref?.origin === 'research' ? rev.cite(ref.url) : null;
    lines.push(`### ${f.question}`, '', sentences.map((s) => (n === null ? s : `${s} [${n}]`)).join(' '), '');
    for (const s of sentences) rev.added.push({ text: s, section: faqName, sourceUrl: ref?.url ?? null });
    words += w;
  }
  if (lines.length > 0) {
    insertAt(rev, rev.closingLine, [`## ${faqName}`, '', ...lines], 2);
    rev.room -= words;
  }
}

/**
 * Sections a unit can go to: the draft's own H2s (not FAQ, sources or a call to action). The client's own sections
 * (services, why choose, process, service area) keep their slot, so no researched sentence goes there.
 */
function targetSections(rev: Revision): Target[] {
  const { ctx, doc } = rev;
  const vars = templateVars(ctx);
  const ownSlots = new Map(
    slotsFor(ctx.request.intent, ctx.request.pageContract ?? 'article')
      .filter((slot) => slot.ownOnly)
      .map((slot) => [slotHeading(slot.key, ctx.style, vars), slot] as const),
  );
  return doc.sections
    .filter((s) => !isFaqHeading(s.heading, rev.faqName) && !/^sources$/i.test(s.heading) && s.heading !== rev.cta)
    .map((s, i) => ({
      heading: s.heading,
      level: 2,
      kind: 'body',
      slot: ownSlots.get(s.heading) ?? null,
      templated: ownSlots.has(s.heading),
      position: i,
      line: s.end,
      members: new Set(ctx.headings.filter((h) => h.text.toLowerCase() === s.heading.toLowerCase()).map((h) => h.id)),
    }));
}

/** The missing and under-used terms to cover: not excluded, and a missing term only if the draft lacks it. */
function termsToCover(ctx: Context, draft: Draft, goals: RevisionGoals): string[] {
  return [...new Set([...goals.missingTerms, ...goals.underusedTerms].map((t) => normalizeSpace(t)))]
    .filter((t) => t && !ctx.excluded.matches(t))
    .filter((t) => goals.underusedTerms.includes(t) || !containsPhrase(draft.markdown, t, ctx.language));
}

/**
 * Adds a cited sentence for each term to cover, in the section that fits it best; a sentence no section fits opens
 * one new section per pass, under its source's own heading.
 */
function addTermSentences(rev: Revision, draft: Draft, goals: RevisionGoals, sections: Target[]): void {
  const { ctx } = rev;
  // A sentence goes only under a heading its source section matches (placement.ts); with none, it may open a section
  // under its own source heading.
  const place = (u: Unit): number => bestSection(ctx, sections, u);
  const terms = termsToCover(ctx, draft, goals);
  const picks = pickForTerms(ctx, sections, terms, rev.used, rev.room, place, rev.share);
  const fresh = new Map<number, string[]>();
  for (const p of picks) {
    // A sentence no section fits opens one section per pass, under its source's own heading.
    const own = ctx.headings.find((h) => h.id === p.unit.section);
    if (p.section < 0 && own && !own.unusable && !own.dropped && p.unit.origin === 'research') {
      const known = sections.findIndex((s) => s.heading.toLowerCase() === p.unit.heading.toLowerCase());
      if (known >= 0) p.section = known;
      else if (fresh.size === 0) {
        sections.push({
          heading: p.unit.heading,
          level: 2,
          kind: 'body',
          slot: null,
          templated: false,
          position: sections.length,
          line: -1,
          members: new Set(p.unit.headingIds),
        });
        p.section = sections.length - 1;
        rev.room -= countText(p.unit.heading);
      }
    }
    const s = sections[p.section];
    if (!s) continue;
    if (s.line >= 0) insertAt(rev, s.line, ['', renderUnit(rev, p.unit), '']);
    else fresh.set(p.section, [...(fresh.get(p.section) ?? []), renderUnit(rev, p.unit)]);
    rev.added.push({ text: p.unit.text, section: s.heading, sourceUrl: p.unit.url });
    rev.room -= p.unit.words;
  }
  for (const [i, lines] of fresh)
    insertAt(rev, rev.closingLine, [`## ${sections[i]?.heading ?? ''}`, '', ...lines.flatMap((l) => [l, '']), ''], 1);
}

/** Adds a source's list to the section it fits best, when the recommendations ask for a list and the draft has none. */
function addList(rev: Revision, goals: RevisionGoals, sections: readonly Target[]): void {
  const { doc } = rev;
  const body = doc.lines.slice(0, doc.sources >= 0 ? doc.sources : doc.lines.length);
  if (
    !goals.recommendations.some((r) => /\b(?:bulleted|numbered) list\b/i.test(r)) ||
    body.some((l) => /^\s*(?:[-*+]|\d+\.)\s+/.test(l))
  )
    return;
  const list = bestList(rev.ctx, sections, rev.used, rev.room, rev.share);
  const s = list ? sections[list.section] : undefined;
  if (list && s && s.line >= 0) {
    insertAt(rev, s.line, ['', ...list.units.map((u) => renderUnit(rev, u)), '']);
    for (const u of list.units) rev.share.take(u);
    for (const u of list.units) rev.added.push({ text: u.text, section: s.heading, sourceUrl: u.url });
  }
}

/** The draft's lines with an H1 that names the keyword, when the H1 it has does not. */
function retitled(ctx: Context, brief: Brief, doc: Parsed): string[] {
  const lines = [...doc.lines];
  if (doc.h1 >= 0 && !containsPhrase(lines[doc.h1] ?? '', ctx.topic, ctx.language)) {
    const h1 =
      containsPhrase(brief.seoMetadata.h1, ctx.topic, ctx.language) && !ctx.excluded.matches(brief.seoMetadata.h1)
        ? brief.seoMetadata.h1
        : capitalizeFirst(ctx.topic);
    lines[doc.h1] = `# ${h1}`;
  }
  return lines;
}

/** Queues the newly cited sources: after the last entry of the draft's Sources list, or as a new list at the end. */
function addSources(rev: Revision, lines: readonly string[]): void {
  const { doc, newRefs } = rev;
  if (newRefs.length === 0) return;
  if (doc.sources >= 0) {
    let last = doc.sources;
    for (let i = doc.sources + 1; i < lines.length && !/^#{1,2}\s/.test(lines[i] ?? ''); i += 1)
      if (/^\d+\.\s/.test(lines[i] ?? '')) last = i;
    insertAt(rev, last + 1, newRefs);
  } else insertAt(rev, lines.length, ['', '## Sources', '', ...newRefs]);
}

/** The revised draft: the queued insertions applied, bottom up, to the (retitled) lines. */
function applyInserts(rev: Revision, lines: string[], draft: Draft): Draft {
  rev.inserts.sort((a, b) => b.at - a.at || b.order - a.order);
  for (const i of rev.inserts) lines.splice(i.at, 0, ...i.lines);
  const markdown = `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
  return { markdown, wordCount: countWords(markdown), sentences: [...draft.sentences, ...rev.added] };
}

/** Revises a draft toward the goals. */
export function reviseDraft(ctx: Context, brief: Brief, draft: Draft, goals: RevisionGoals): Draft {
  const rev = startRevision(ctx, draft);
  addFaqSection(rev, brief, goals);
  const sections = targetSections(rev);
  addTermSentences(rev, draft, goals, sections);
  addList(rev, goals, sections);
  const lines = retitled(ctx, brief, rev.doc);
  addSources(rev, lines);
  return applyInserts(rev, lines, draft);
}

/** The source list (three or more unused items) that fits a section best and the words left. */
function bestList(
  ctx: Context,
  sections: readonly ComposeSection[],
  used: ReadonlySet<number>,
  room: number,
  share: { fits(u: Unit): boolean },
): { units: Unit[]; section: number } | null {
  const groups = new Map<string, Unit[]>();
  for (const u of ctx.units) {
    if (u.kind !== 'item' || used.has(u.id) || u.origin === 'imported') continue;
    const k = `${u.ref}:${u.list}`;
    groups.set(k, [...(groups.get(k) ?? []), u]);
  }
  let best: { units: Unit[]; section: number; score: number } | null = null;
  for (const units of groups.values()) {
    const words = units.reduce((n, u) => n + u.words, 0);
    const first = units[0];
    if (units.length < 3 || words > room || !first) continue;
    // The whole list must fit its page's share.
    if (!share.fits({ ...first, words })) continue;
    sections.forEach((s, i) => {
      if (s.heading === INTRODUCTION) return;
      const scorer = sectionScorer(ctx, s);
      const scores = units.map((u) => scorer(u));
      // Every item must belong under the heading (placement), not just the list on average.
      if (scores.some((x) => x === null)) return;
      const score = scores.reduce<number>((n, x) => n + (x ?? 0), 0) / units.length;
      if (score > 0 && (!best || score > best.score)) best = { units, section: i, score };
    });
  }
  return best;
}
