/**
 * Version 3's writing checks: prose (prose.ts), readability measured on real sentences, originality
 * (originality.ts) and the answer first (answer-first.ts). Each is a check with its evidence; the originality and
 * answer checks also give advice of their own kind (`rewrite_copied` with the passages and their sources,
 * `answer_first`).
 */
import { check, ramp } from '../checks.ts';
import { priorityOf } from '../advice.ts';
import type { Recommendation, ScoreCheck } from '../types.ts';
import type { AnswerFirstResult, AnswerKind } from './answer-first.ts';
import type { OriginalityResult } from './originality.ts';
import type { ProseResult } from './prose.ts';
import type { AnalyzedText } from './text.ts';

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** The share of the body in well-formed sentences that earns every readability point (prose.ts scales the same). */
const FULL_PROSE = 0.8;

export function proseChecks(
  p: ProseResult,
  points: { sentences: number; variety: number; repetition: number; faq: number },
) {
  const unanswered = (p.faq?.evidence.unanswered as string[] | undefined) ?? [];
  const ev = p.sentences.evidence;
  return [
    check(
      'prose',
      'prose.sentences',
      'The text is written in sentences',
      points.sentences,
      p.sentences.score / 100,
      ev,
      `Write the body in full sentences: ${Math.round(Number(ev.proseShare) * 100)}% of its words are in well-formed sentences, aim for 80% or more (fragments such as ${JSON.stringify((ev.fragmentExamples as string[])[0] ?? '')} read as a list of keywords).`,
    ),
    check(
      'prose',
      'prose.variety',
      'Sentences vary in length and opening',
      points.variety,
      p.variety.score / 100,
      p.variety.evidence,
      'Vary sentence lengths and openings.',
    ),
    check(
      'prose',
      'prose.repetition',
      'The text does not say the same words again and again',
      points.repetition,
      p.repetition.score / 100,
      p.repetition.evidence,
      `Cut repeated wording: ${((p.repetition.evidence.topTrigrams as { trigram: string; uses: number }[]) ?? [])
        .slice(0, 3)
        .map((t) => `"${t.trigram}" (${t.uses} times)`)
        .join(', ')}.`,
    ),
    check(
      'prose',
      'prose.faq_answers',
      'Questions the text asks are answered',
      points.faq,
      p.faq ? p.faq.score / 100 : 1,
      p.faq ? p.faq.evidence : { questions: 0 },
      `Answer each question in a sentence or more that speaks to it: ${unanswered
        .slice(0, 3)
        .map((q) => `"${q}"`)
        .join(', ')}.`,
    ),
  ];
}

/** Average words of the well-formed sentences (0 without any). */
function realSentenceWords(a: AnalyzedText): number {
  const real = a.sentences.filter((s) => s.wellFormed);
  return real.length ? real.reduce((n, s) => n + s.words.length, 0) / real.length : 0;
}

export function readabilityChecks(
  a: AnalyzedText,
  p: ProseResult,
  points: { ease: number; sentences: number; paragraphs: number },
) {
  const share = Number(p.sentences.evidence.proseShare) || 0;
  const inProse = Math.min(1, share / FULL_PROSE);
  const avg = realSentenceWords(a);
  const paras = a.blocks.filter((b) => b.kind === 'paragraph').map((b) => b.text.split(/\s+/).length);
  const avgPara = paras.length ? paras.reduce((x, y) => x + y, 0) / paras.length : 0;
  const ease = p.readability.evidence.fleschOnSentences as number | null;
  return [
    check(
      'readability',
      'readability.reading_ease',
      'Reading ease of the real sentences (Flesch), weighed by how much of the text is sentences',
      points.ease,
      p.readability.score / 100,
      p.readability.evidence,
      ease === null
        ? 'Write sentences: the text has no well-formed sentence to read.'
        : `Use shorter words and sentences: reading ease of the sentences is ${round1(ease)}, aim for 60 or more${inProse < 1 ? `, with at least 80% of the text in sentences (now ${Math.round(share * 100)}%)` : ''}.`,
    ),
    check(
      'readability',
      'readability.sentence_length',
      'Average length of the real sentences at most 20 words',
      points.sentences,
      avg === 0 ? 0 : (1 - ramp(avg, 20, 35)) * inProse,
      { average_words: round2(avg), prose_share: round2(share) },
      avg === 0
        ? 'Write sentences: the text has no well-formed sentence.'
        : `Shorten long sentences: ${round1(avg)} words on average, aim for 20 or fewer${inProse < 1 ? ', and write the fragments out as sentences' : ''}.`,
    ),
    check(
      'readability',
      'readability.paragraph_length',
      'Average paragraph length at most 100 words',
      points.paragraphs,
      paras.length === 0 ? 0 : (1 - ramp(avgPara, 100, 250)) * inProse,
      { average_words: round2(avgPara), paragraphs: paras.length, prose_share: round2(share) },
      paras.length === 0
        ? 'Write the body as paragraphs.'
        : `Break long paragraphs up: ${Math.round(avgPara)} words on average, aim for 100 or fewer${inProse < 1 ? ', and write the fragments out as sentences' : ''}.`,
    ),
  ];
}

const clip = (s: string, n = 140) => (s.length <= n ? s : `${s.slice(0, n).replace(/\s+\S*$/, '')}...`);

export function originalityCheck(
  o: OriginalityResult,
  points: number,
): { check: ScoreCheck; advice: Recommendation | null } {
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const c = check(
    'originality',
    'originality.copied',
    'The text is its own: not copied from the ranking pages, not repeating itself',
    points,
    o.score / 100,
    {
      words: o.words,
      copied_words: o.copiedWords,
      copied_share: round2(o.copiedShare),
      self_repeat_share: round2(o.selfRepeatShare),
      passages: o.passages.slice(0, 10).map((p) => ({ text: clip(p.text, 300), words: p.words, url: p.url })),
      by_source: o.bySource,
      repeated_phrases: o.repeatedPhrases,
    },
    o.copiedWords
      ? `Rewrite the passages copied from ranking pages in your own words (${o.copiedWords} words, ${pct(o.copiedShare)} of the text).`
      : `Say repeated phrases once: ${o.repeatedPhrases
          .slice(0, 3)
          .map((r) => `"${r.phrase}" (${r.uses} times)`)
          .join(', ')}.`,
  );
  const missing = round2(c.possible - c.earned);
  if (missing <= 0) return { check: c, advice: null };
  const listed = o.passages
    .slice(0, 3)
    .map((p) => `"${clip(p.text)}" (${p.words} words, from ${p.url})`)
    .join('; ');
  const advice: Recommendation | null = o.copiedWords
    ? {
        id: 'originality.copied',
        check: 'originality.copied',
        category: 'originality',
        kind: 'rewrite_copied',
        term: null,
        points: missing,
        priority: priorityOf(missing),
        recommendation: `Rewrite in your own words the ${o.passages.length} ${o.passages.length === 1 ? 'passage' : 'passages'} copied from ranking pages (${o.copiedWords} of ${o.words} words): ${listed}${o.passages.length > 3 ? `; and ${o.passages.length - 3} more (see the check's evidence)` : ''}.`,
      }
    : null;
  return { check: c, advice };
}

const ANSWER_WORDS: Record<AnswerKind, string> = {
  number: 'a figure with its unit',
  list: 'the picks by name',
  definition: 'a definition',
  steps: 'the first step',
  topic: 'a direct statement',
};

/** `opening`: the page's opening as written (the result's own-text opening has its copied words blanked). */
export function answerCheck(
  a: AnswerFirstResult,
  keyword: string,
  points: number,
  opening = a.opening,
): { check: ScoreCheck; advice: Recommendation | null } {
  const c = check(
    'answer',
    'answer.first',
    'The opening answers the question the keyword asks',
    points,
    a.score / 100,
    {
      kind: a.kind,
      opening: clip(opening, 300),
      overlap: a.overlap,
      missing_words: a.missingWords,
      kind_met: a.kindMet,
      answer: a.evidence,
      prose_share: a.proseShare,
    },
    '',
  );
  const missing = round2(c.possible - c.earned);
  if (missing <= 0) return { check: { ...c, recommendation: null }, advice: null };
  const parts = [
    `Open with the answer: "${keyword}" asks for ${ANSWER_WORDS[a.kind]}; give it in the first sentences`,
    a.missingWords.length ? `with ${a.missingWords.map((w) => `"${w}"`).join(', ')}` : '',
    a.proseShare < 1 ? 'in full sentences' : '',
  ].filter(Boolean);
  const text = `${parts.join(' ')}.`;
  return {
    check: { ...c, recommendation: text },
    advice: {
      id: 'answer.first',
      check: 'answer.first',
      category: 'answer',
      kind: 'answer_first',
      term: null,
      points: missing,
      priority: priorityOf(missing),
      recommendation: text,
    },
  };
}
