/**
 * score_content: draft text scored against a finished optimization's saved competitor model, with the same formula
 * and the same competitors, so an assistant can rewrite and score again until the advice is done. Synchronous and
 * free of provider calls: nothing is fetched, nothing is charged. Each score replaces the optimization's last one
 * (one short write after scoring), so the next answer can say what changed (score-view.ts).
 */
import { Marked } from 'marked';
import { ApiError } from '../../errors.ts';
import { immediate, type ReadDb } from '../../store/db.ts';
import { swapDraftScore } from '../../store/repos/draft-scores.ts';
import { getScoringModel } from '../../store/repos/optimizations.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import { scoreAgainstModel } from '../analysis/score/index.ts';
import type { EngineServices } from '../engine.ts';
import { escapeHtml as esc } from '../rendering/html.ts';
import { figuresOf, summaryScore, type FullScore, type PreviousScore, type ScoreView } from './score-view.ts';

export type ContentFormat = 'html' | 'markdown' | 'text';

export interface ScoreContentInput {
  content: string;
  format: ContentFormat;
  title?: string;
  meta_description?: string;
}

// One parser per process with the defaults (GitHub-flavoured markdown); raw HTML in markdown stays HTML, which is what
// the extractor reads. The page is only measured, never shown, so nothing here reaches a browser.
const markdown = new Marked({ gfm: true, async: false });

/** Plain text as HTML: blank lines separate paragraphs, single line breaks stay inside one. */
function textToHtml(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/**
 * The content as an HTML page: HTML as given, markdown rendered and text split into paragraphs inside an article,
 * with the given title and description in the head.
 */
export function contentAsHtml(input: ScoreContentInput, language: string): string {
  if (input.format === 'html') return input.content;
  const head = [
    input.title !== undefined ? `<title>${esc(input.title)}</title>` : '',
    input.meta_description !== undefined ? `<meta name="description" content="${esc(input.meta_description)}">` : '',
  ].join('');
  const body = input.format === 'markdown' ? (markdown.parse(input.content) as string) : textToHtml(input.content);
  return `<!doctype html><html lang="${esc(language)}"><head><meta charset="utf-8">${head}</head><body><main><article>${body}</article></main></body></html>`;
}

/**
 * Scores the content against the optimization's competitors and records it as the run's last score; answers the
 * view asked for. 404 for another organisation's run, 409 before it is complete.
 */
export async function scoreContent(
  engine: EngineServices,
  db: ReadDb,
  orgId: string,
  optimizationId: string,
  input: ScoreContentInput,
  view: ScoreView = 'summary',
) {
  const full = await scoreAgainstRun(engine, db, orgId, optimizationId, input);
  const previous = await recordScore(engine, db, full);
  return view === 'full' ? full : summaryScore(full, previous);
}

/** Makes `full` the optimization's last score; answers the one it replaces, or null for the run's first. */
async function recordScore(engine: EngineServices, db: ReadDb, full: FullScore): Promise<PreviousScore | null> {
  const figures = figuresOf(full);
  // Scoring ran outside any transaction; only this swap takes the write lock, briefly.
  const previous = await immediate(db, (trx) =>
    swapDraftScore(trx, {
      optimization_id: full.optimization_id,
      scored_at: engine.clock.now(),
      rankability_score: figures.rankabilityScore,
      figures: JSON_COLUMNS.draft_scores.figures.write({
        categoryScores: figures.categoryScores,
        recommendations: figures.recommendations,
      }),
    }),
  );
  if (!previous) return null;
  const stored = JSON_COLUMNS.draft_scores.figures.read(previous.figures);
  return { ...stored, rankabilityScore: previous.rankability_score, scoredAt: previous.scored_at };
}

async function scoreAgainstRun(
  engine: EngineServices,
  db: ReadDb,
  orgId: string,
  optimizationId: string,
  input: ScoreContentInput,
): Promise<FullScore> {
  const row = await getScoringModel(db, orgId, optimizationId);
  if (!row) throw new ApiError('not_found', 'No such optimization.');
  if (row.status !== 'complete') {
    throw new ApiError(
      'invalid_state',
      `The optimization is ${row.status}: content can be scored once it is complete.`,
      { status: row.status },
    );
  }
  if (row.scoring_model === null) {
    throw new ApiError(
      'invalid_state',
      'This optimization finished before drafts could be scored against it: start a new optimization for the keyword.',
      { status: row.status },
    );
  }
  const model = JSON_COLUMNS.optimizations.scoring_model.read(row.scoring_model);
  const { analysis } = engine;
  const extracted = analysis.extract(contentAsHtml(input, row.language), row.url);
  // A given title or description replaces the page's own (cached extractions are shared, so copy, never mutate).
  const extraction = {
    ...extracted,
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.meta_description !== undefined ? { metaDescription: input.meta_description } : {}),
  };
  const page = analysis.analyze(row.url, extraction, row.language);
  const scored = scoreAgainstModel(analysis.analyzer, page, model);
  return {
    optimization_id: row.id,
    rankabilityScore: scored.rankabilityScore,
    categoryScores: scored.categoryScores,
    scoreDetails: scored.scoreDetails,
    recommendations: scored.recommendations,
    entities: scored.entities,
    sourceWordCount: scored.sourceWordCount,
    competitorCount: model.pageCount,
    // The run's version: a run scored by version 2 keeps scoring drafts by version 2.
    scoringVersion: scored.scoringVersion,
  };
}
