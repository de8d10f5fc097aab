/**
 * SEO metadata (docs/extractive-writer.md section 8): a templated title and H1 that contain the topic, a meta
 * description cut from the best summary sentence of the sources, a slug, and the top competitor terms as
 * secondary keywords.
 */
import type { SeoMetadata } from '../types.ts';
import type { Context, Unit } from './context.ts';
import { templateVars } from './outline.ts';
import { sectionScorer } from './compose.ts';
import { titlePatterns } from './templates.ts';
import { capitalizeFirst, normalizeSpace, titleCase, tokenize, trimAtWord } from './text.ts';
import { containsPhrase } from './terms.ts';

export const TITLE_MAX = 60;
export const META_MAX = 155;

/** A URL slug: lower case, letters and digits (diacritics folded for Latin script), hyphens, at most 60 characters. */
export function slugify(text: string): string {
  const folded = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  const slug = folded.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
  if (slug.length <= 60) return slug;
  const cut = slug.slice(0, 60);
  return cut.includes('-') ? cut.slice(0, cut.lastIndexOf('-')) : cut;
}

/** The best summary sentence: an opening-style sentence that names the topic and fits a meta description. */
export function summarySentence(ctx: Context): Unit | null {
  const score = sectionScorer(ctx, {
    heading: '',
    level: 2,
    kind: 'intro',
    slot: null,
    members: new Set(),
    templated: true,
    position: -1,
  });
  let best: Unit | null = null;
  let bestScore = -Infinity;
  for (const u of ctx.units) {
    const s = score(u);
    if (s === null) continue;
    // Prefer sentences that need no cut; a long one still works, trimmed at a word boundary.
    const fit = u.text.length >= 70 && u.text.length <= META_MAX ? 1 : u.text.length <= META_MAX ? 0.3 : 0;
    if (s + fit > bestScore) {
      best = u;
      bestScore = s + fit;
    }
  }
  return best;
}

/** The SEO metadata of a brief. */
export function buildSeo(ctx: Context): SeoMetadata {
  const vars = templateVars(ctx);
  const topic = normalizeSpace(ctx.topic);
  const Topic = titleCase(topic);
  const contract = ctx.request.pageContract ?? 'article';
  const fits = (t: string): boolean => t.length <= TITLE_MAX && !ctx.excluded.matches(t);
  // Title patterns are English; other languages get the topic (and the client's name on a service page).
  const patterns =
    ctx.language === 'en'
      ? titlePatterns(ctx.request.intent, contract, { ...vars, Topic })
      : contract === 'commercial_service'
        ? [`${Topic} | ${vars.client}`, Topic]
        : [Topic];
  const imported = ctx.imported ? importedTitle(ctx) : null;
  const title = imported ?? patterns.find(fits) ?? trimAtWord(Topic, TITLE_MAX);
  const h1Source = ctx.imported?.blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text;
  // The H1 has no length limit: a title cut to fit gives way to the whole topic.
  const h1 =
    h1Source && containsPhrase(h1Source, topic, ctx.language)
      ? h1Source
      : title.endsWith('…')
        ? Topic
        : title.replace(/\s+\|\s+[^|]+$/, '');
  const summary = summarySentence(ctx);
  const meta = summary ? trimAtWord(summary.text, META_MAX) : '';
  return {
    title,
    metaDescription: meta,
    slug: slugify(topic),
    h1: capitalizeFirst(h1),
    primaryKeyword: topic,
    secondaryKeywords: secondaryKeywords(ctx),
  };
}

/**
 * Up to eight competitor terms, phrases first (importance x 1.5 for two or three words); a term inside a chosen
 * one, inside the topic, or a word that starts a topic word (`tank` of `tankless`) is skipped.
 */
export function secondaryKeywords(ctx: Context): string[] {
  const topicWords = tokenize(ctx.topic, ctx.language).map((t) => t.lower);
  const topic = topicWords.join(' ');
  const ranked = [...ctx.terms.terms.slice(0, 60)].sort(
    (a, b) =>
      b.importance * (b.n > 1 ? 1.5 : 1) - a.importance * (a.n > 1 ? 1.5 : 1) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  const out: string[] = [];
  for (const t of ranked) {
    const k = t.key;
    if (topic.includes(k) || (t.n === 1 && topicWords.some((w) => w.startsWith(k)))) continue;
    if (out.some((o) => o.includes(k) || k.includes(o))) continue;
    out.push(k);
    if (out.length === 8) break;
  }
  const display = new Map(ctx.terms.terms.map((t) => [t.key, t.display]));
  return out.map((k) => display.get(k) ?? k);
}

/** Optimize mode keeps the page's own title when it fits and names the topic. */
function importedTitle(ctx: Context): string | null {
  const t = normalizeSpace(ctx.imported?.ref.title ?? '');
  return t && t.length <= TITLE_MAX && containsPhrase(t, ctx.topic, ctx.language) && !ctx.excluded.matches(t)
    ? t
    : null;
}

/** SEO metadata with the keyword restored where it is missing (title, H1, meta description); other fields kept. */
export function reviseSeoMetadata(seo: SeoMetadata, ctx: Context): SeoMetadata {
  const fresh = buildSeo(ctx);
  const has = (t: string): boolean => containsPhrase(t, ctx.topic, ctx.language);
  const meta = has(seo.metaDescription)
    ? seo.metaDescription
    : trimAtWord(`${capitalizeFirst(ctx.topic)}: ${seo.metaDescription || fresh.metaDescription}`, META_MAX);
  return {
    ...seo,
    title: has(seo.title) && seo.title.length <= TITLE_MAX ? seo.title : fresh.title,
    h1: has(seo.h1) ? seo.h1 : fresh.h1,
    metaDescription: meta,
  };
}
