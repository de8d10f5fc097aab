import { describe, expect, it } from 'vitest';
import { stopReason, TARGET_SCORE, type OptimizePass } from '../../../src/engine/content/pipelines.ts';
import type { Draft } from '../../../src/engine/content/types.ts';

/** Why Autopilot's optimization passes stopped, from the passes' outputs in order. */

const draft = { markdown: '', wordCount: 0, sentences: [] } as unknown as Draft;
const kept = (score: number): OptimizePass => ({ revised: true, draft, scoreBefore: score - 2, score });
const atTarget: OptimizePass = { revised: false, score: TARGET_SCORE + 1 };
const notImproved: OptimizePass = { revised: false, score: TARGET_SCORE - 5, attempted: true };

describe('stopReason', () => {
  it('target_reached when the first pass finds the draft at or above the target (no pass kept)', () => {
    expect(stopReason([atTarget, atTarget, atTarget])).toBe('target_reached');
  });

  it('target_reached when a kept pass brought the draft to the target and the next pass found it there', () => {
    expect(stopReason([kept(TARGET_SCORE + 1), atTarget, atTarget])).toBe('target_reached');
  });

  it('no_improvement when a revision did not raise the score, and when there was nothing to score against', () => {
    expect(stopReason([kept(TARGET_SCORE - 3), notImproved, notImproved])).toBe('no_improvement');
    expect(stopReason([{ revised: false, score: null }])).toBe('no_improvement');
  });

  it('pass_cap when every allowed pass was kept and the score is still below the target', () => {
    expect(stopReason([kept(60), kept(65), kept(70)])).toBe('pass_cap');
    expect(stopReason([kept(60), kept(65), kept(TARGET_SCORE)])).toBe('target_reached');
  });
});
