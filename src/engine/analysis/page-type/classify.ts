/**
 * `classifyPage(extraction)`: which of the WCXB benchmark's page types a page is, with a confidence. The features
 * (features.ts) come from signals extraction already counted while it parsed the page (signals.ts), so classifying
 * parses nothing again; the scores are a small fitted model's probabilities (weights.ts, refitted with
 * `npm run bench -- extraction --fit-page-types`).
 */
import type { Extraction } from '../extract/types.ts';
import { pageFeatures } from './features.ts';
import { predict } from './softmax.ts';
import { PAGE_TYPE_MODEL } from './weights.ts';

import { PAGE_TYPES, type PageType } from './types.ts';

export { PAGE_TYPES, type PageType };

export interface PageTypeResult {
  type: PageType;
  /** The winning type's probability, 0-1. */
  confidence: number;
  /** Every type's probability; they sum to 1. */
  scores: Record<PageType, number>;
}

/** Classifies an extraction made by `extract()`; one without page signals is judged on its main content alone. */
export function classifyPage(extraction: Extraction): PageTypeResult {
  return classifyFeatures(pageFeatures(extraction));
}

/** Classifies a feature vector (pageFeatures' order). */
export function classifyFeatures(features: readonly number[]): PageTypeResult {
  const probs = predict(PAGE_TYPE_MODEL, features);
  const scores = {} as Record<PageType, number>;
  let best: PageType = 'article';
  let bestP = -1;
  PAGE_TYPE_MODEL.classes.forEach((c, i) => {
    const p = probs[i] ?? 0;
    scores[c as PageType] = Math.round(p * 1000) / 1000;
    if (p > bestP) {
      bestP = p;
      best = c as PageType;
    }
  });
  return { type: best, confidence: Math.round(bestP * 1000) / 1000, scores };
}
