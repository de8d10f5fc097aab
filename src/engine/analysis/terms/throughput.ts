/**
 * Throughput of analyzeDocument, for benches (the lead's extraction bench combines it with extract()). Model loading
 * and one warm-up pass are excluded, so the figure is the steady-state cost per page.
 */
import { performance } from 'node:perf_hooks';
import type { TermAnalyzer } from './types.ts';

export interface TermsThroughput {
  pagesPerSecond: number;
  msPerPage: number;
}

/** Analyses every text once (after a warm-up pass) and reports pages per second and milliseconds per page. */
export async function measureTermsThroughputWith(analyzer: TermAnalyzer, texts: readonly string[]): Promise<TermsThroughput> {
  return measure(analyzer, texts);
}

/** Creates an analyser, then measures steady-state pages per second over `texts` (English). */
export function measureTermsThroughput(texts: readonly string[], analyzer?: TermAnalyzer): TermsThroughput {
  // Imported lazily to avoid a cycle with index.ts, which re-exports this module.
  return measure(analyzer ?? createAnalyzer(), texts);
}

let createAnalyzer: () => TermAnalyzer = () => {
  throw new Error('measureTermsThroughput needs an analyzer');
};
