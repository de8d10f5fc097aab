import { excludedMatcher } from './llm/index.ts';
import type { FactCheck } from './fact-check.ts';
import type { Brief, ClientContext, ContentRequest, Draft, Research } from './types.ts';

/** The artifacts' writer when the caller supplied the draft (at creation, or when approving the brief). */
export const SUPPLIED_WRITER = 'supplied';

/** Autopilot revises its draft while the Optimize score is below this (documented in the README). */
export const TARGET_SCORE = 75;
/** A draft within this share of its target word count is on target. */
export const WORD_TOLERANCE = 0.15;

/**
 * The draft's Sources list names a source whose title mentions an excluded topic by its host instead: writers keep
 * excluded topics out of the body, and the titles of the pages they cite must not bring them back.
 */
export function hideExcludedTitles(markdown: string, excludedTopics: readonly string[]): string {
  const mentions = excludedMatcher(excludedTopics);
  const at = [...markdown.matchAll(/^##\s+sources\s*$/gim)].at(-1)?.index;
  if (at === undefined) return markdown;
  const list = markdown
    .slice(at)
    .replace(
      /^(\s*(?:\d+\.|[-*])\s+(?:\[\d+\]\s+)?)\[([^\]\n]*)\]\((<?)([^)\s>]+)(>?)\)/gm,
      (line, lead: string, title: string, open: string, url: string, close: string) => {
        if (!mentions(title)) return line;
        let host = url;
        try {
          host = new URL(url).host;
        } catch {
          // Not an absolute URL: show it as it is.
        }
        return `${lead}[${host}](${open}${url}${close})`;
      },
    );
  return markdown.slice(0, at) + list;
}

/** The draft is the one the caller supplied (at creation, or when approving the brief), not a writer's. */
export const isSupplied = (draft: Draft, request: ContentRequest): boolean =>
  request.draftBody !== null && draft.markdown === request.draftBody;

/** The draft as stored in the artifacts: markdown, counts and every sentence with its source. */
export function draftArtifact(draft: Draft, request: ContentRequest, client: Pick<ClientContext, 'excludedTopics'>) {
  const target = request.wordCountTarget;
  return {
    format: 'markdown',
    content: isSupplied(draft, request) ? draft.markdown : hideExcludedTitles(draft.markdown, client.excludedTopics),
    word_count: draft.wordCount,
    word_count_target: target,
    within_tolerance: Math.abs(draft.wordCount - target) <= target * WORD_TOLERANCE,
    sentences: draft.sentences,
  };
}

/** Citations of a draft whose sentences carry their sources (the writer's own attribution). */
export function sentenceCitations(draft: Draft) {
  return draft.sentences
    .filter((s) => s.sourceUrl)
    .map((s) => ({ claim: s.text, source_url: s.sourceUrl!, quote: null }));
}

/** What an Autopilot optimization pass leaves: whether it kept a revision, and the scores around it. */
export type OptimizePass =
  | { revised: false; score: number | null; attempted?: boolean }
  | { revised: true; draft: Draft; scoreBefore: number; score: number };

/**
 * Why the optimization passes stopped: `target_reached` when a pass found the draft at or above the target score,
 * `no_improvement` when a revision did not raise the score (or there was nothing to score against), `pass_cap` when
 * every allowed pass raised the score and it is still below the target.
 */
export function stopReason(
  passes: readonly (OptimizePass | undefined)[],
): 'target_reached' | 'no_improvement' | 'pass_cap' {
  for (const p of passes) {
    if (!p || p.revised) continue;
    if (p.attempted || p.score === null) return 'no_improvement';
    return 'target_reached';
  }
  const last = passes[passes.length - 1];
  return last?.revised && last.score >= TARGET_SCORE ? 'target_reached' : 'pass_cap';
}

/** The review the finalize step writes to the artifacts. */
export type Review = Record<string, unknown>;

/** A draft's Optimize score against the job's researched pages, with what to change, most points first. */
export interface DraftScore {
  rankabilityScore: number;
  categoryScores: Record<string, number>;
  recommendations: { check: string; category: string; label: string; points: number; recommendation: string }[];
  competitorCount: number;
  scoringVersion: string;
  /** A supplied draft's fact check (kept in the artifacts' citations and review, not in the score). */
  factCheck?: { citations: FactCheck['citations']; review: Review };
}

/**
 * The content pipelines' step outputs by step name (a content job runs research, brief and draft; Autopilot all).
 * The checkpoint is a mapped type of these, so every read of an earlier output is typed.
 */
export type ContentOutputs = {
  research: Research;
  brief: Brief;
  draft: Draft;
  score: DraftScore | null;
  [pass: `optimize_${number}`]: OptimizePass;
  fact_check: FactCheck;
  finalize: Review;
};
