/**
 * Throughput of analyzeDocument, for benches (the lead's extraction bench combines it with extract()). Model loading
 * and one warm-up pass are excluded, so the figure is the steady-state cost per page.
 */
import { performance } from 'node:perf_hooks';
import { createTermAnalyzer } from './analyzer.ts';
import type { TermAnalyzer } from './types.ts';

export interface TermsThroughput {
  pagesPerSecond: number;
  msPerPage: number;
}

/** Analyses every English text once after a warm-up pass; pass an analyser to reuse an already loaded model. */
export function measureTermsThroughput(texts: readonly string[], analyzer?: TermAnalyzer): TermsThroughput {
  const a = analyzer ?? createTermAnalyzer();
  for (const text of texts.slice(0, 5)) a.analyzeDocument({ text, language: 'en' });
  const started = performance.now();
  for (const text of texts) a.analyzeDocument({ text, language: 'en' });
  const elapsed = performance.now() - started;
  const msPerPage = texts.length > 0 ? elapsed / texts.length : 0;
  return {
    pagesPerSecond: msPerPage > 0 ? Math.round((1000 / msPerPage) * 10) / 10 : 0,
    msPerPage: Math.round(msPerPage * 1000) / 1000,
  };
}
