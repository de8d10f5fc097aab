/**
 * Term and entity analysis (docs/scoring.md): what the top-ranking pages agree on, for Optimize's scorer
 * and the content writer. English goes through wink-nlp with its English lite web model; other languages through
 * Intl.Segmenter (see tokenize.ts). Same input, byte-identical JSON output.
 */
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
export type { TermAnalyzerOptions } from './analyzer.ts';
export { createTermAnalyzer } from './analyzer.ts';
export { computeCompetitorStats, percentile, usageRange, usageStatus } from './competitor-stats.ts';
export { primaryLanguage } from './document.ts';
export type { TermsThroughput } from './throughput.ts';
export { measureTermsThroughput } from './throughput.ts';
