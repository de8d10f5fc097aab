/**
 * The brief's structured output: the JSON Schema sent to the model (OpenAI strict mode: every property required,
 * `additionalProperties: false`, no length keywords, which strict mode does not accept), the zod schema that
 * validates the answer, and the normalisation that clamps lengths, maps citation numbers to URLs and drops anything
 * that mentions an excluded topic.
 */
import { z } from 'zod';
import type { Faq, OutlineSection, ResearchSource, SeoMetadata } from '../types.ts';

export const TITLE_MAX = 60;
export const META_DESCRIPTION_MAX = 155;
const SLUG_MAX = 80;
const MAX_SECTIONS = 20;
const MAX_POINTS = 8;
const MAX_FAQS = 10;
const MAX_SECONDARY = 10;

const str = (description: string) => ({ type: 'string', description });
const obj = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

export const BRIEF_SCHEMA_NAME = 'content_brief';

/** JSON Schema of the brief answer. */
export const BRIEF_JSON_SCHEMA: Record<string, unknown> = obj({
  outline: {
    type: 'array',
    description: 'Sections of the page in order, without the introduction, FAQ section and sources list.',
    items: obj({
      heading: str('The section heading as it will appear on the page.'),
      level: {
        type: 'integer',
        enum: [2, 3],
        description: '2 for a main section (H2), 3 for a subsection (H3) of the H2 before it.',
      },
      points: { type: 'array', items: { type: 'string' }, description: 'What the section covers, one point each.' },
      sources: {
        type: 'array',
        items: { type: 'integer' },
        description: 'Numbers of the research sources the section draws on.',
      },
    }),
  },
  seo: obj({
    title: str(`SEO title, at most ${TITLE_MAX} characters, with the primary keyword.`),
    metaDescription: str(`Meta description, at most ${META_DESCRIPTION_MAX} characters.`),
    slug: str('URL slug: lower-case words joined by hyphens.'),
    h1: str('The H1 of the page.'),
    primaryKeyword: str('The primary keyword.'),
    secondaryKeywords: { type: 'array', items: { type: 'string' }, description: 'Secondary keywords (3 to 8).' },
  }),
  faqs: {
    type: 'array',
    items: obj({
      question: str('A question readers ask.'),
      answer: str('A direct answer of 1 to 3 sentences.'),
      source: {
        type: ['integer', 'null'],
        description: 'Number of the research source the answer comes from, or null.',
      },
    }),
  },
});

const level = z.union([z.number(), z.string()]).transform((v) => (Number(v) <= 2 ? 2 : 3) as 2 | 3);
const sourceNumber = z.union([z.number(), z.string()]).transform((v) => Number(String(v).replace(/[^\d]/g, '')));

/** The answer as the model returns it, leniently typed (numbers as strings, absent arrays). */
export const briefAnswerSchema = z.object({
  outline: z
    .array(
      z.object({
        heading: z.string(),
        level: level.default(2),
        points: z.array(z.string()).default([]),
        sources: z.array(sourceNumber).default([]),
      }),
    )
    .min(1),
  seo: z.object({
    title: z.string(),
    metaDescription: z.string(),
    slug: z.string().default(''),
    h1: z.string().default(''),
    primaryKeyword: z.string().default(''),
    secondaryKeywords: z.array(z.string()).default([]),
  }),
  faqs: z
    .array(z.object({ question: z.string(), answer: z.string(), source: sourceNumber.nullable().default(null) }))
    .optional()
    .default([]),
});

export type BriefAnswer = z.infer<typeof briefAnswerSchema>;

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Cuts at the last word boundary that fits, without an ellipsis (titles and descriptions are shown whole). */
export function clamp(text: string, max: number): string {
  const s = clean(text);
  if (s.length <= max) return s;
  const cut = s.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  return (space > max * 0.6 ? cut.slice(0, space) : s.slice(0, max)).replace(/[\s,;:–-]+$/, '');
}

/** Lower-case letters and digits joined by hyphens; Latin diacritics dropped, other scripts kept. */
export function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, '');
}

export interface NormalizeContext {
  topic: string;
  sources: readonly ResearchSource[];
  mentionsExcluded: (text: string) => boolean;
}

/** The brief's outline, metadata and FAQs from a validated answer; null when no usable section is left. */
export function normalizeBrief(
  answer: BriefAnswer,
  ctx: NormalizeContext,
): { outline: OutlineSection[]; seoMetadata: SeoMetadata; faqs: Faq[] } | null {
  const valid = (n: number) => Number.isInteger(n) && n >= 1 && n <= ctx.sources.length;
  const ok = (s: string) => clean(s).length > 0 && !ctx.mentionsExcluded(s);
  const outline: OutlineSection[] = [];
  for (const s of answer.outline) {
    if (!ok(s.heading) || outline.length >= MAX_SECTIONS) continue;
    outline.push({
      heading: clean(s.heading).replace(/^#+\s*/, ''),
      // A subsection needs a main section before it.
      level: outline.length === 0 ? 2 : s.level,
      points: s.points.filter(ok).map(clean).slice(0, MAX_POINTS),
      sources: [...new Set(s.sources.filter(valid))].sort((a, b) => a - b),
    });
  }
  if (outline.length === 0) return null;

  const topic = clean(ctx.topic);
  const fallbackTitle = ok(topic) ? topic.charAt(0).toUpperCase() + topic.slice(1) : (outline[0]?.heading ?? '');
  const h1 = ok(answer.seo.h1) ? clean(answer.seo.h1) : ok(answer.seo.title) ? clean(answer.seo.title) : fallbackTitle;
  const title = clamp(ok(answer.seo.title) ? answer.seo.title : h1, TITLE_MAX);
  const description = clean(answer.seo.metaDescription);
  const metaDescription = clamp(ok(description) ? description : '', META_DESCRIPTION_MAX);
  const primaryKeyword = ok(answer.seo.primaryKeyword) ? clean(answer.seo.primaryKeyword) : topic;
  const seen = new Set([primaryKeyword.toLowerCase()]);
  const secondaryKeywords: string[] = [];
  for (const k of answer.seo.secondaryKeywords.map(clean)) {
    if (!ok(k) || seen.has(k.toLowerCase()) || secondaryKeywords.length >= MAX_SECONDARY) continue;
    seen.add(k.toLowerCase());
    secondaryKeywords.push(k);
  }
  const modelSlug = slugify(answer.seo.slug);
  const slug =
    (ok(modelSlug.replace(/-/g, ' ')) ? modelSlug : '') || slugify(primaryKeyword) || slugify(title) || 'page';

  const faqs: Faq[] = answer.faqs
    .filter((f) => ok(f.question) && ok(f.answer))
    .slice(0, MAX_FAQS)
    .map((f) => ({
      question: clean(f.question),
      answer: clean(f.answer),
      sourceUrl: f.source !== null && valid(f.source) ? (ctx.sources[f.source - 1]?.url ?? null) : null,
    }));

  return { outline, seoMetadata: { title, metaDescription, slug, h1, primaryKeyword, secondaryKeywords }, faqs };
}
