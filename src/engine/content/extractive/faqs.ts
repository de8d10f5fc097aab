/**
 * FAQs (docs/extractive-writer.md section 7): questions from the sources' FAQPage JSON-LD and from question
 * headings ("...?") answered by the paragraphs below them; answers trimmed to whole usable sentences; ranked,
 * de-duplicated, at most six, each with its source.
 */
import type { Faq } from '../types.ts';
import type { Context } from './context.ts';
import { rejectReason } from './sentences.ts';
import { contentStems, countText, jaccard, normalizeSpace, overlap } from './text.ts';
import { matchTerms } from './terms.ts';

interface Candidate {
  question: string;
  sentences: string[];
  url: string;
  ref: number;
  order: number;
  structured: boolean;
  stems: Set<string>;
  score: number;
}

export const MAX_FAQS = 6;

const REPLY_SUBJECT = /^\s*(?:re|aw|sv|fw|fwd)\s*:/i;

/** Two questions ask the same when their non-topic words overlap (Jaccard >= 0.6) or both have none. */
function similar(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return (a.size === 0 && b.size === 0) || jaccard(a, b) >= 0.6;
}

/** Whole sentences of an answer that pass the sentence rules: up to three, stopping once past 25 words. */
function answerSentences(ctx: Context, text: string, url: string): string[] {
  const out: string[] = [];
  let words = 0;
  for (const s of ctx.split(text)) {
    if (ctx.bannedFor(url).matches(s) || rejectReason(s, { item: true, foreign: true }) !== null) {
      if (out.length === 0) continue;
      break;
    }
    if (words + countText(s) > 70 && out.length > 0) break;
    out.push(s);
    words += countText(s);
    if (out.length === 3 || words >= 25) break;
  }
  return words >= 8 ? out : [];
}

/** The FAQs of a brief, best first; `avoid` are outline headings a question must not repeat. */
export function buildFaqs(ctx: Context, avoid: readonly string[], max = MAX_FAQS): Faq[] {
  const raw: Omit<Candidate, 'stems' | 'score'>[] = [];
  let order = 0;
  for (const source of ctx.sources) {
    const ref = ctx.refs.find((r) => r.url === source.url);
    if (!ref) continue;
    for (const f of source.extraction.structuredData.faq) {
      raw.push({
        question: normalizeSpace(f.question),
        sentences: answerSentences(ctx, f.answer, source.url),
        url: source.url,
        ref: ref.number,
        order: order++,
        structured: true,
      });
    }
  }
  for (const h of ctx.headings) {
    // A forum reply's subject ("Re: Is the OPV mod worth it?") repeats the thread's question, it does not ask one.
    if (!h.question || h.unusable || h.level < 2 || REPLY_SUBJECT.test(h.text)) continue;
    raw.push({
      question: normalizeSpace(h.text),
      sentences: answerSentences(ctx, h.following.join(' '), h.url),
      url: h.url,
      ref: h.ref,
      order: order++,
      structured: false,
    });
  }
  const usable = raw.filter((c) => {
    const words = countText(c.question);
    return c.sentences.length > 0 && words >= 3 && words <= 25 && !ctx.bannedFor(c.url).matches(c.question);
  });
  // Similarity leaves the topic's words out: every question shares them.
  const topic = new Set(ctx.topicStems);
  const distinct = (text: string): Set<string> =>
    new Set(contentStems(text, ctx.language).filter((x) => !topic.has(x)));
  const withStems = usable.map((c) => ({ ...c, stems: distinct(c.question), score: 0 }));
  for (const c of withStems) {
    const support = new Set(withStems.filter((o) => similar(o.stems, c.stems)).map((o) => o.ref)).size;
    const topicCov = ctx.topicStems.length
      ? overlap(new Set(contentStems(c.question, ctx.language)), ctx.topicStems) / ctx.topicStems.length
      : 0;
    // A question that does not name the topic must be answered by text that names most of it.
    const answerStems = new Set(contentStems(c.sentences.join(' '), ctx.language));
    const onTopic = topicCov > 0 || overlap(answerStems, ctx.topicStems) * 2 >= ctx.topicStems.length;
    const terms = matchTerms(ctx.termIndex, `${c.question} ${c.sentences.join(' ')}`).score;
    const hint = ctx.hints.size && overlap(c.stems, ctx.hints) > 0 ? 0.3 : 0;
    c.score = onTopic ? 1.5 * topicCov + 0.5 * terms + support + (c.structured ? 0.3 : 0) + hint : -1;
  }
  const avoidStems = avoid.map(distinct);
  const kept: Candidate[] = [];
  for (const c of withStems
    .filter((x) => x.score >= 0)
    .sort((a, b) => b.score - a.score || a.ref - b.ref || a.order - b.order)) {
    if (kept.length >= max) break;
    if (kept.some((k) => similar(k.stems, c.stems)) || avoidStems.some((a) => similar(a, c.stems))) continue;
    kept.push(c);
  }
  return kept.map((c) => ({ question: c.question, answer: c.sentences.join(' '), sourceUrl: c.url }));
}
