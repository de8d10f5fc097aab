/**
 * Prose (score version 3): is the text written in sentences a reader can read, or is it a list of
 * keywords? Sub-scores, each 0-100 with its evidence:
 * - `sentences`: the share of the body's words (paragraphs and list items; not headings, tables or code) in
 *   well-formed sentences (text.ts: a verb, 4-60 words, a function word, no noun pile). Fragments and lists of bare
 *   terms count as not prose. 100 from 80% of the words, 0 at 20%.
 * - `variety`: how much sentence lengths vary (coefficient of variation: 100 from 0.45, the spread of edited prose)
 *   and how many sentences start the same way (the first two words of a sentence used by an earlier one).
 * - `repetition`: 100 minus the penalty for word trigrams a text says again and again (the share of trigram uses that
 *   repeat one used before, beyond the 5% prose has) and for repeated openings.
 * - `readability`: Flesch reading ease on the well-formed sentences only (score.readability's syllable count), 100
 *   from 60 and 0 at 10, scaled by the sentences' share of the body so a list of fragments is not "easy to read".
 * - `faq`: for each question (a heading, or a paragraph of at most 25 words, ending in `?`), whether the text under it answers: a
 *   well-formed sentence of at least 6 words that shares a content word with the question, or two such sentences.
 *   null when the text asks no question.
 * The `score` is the weighted mean (sentences 0.35, readability 0.25, repetition 0.2, variety 0.1, faq 0.1; without
 * questions the faq weight is shared out).
 */
import { syllables } from '../readability.ts';
import { tokenize } from '../../words.ts';
import { analyzeText, type AnalyzedText, type Sentence } from './text.ts';

export interface ProseSubScore {
  score: number;
  evidence: Record<string, unknown>;
}

export interface ProseResult {
  score: number;
  sentences: ProseSubScore;
  variety: ProseSubScore;
  repetition: ProseSubScore;
  readability: ProseSubScore;
  faq: ProseSubScore | null;
}

const WEIGHTS = { sentences: 0.35, readability: 0.25, repetition: 0.2, variety: 0.1, faq: 0.1 };

const clamp = (x: number) => Math.max(0, Math.min(100, x));
const round1 = (x: number) => Math.round(x * 10) / 10;
/** 0 at `lo`, 100 at `hi`, linear between (either direction). */
const ramp = (x: number, lo: number, hi: number) => clamp(((x - lo) / (hi - lo)) * 100);

function sentenceShare(a: AnalyzedText): ProseSubScore & { share: number } {
  let body = 0;
  let prose = 0;
  const reasons: Record<string, number> = {};
  for (const s of a.sentences) {
    body += s.words.length;
    if (s.wellFormed) prose += s.words.length;
    else reasons[s.reason!] = (reasons[s.reason!] ?? 0) + 1;
  }
  const share = body ? prose / body : 0;
  const fragments = a.sentences.filter((s) => !s.wellFormed);
  return {
    share,
    score: round1(ramp(share, 0.2, 0.8)),
    evidence: {
      bodyWords: body,
      proseWords: prose,
      proseShare: round1(share * 100) / 100,
      sentences: a.sentences.length - fragments.length,
      fragments: fragments.length,
      fragmentReasons: reasons,
      fragmentExamples: fragments.slice(0, 3).map((s) => s.text),
    },
  };
}

const lower = (s: Sentence) => s.words.map((w) => w.toLowerCase());

function openingRepeats(sentences: readonly Sentence[]): { share: number; top: { opening: string; uses: number }[] } {
  const counts = new Map<string, number>();
  for (const s of sentences) {
    if (s.words.length < 2) continue;
    const o = lower(s).slice(0, 2).join(' ');
    counts.set(o, (counts.get(o) ?? 0) + 1);
  }
  const n = [...counts.values()].reduce((a, b) => a + b, 0);
  const repeats = [...counts.values()].reduce((a, c) => a + c - 1, 0);
  return {
    share: n ? repeats / n : 0,
    top: [...counts]
      .filter(([, c]) => c >= 3)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 5)
      .map(([opening, uses]) => ({ opening, uses })),
  };
}

function variety(a: AnalyzedText): ProseSubScore {
  const real = a.sentences.filter((s) => s.wellFormed);
  const lengths = real.map((s) => s.words.length);
  const mean = lengths.reduce((x, y) => x + y, 0) / Math.max(1, lengths.length);
  const sd = Math.sqrt(lengths.reduce((x, l) => x + (l - mean) ** 2, 0) / Math.max(1, lengths.length));
  const cv = mean ? sd / mean : 0;
  const openings = openingRepeats(a.sentences);
  // Few sentences say little about variety: up to 5 count for less.
  const confidence = Math.min(1, real.length / 5);
  const score = confidence * (0.6 * ramp(cv, 0.1, 0.45) + 0.4 * ramp(openings.share, 0.5, 0.15));
  return {
    score: round1(score),
    evidence: {
      sentences: real.length,
      meanWords: round1(mean),
      lengthCv: Math.round(cv * 100) / 100,
      repeatedOpeningShare: Math.round(openings.share * 100) / 100,
      repeatedOpenings: openings.top,
    },
  };
}

function repetition(a: AnalyzedText): ProseSubScore {
  const counts = new Map<string, number>();
  let uses = 0;
  let repeats = 0;
  for (const s of a.sentences) {
    const w = lower(s);
    for (let i = 0; i + 3 <= w.length; i += 1) {
      const g = `${w[i]} ${w[i + 1]} ${w[i + 2]}`;
      const c = (counts.get(g) ?? 0) + 1;
      counts.set(g, c);
      uses += 1;
      if (c > 1) repeats += 1;
    }
  }
  const trigramShare = uses ? repeats / uses : 0;
  const openings = openingRepeats(a.sentences);
  // Edited prose repeats about 5% of its trigram uses and 15% of its openings; a salad 40-70% of both.
  const penalty = 0.7 * ramp(trigramShare, 0.05, 0.35) + 0.3 * ramp(openings.share, 0.15, 0.5);
  return {
    score: round1(uses ? 100 - penalty : 0),
    evidence: {
      repeatedTrigramShare: Math.round(trigramShare * 100) / 100,
      repeatedOpeningShare: Math.round(openings.share * 100) / 100,
      topTrigrams: [...counts]
        .filter(([, c]) => c >= 3)
        .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
        .slice(0, 5)
        .map(([trigram, n]) => ({ trigram, uses: n })),
    },
  };
}

/** Flesch reading ease of the well-formed sentences (null when there are none). */
export function realSentenceEase(a: AnalyzedText): { ease: number | null; sentences: number; words: number } {
  const real = a.sentences.filter((s) => s.wellFormed);
  const words = real.flatMap((s) => s.words);
  if (!real.length) return { ease: null, sentences: 0, words: 0 };
  const syl = words.reduce((x, w) => x + syllables(w), 0);
  return {
    ease: 206.835 - 1.015 * (words.length / real.length) - 84.6 * (syl / words.length),
    sentences: real.length,
    words: words.length,
  };
}

function readability(a: AnalyzedText, proseShare: number): ProseSubScore {
  const r = realSentenceEase(a);
  const ease = r.ease === null ? 0 : ramp(r.ease, 10, 60);
  const coverage = Math.min(1, proseShare / 0.8);
  return {
    score: round1(ease * coverage),
    evidence: {
      fleschOnSentences: r.ease === null ? null : round1(r.ease),
      sentences: r.sentences,
      words: r.words,
      proseShare: Math.round(proseShare * 100) / 100,
    },
  };
}

const contentStems = (text: string) =>
  new Set(
    tokenize(text, 'en')
      .filter((t) => !t.stop)
      .map((t) => t.stem),
  );

function faq(a: AnalyzedText): ProseSubScore | null {
  const questions = a.blocks.filter(
    (b) =>
      /\?\s*$/.test(b.text) && (b.kind === 'heading' || (b.kind === 'paragraph' && b.text.split(/\s+/).length <= 25)),
  );
  if (!questions.length) return null;
  const results = questions.map((q, i) => {
    const end = questions[i + 1]?.index ?? a.blocks.length;
    const stopAt = a.blocks.find((b) => b.index > q.index && b.kind === 'heading' && b.level <= (q.level || 6));
    const last = Math.min(end, stopAt?.index ?? a.blocks.length);
    const qStems = contentStems(q.text);
    const answer = a.sentences.filter((s) => s.block > q.index && s.block < last);
    const speaking = answer.filter(
      (s) => s.wellFormed && s.words.length >= 6 && s.words.some((w) => qStems.has(tokenize(w, 'en')[0]?.stem ?? '')),
    );
    const real = answer.filter((s) => s.wellFormed && s.words.length >= 6);
    const answered = speaking.length >= 1 || real.length >= 2;
    return { question: q.text, answered, answerWords: answer.reduce((x, s) => x + s.words.length, 0) };
  });
  const answered = results.filter((r) => r.answered).length;
  return {
    score: round1((answered / results.length) * 100),
    evidence: {
      questions: results.length,
      answered,
      unanswered: results
        .filter((r) => !r.answered)
        .slice(0, 5)
        .map((r) => r.question),
    },
  };
}

/** The prose sub-scores of a markdown text (or of one already analysed). */
export function prose(input: string | AnalyzedText): ProseResult {
  const a = typeof input === 'string' ? analyzeText(input) : input;
  const s = sentenceShare(a);
  const parts = {
    sentences: { score: s.score, evidence: s.evidence },
    variety: variety(a),
    repetition: repetition(a),
    readability: readability(a, s.share),
    faq: faq(a),
  };
  let total = 0;
  let weight = 0;
  for (const key of ['sentences', 'readability', 'repetition', 'variety', 'faq'] as const) {
    const part = parts[key];
    if (!part) continue;
    total += WEIGHTS[key] * part.score;
    weight += WEIGHTS[key];
  }
  return { score: round1(total / weight), ...parts };
}
