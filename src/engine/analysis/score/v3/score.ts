/**
 * Score version 3 (docs/scoring.md): a pure, deterministic function of the page and the saved model.
 *
 * 1. The page's text is read once (page-text.ts). Its passages copied from the ranking pages are found
 *    (originality.ts) and taken out: copied words earn no term, fact or answer credit ("own text").
 * 2. Topical checks read the own text: terms and names by saturation (coverage.ts), the facts (fact-checks.ts), the
 *    answer first (writing.ts); headings and metadata as version 2 reads them, at version 3's weights.
 * 3. Writing checks read the whole text: prose, readability on real sentences, originality; with length and
 *    structure they are scaled by the text's topicality, so a well-written page about something else earns little
 *    for being well written.
 */
import { buildRecommendations, priorityOf } from '../advice.ts';
import type { CheckInput } from '../checks.ts';
import type { CompetitorModel } from '../model.ts';
import { headShare, stemSet } from '../relevance.ts';
import type { TermAnalyzer } from '../../terms/types.ts';
import {
  CATEGORIES_V3,
  type AnalyzedPage,
  type Category,
  type Recommendation,
  type ScoreCheck,
  type ScoreResult,
} from '../types.ts';
import { answerFirst } from './answer-first.ts';
import { coverageChecks, coverageRows, entityRows, type CoverageRow } from './coverage.ts';
import { factChecks } from './fact-checks.ts';
import { factCoverage } from './facts.ts';
import { originalityModelOf, placementsOf, type ModelV3 } from './model.ts';
import { originality, type CopiedPassage } from './originality.ts';
import { headingAndMetadataChecks, lengthCheck, structureChecks, type Thoroughness } from './page-checks.ts';
import { pageText } from './page-text.ts';
import { prose } from './prose.ts';
import { analyzeText, type AnalyzedText } from './text.ts';
import { answerCheck, originalityCheck, proseChecks, readabilityChecks } from './writing.ts';

/** The points of every check: 100 in all. */
export const POINTS = {
  terms: 18,
  entities: 7,
  facts: { covered: 8, gain: 2 },
  prose: { sentences: 8, variety: 2, repetition: 3, faq: 2 },
  readability: { ease: 4, sentences: 2, paragraphs: 2 },
  originality: 12,
  answer: 5,
  length: 5,
  headings: 8,
  metadata: 7,
  structure: 5,
} as const;

/** Categories whose points are scaled by topicality. */
const SCALED = new Set<Category>(['prose', 'readability', 'originality', 'length', 'structure']);
/** The term coverage at which the text counts as fully on topic (with the keyword's words present). */
const ON_TOPIC_COVERAGE = 0.4;

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** The text with its copied passages blanked (line breaks kept, so blocks stay blocks). */
export function withoutPassages(markdown: string, passages: readonly CopiedPassage[]): string {
  if (!passages.length) return markdown;
  const chars = markdown.split('');
  for (const p of passages) for (let c = p.from; c < p.to; c += 1) if (chars[c] !== '\n') chars[c] = ' ';
  return chars.join('');
}

/**
 * How much the text is about the keyword, 0-1: half for the keyword's words anywhere in the title, H1 or text, half
 * for the model's terms it covers (full from 40% of their weighted credit).
 */
export function topicality(
  source: AnalyzedPage,
  model: CompetitorModel,
  rows: readonly CoverageRow[],
  text: AnalyzedText,
): number {
  const e = source.extraction;
  // The text's words are its blocks' (read once already); the title and H1 are added.
  const stems = stemSet(`${e.title}\n${e.h1}`, model.language);
  for (const b of text.blocks) for (const st of stemSet(b.text, model.language)) stems.add(st);
  const head = headShare(model.head, stems);
  const terms = rows.filter((r) => r.model.kind === 'term');
  const weight = terms.reduce((a, r) => a + r.model.importance, 0);
  const credit = weight ? terms.reduce((a, r) => a + r.model.importance * r.credit.credit, 0) / weight : 1;
  return round2(0.5 * head + 0.5 * Math.min(1, credit / ON_TOPIC_COVERAGE));
}

/** A check scaled by topicality: its points shrink, its evidence says by how much. */
function scaled(c: ScoreCheck, t: number): ScoreCheck {
  if (t >= 1) return c;
  return {
    ...c,
    earned: round2(c.earned * t),
    evidence: { ...c.evidence, on_topic: t },
    recommendation: c.recommendation ?? `Counts at the text's topicality (${t}): see the advice "topicality".`,
  };
}

/**
 * One item for the points the writing checks lose to topicality alone (checks that are otherwise met), instead of
 * the same words once per check.
 */
function topicalityAdvice(before: readonly ScoreCheck[], after: readonly ScoreCheck[], t: number, keyword: string) {
  const met = new Set(before.filter((c) => SCALED.has(c.category) && c.earned >= c.possible).map((c) => c.id));
  const lost = round2(after.filter((c) => met.has(c.id)).reduce((a, c) => a + c.possible - c.earned, 0));
  const advice: Recommendation | null =
    lost > 0
      ? {
          id: 'topicality',
          check: 'topicality',
          category: 'coverage',
          kind: 'fix',
          term: null,
          points: lost,
          priority: priorityOf(lost),
          recommendation: `Write about "${keyword}": the text is ${Math.round(t * 100)}% on topic, so its writing, length and structure count at that share.`,
        }
      : null;
  return { met, advice };
}

function categoryScores(details: readonly ScoreCheck[]): Partial<Record<Category, number>> {
  const out: Partial<Record<Category, number>> = {};
  for (const cat of CATEGORIES_V3) {
    const inCat = details.filter((d) => d.category === cat);
    const possible = inCat.reduce((a, d) => a + d.possible, 0);
    out[cat] = possible ? round1((inCat.reduce((a, d) => a + d.earned, 0) / possible) * 100) : 100;
  }
  return out;
}

/** Scores `source` against a version-3 model. */
export function scoreV3(
  analyzer: TermAnalyzer,
  source: AnalyzedPage,
  model: CompetitorModel & { v3: ModelV3 },
): ScoreResult {
  const text = pageText(source.extraction);
  const copied = originality(text.markdown, originalityModelOf(model.v3));
  const ownMarkdown = withoutPassages(text.markdown, copied.passages);
  const own = ownMarkdown === text.markdown ? text.analyzed : analyzeText(ownMarkdown, text.analyzed);
  const ownPlaces = placementsOf(own);
  const words = text.analyzed.words;
  const rows = coverageRows(model, ownPlaces, words);
  const t = topicality(source, model, rows, text.analyzed);
  const coverage = coverageChecks(rows, model.pageCount, words, POINTS);
  const facts = factCoverage(own, model.v3.facts, model.keyword);
  const factResult = factChecks(model.v3.facts, facts, model.pageCount, POINTS.facts);
  const opening = own === text.analyzed ? undefined : answerFirst(text.analyzed, model.keyword).opening;
  const answer = answerCheck(answerFirst(own, model.keyword, model.head.words), model.keyword, POINTS.answer, opening);
  const p = prose(text.analyzed);
  const orig = originalityCheck(copied, POINTS.originality);
  const thorough: Thoroughness = {
    terms: rows.filter((r) => r.status !== 'missing').length,
    facts: facts.covered.length,
    median: model.v3.median,
    thorough: false,
  };
  thorough.thorough = thorough.terms >= thorough.median.terms && thorough.facts >= thorough.median.facts;
  const input: CheckInput = { source, model, analyzer };
  const unscaled = [
    ...coverage.details,
    ...factResult.details,
    ...proseChecks(p, POINTS.prose),
    ...readabilityChecks(text.analyzed, p, POINTS.readability),
    orig.check,
    answer.check,
    lengthCheck(input, thorough, POINTS.length),
    ...headingAndMetadataChecks(input, POINTS),
    ...structureChecks(input, POINTS.structure),
  ];
  const details = unscaled.map((c) => (SCALED.has(c.category) ? scaled(c, t) : c));
  const topic = topicalityAdvice(unscaled, details, t, model.keyword);
  // Following the originality advice earns the check's points at the text's topicality.
  const origDetail = details.find((d) => d.id === 'originality.copied')!;
  const origPoints = round2(origDetail.possible * t - origDetail.earned);
  const origAdvice = orig.advice && { ...orig.advice, points: origPoints, priority: priorityOf(origPoints) };
  const own3 = [origAdvice, answer.advice, topic.advice, ...factResult.advice].filter((r) => r !== null);
  const total = details.reduce((a, d) => a + d.earned, 0);
  return {
    scoringVersion: '3',
    rankabilityScore: round1(total),
    categoryScores: categoryScores(details),
    scoreDetails: details,
    entities: entityRows(rows, Math.max(1, Math.min(words, model.wordCount.p75 || words))),
    sourceWordCount: source.extraction.wordCount,
    recommendations: buildRecommendations(details, coverage.advice, own3, topic.met),
  };
}
