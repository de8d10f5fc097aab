/**
 * Score version 3 (score.ts) and its building blocks: pure, deterministic functions. text.ts (blocks and well-formed
 * sentences), page-text.ts (a page as that text), originality.ts, prose.ts, saturation.ts, answer-first.ts,
 * facts.ts; model.ts (what version 3 adds to the saved model) and the checks (coverage.ts, fact-checks.ts,
 * writing.ts, page-checks.ts).
 */
export * from './text.ts';
export * from './originality.ts';
export * from './prose.ts';
export * from './saturation.ts';
export * from './answer-first.ts';
export * from './facts.ts';
export * from './score.ts';
export * from './model.ts';
