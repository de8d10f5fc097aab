/**
 * A stepped job's brief as its reviewer edited it at approval: the edited outline replaces the outline heading for
 * heading, edited FAQs replace the FAQs, and edited SEO fields replace those fields. The draft, its score and the
 * artifacts all follow the edited brief.
 */
import type { Brief, BriefEdits, Faq, OutlineSection } from './types.ts';

const key = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** The brief with the edits applied; the brief itself when there are none. */
export function applyBriefEdits(brief: Brief, edits: BriefEdits | null | undefined): Brief {
  if (!edits) return brief;
  const written = new Map(brief.outline.map((o) => [key(o.heading), o]));
  const outline: OutlineSection[] | undefined = edits.outline?.map((o) => ({
    heading: o.heading,
    level: o.level,
    points: o.points,
    // A heading kept from the written brief keeps the sources it drew on.
    sources: written.get(key(o.heading))?.sources ?? [],
  }));
  const answers = new Map(brief.faqs.map((f) => [key(f.question), f]));
  const faqs: Faq[] | undefined = edits.faqs?.map((f) => {
    const known = answers.get(key(f.question));
    if (f.answer !== null) return { question: f.question, answer: f.answer, sourceUrl: null };
    // A question without an answer keeps the brief's answer to the same question, else the writer answers it.
    return { question: f.question, answer: known?.answer ?? '', sourceUrl: known?.sourceUrl ?? null };
  });
  const seo = edits.seoMetadata;
  return {
    ...brief,
    outline: outline ?? brief.outline,
    faqs: faqs ?? brief.faqs,
    seoMetadata: seo
      ? {
          ...brief.seoMetadata,
          ...(seo.title !== undefined ? { title: seo.title } : {}),
          ...(seo.metaDescription !== undefined ? { metaDescription: seo.metaDescription } : {}),
          ...(seo.slug !== undefined ? { slug: seo.slug } : {}),
        }
      : brief.seoMetadata,
  };
}
