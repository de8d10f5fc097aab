/**
 * The building blocks of score version 3 (issue 24): pure, deterministic functions, not yet part of the score.
 * text.ts (blocks and well-formed sentences), originality.ts, prose.ts, saturation.ts, answer-first.ts, facts.ts.
 */
export * from './text.ts';
export * from './originality.ts';
export * from './prose.ts';
export * from './saturation.ts';
export * from './answer-first.ts';
export * from './facts.ts';
