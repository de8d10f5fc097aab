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

/** Revises a draft toward the goals. */
export function reviseDraft(ctx: Context, brief: Brief, draft: Draft, goals: RevisionGoals): Draft {
  const doc = parse(draft.markdown);
  // Insertions by line; at one line, additions to the section above come before new sections, then the FAQ.
  const inserts: { at: number; order: number; lines: string[] }[] = [];
  const insert = (at: number, lines: string[], order = 0): void => {
    inserts.push({ at, order: order * 1e6 + inserts.length, lines });
  };
  const added: DraftSentence[] = [];
  const target = ctx.request.wordCountTarget;
  let room = Math.max(0, Math.floor(target * 1.15) - countWords(draft.markdown));
  const faqName = faqHeading(ctx.language);
  const isFaq = (h: string): boolean => /\b(?:faqs?|frequently asked)\b/i.test(h) || h === faqName;
  const conclusion = slotsFor('educate', 'article').find((s) => s.key === 'conclusion')?.heading;
  const cta = slotHeading('contact', ctx.style, templateVars(ctx));
  const closing = doc.sections.find(
    (s) => isFaq(s.heading) || /^sources$/i.test(s.heading) || conclusion?.test(s.heading) || s.heading === cta,
  );
  const closingLine = closing?.line ?? (doc.sources >= 0 ? doc.sources : doc.lines.length);

  // Citation numbers: the draft's own list first; a new source gets the next free number.
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
  // The client's own words carry no citation marker; researched ones cite their page.
  const render = (u: Unit): string =>
    `${u.kind === 'item' ? '- ' : ''}${u.text}${u.origin === 'research' ? ` [${cite(u.url)}]` : ''}`;
  const present = new Set([...draft.sentences.map((s) => normalizeSpace(s.text).toLowerCase())]);
  // No sentence twice: units the draft already has, or that say the same as one of its sentences, stay out.
  const presentStems = draft.sentences.map((s) => new Set(contentStems(s.text, ctx.language)));
  const repeats = (stems: ReadonlySet<string>): boolean =>
    stems.size > 0 && presentStems.some((p) => jaccard(stems, p) >= 0.6);
  const used = new Set(
    ctx.units
      .filter(
        (u) => present.has(normalizeSpace(u.text).toLowerCase()) || draft.markdown.includes(u.text) || repeats(u.stems),
      )
      .map((u) => u.id),
  );
  // Each researched page stays within its share of the draft (MAX_SOURCE_SHARE), counted as the draft stands.
  const quoted = new Map<string, number>();
  for (const s of draft.sentences)
    if (s.sourceUrl && ctx.refs.some((r) => r.url === s.sourceUrl && r.origin === 'research'))
      quoted.set(s.sourceUrl, (quoted.get(s.sourceUrl) ?? 0) + countText(s.text));
  let total = countWords(draft.markdown);
  const share = {
    fits: (u: Unit): boolean => u.origin !== 'research' || u.words <= shareRoom(quoted.get(u.url) ?? 0, total),
    take: (u: Unit): void => {
      if (u.origin === 'research') quoted.set(u.url, (quoted.get(u.url) ?? 0) + u.words);
      total += u.words;
    },
  };

  // An FAQ section, when asked for and missing.
  if (
    !doc.sections.some((s) => isFaq(s.heading)) &&
    goals.recommendations.some((r) => /\bfaq|frequently asked/i.test(r))
  ) {
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
      if (words + w > Math.min(room, target * 0.2)) continue;
      const ref = ctx.refs.find((r) => r.url === f.sourceUrl);
      const sentences = ctx.split(f.answer);
      const stems = sentences.map((t) => new Set(contentStems(t, ctx.language)));
      if (stems.some(repeats)) continue;
      if (ref?.origin === 'research' && w > shareRoom(quoted.get(ref.url) ?? 0, total)) continue;
      presentStems.push(...stems);
      if (ref?.origin === 'research') quoted.set(ref.url, (quoted.get(ref.url) ?? 0) + w);
      total += w;
      const n = ref?.origin === 'research' ? cite(ref.url) : null;
      lines.push(`### ${f.question}`, '', sentences.map((s) => (n === null ? s : `${s} [${n}]`)).join(' '), '');
      for (const s of sentences) added.push({ text: s, section: faqName, sourceUrl: ref?.url ?? null });
      words += w;
    }
    if (lines.length > 0) {
      insert(closingLine, [`## ${faqName}`, '', ...lines], 2);
      room -= words;
    }
  }

  // Sections a unit can go to: the draft's own H2s (not FAQ, sources or a call to action). The client's own sections
  // (services, why choose, process, service area) keep their slot, so no researched sentence goes there.
  const vars = templateVars(ctx);
  const ownSlots = new Map(
    slotsFor(ctx.request.intent, ctx.request.pageContract ?? 'article')
      .filter((slot) => slot.ownOnly)
      .map((slot) => [slotHeading(slot.key, ctx.style, vars), slot] as const),
  );
  const sections: (ComposeSection & { line: number })[] = doc.sections
    .filter((s) => !isFaq(s.heading) && !/^sources$/i.test(s.heading) && s.heading !== cta)
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
  // A sentence goes only under a heading its source section matches (placement.ts); with none, it may open a section
  // under its own source heading.
  const place = (u: Unit): number => bestSection(ctx, sections, u);
  const terms = [...new Set([...goals.missingTerms, ...goals.underusedTerms].map((t) => normalizeSpace(t)))]
    .filter((t) => t && !ctx.excluded.matches(t))
    .filter((t) => goals.underusedTerms.includes(t) || !containsPhrase(draft.markdown, t, ctx.language));
  const picks = pickForTerms(ctx, sections, terms, used, room, place, share);
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
        room -= countText(p.unit.heading);
      }
    }
    const s = sections[p.section];
    if (!s) continue;
    if (s.line >= 0) insert(s.line, ['', render(p.unit), '']);
    else fresh.set(p.section, [...(fresh.get(p.section) ?? []), render(p.unit)]);
    added.push({ text: p.unit.text, section: s.heading, sourceUrl: p.unit.url });
    room -= p.unit.words;
  }
  for (const [i, lines] of fresh)
    insert(closingLine, [`## ${sections[i]?.heading ?? ''}`, '', ...lines.flatMap((l) => [l, '']), ''], 1);

  // A list, when asked for and the draft has none.
  const body = doc.lines.slice(0, doc.sources >= 0 ? doc.sources : doc.lines.length);
  if (
    goals.recommendations.some((r) => /\b(?:bulleted|numbered) list\b/i.test(r)) &&
    !body.some((l) => /^\s*(?:[-*+]|\d+\.)\s+/.test(l))
  ) {
    const list = bestList(ctx, sections, used, room, share);
    const s = list ? sections[list.section] : undefined;
    if (list && s && s.line >= 0) {
      insert(s.line, ['', ...list.units.map(render), '']);
      for (const u of list.units) share.take(u);
      for (const u of list.units) added.push({ text: u.text, section: s.heading, sourceUrl: u.url });
    }
  }

  const lines = [...doc.lines];
  if (doc.h1 >= 0 && !containsPhrase(lines[doc.h1] ?? '', ctx.topic, ctx.language)) {
    const h1 =
      containsPhrase(brief.seoMetadata.h1, ctx.topic, ctx.language) && !ctx.excluded.matches(brief.seoMetadata.h1)
        ? brief.seoMetadata.h1
        : capitalizeFirst(ctx.topic);
    lines[doc.h1] = `# ${h1}`;
  }
  if (newRefs.length > 0) {
    if (doc.sources >= 0) {
      let last = doc.sources;
      for (let i = doc.sources + 1; i < lines.length && !/^#{1,2}\s/.test(lines[i] ?? ''); i += 1)
        if (/^\d+\.\s/.test(lines[i] ?? '')) last = i;
      insert(last + 1, newRefs);
    } else insert(lines.length, ['', '## Sources', '', ...newRefs]);
  }
  inserts.sort((a, b) => b.at - a.at || b.order - a.order);
  for (const i of inserts) lines.splice(i.at, 0, ...i.lines);
  const markdown = `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
  return { markdown, wordCount: countWords(markdown), sentences: [...draft.sentences, ...added] };
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
