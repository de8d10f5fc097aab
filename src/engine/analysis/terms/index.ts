/**
 * Term and entity analysis (ARCHITECTURE.md section 5): what the top-ranking pages agree on, for Optimize's scorer
 * and the content writer. English goes through wink-nlp with its English lite web model; other languages through
 * Intl.Segmenter (see tokenize.ts). Same input, byte-identical JSON output.
 */
import { createRequire } from 'node:module';
import type { Model, default as WinkFn } from 'wink-nlp';
import { computeCompetitorStats } from './competitor-stats.ts';
import { createDocumentAnalyzer } from './document.ts';
import { createEnglishTokenizer } from './english.ts';
import { createSegmenterTokenizer } from './tokenize.ts';
import type { TermAnalyzer } from './types.ts';

export type {
  CompetitorOptions,
  CompetitorTermStats,
  DocEntity,
  DocTerm,
  DocumentInput,
  DocumentTerms,
  EntityKind,
  EntityStat,
  EntityType,
  SourceUsage,
  StatusTally,
  TermAnalyzer,
  TermStat,
  UsageRange,
  UsageStatus,
} from './types.ts';
export { computeCompetitorStats, percentile, usageRange, usageStatus } from './competitor-stats.ts';
export { primaryLanguage } from './document.ts';
export { measureTermsThroughput } from './throughput.ts';

export interface TermAnalyzerOptions {
  /** Characters of text analysed per page (default 400,000, about 60,000 words); the rest is ignored. */
  maxChars?: number;
}

// Only what the analyser needs: sentence boundaries, POS tags (lemmas use them) and numeric/date entities.
const WINK_PIPE = ['sbd', 'pos', 'ner'];

/** Loads the wink English model (about 0.3 s, once per call) and returns an analyser bound to it. */
export function createTermAnalyzer(options: TermAnalyzerOptions = {}): TermAnalyzer {
  // Loaded here rather than at import so that importing the engine costs nothing until analysis is needed.
  const require = createRequire(import.meta.url);
  const winkNLP = require('wink-nlp') as typeof WinkFn;
  const model = require('wink-eng-lite-web-model') as Model;
  const nlp = winkNLP(model, WINK_PIPE);
  const analyzeDocument = createDocumentAnalyzer({
    english: createEnglishTokenizer(nlp),
    segmenter: createSegmenterTokenizer(),
    maxChars: options.maxChars ?? 400_000,
  });
  return {
    analyzeDocument,
    analyzeCompetitors: (docs, competitorOptions) => computeCompetitorStats(docs, competitorOptions),
  };
}
