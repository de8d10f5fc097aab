/** Loading the wink model and binding the pipelines into one TermAnalyzer. */
import { createRequire } from 'node:module';
import type { Model, default as WinkFn } from 'wink-nlp';
import { computeCompetitorStats } from './competitor-stats.ts';
import { createDocumentAnalyzer } from './document.ts';
import { createEnglishTokenizer } from './english.ts';
import { createSegmenterTokenizer } from './tokenize.ts';
import type { DocumentInput, DocumentTerms, TermAnalyzer } from './types.ts';

export interface TermAnalyzerOptions {
  /** Characters of text analysed per page (default 400,000, about 60,000 words); the rest is ignored. */
  maxChars?: number;
  /**
   * Pages after which the wink instance is rebuilt (default 1,000). wink adds every unseen word to its lexicon
   * cache for the life of the instance (about 300 bytes a word), which in a long-running server is a leak; a fresh
   * instance costs about 0.15 s. Output does not depend on the cache, so rebuilding changes no result.
   */
  recycleAfterDocuments?: number;
}

// Only what the analyser needs: sentence boundaries, POS tags (lemmas use them) and numeric/date entities.
const WINK_PIPE = ['sbd', 'pos', 'ner'];

/** Loads the wink English model (about 0.3 s, once per call) and returns an analyser bound to it. */
export function createTermAnalyzer(options: TermAnalyzerOptions = {}): TermAnalyzer {
  // Loaded here rather than at import so that importing the engine costs nothing until analysis is needed.
  const require = createRequire(import.meta.url);
  const winkNLP = require('wink-nlp') as typeof WinkFn;
  const model = require('wink-eng-lite-web-model') as Model;
  const segmenter = createSegmenterTokenizer();
  const recycleAfter = Math.max(1, options.recycleAfterDocuments ?? 1000);
  const build = (): ((doc: DocumentInput) => DocumentTerms) =>
    createDocumentAnalyzer({
      english: createEnglishTokenizer(winkNLP(model, WINK_PIPE)),
      segmenter,
      maxChars: options.maxChars ?? 400_000,
    });
  let analyze = build();
  let analysed = 0;
  return {
    analyzeDocument(doc) {
      if (analysed >= recycleAfter) {
        analyze = build();
        analysed = 0;
      }
      analysed += 1;
      return analyze(doc);
    },
    analyzeCompetitors: (docs, competitorOptions) => computeCompetitorStats(docs, competitorOptions),
  };
}
