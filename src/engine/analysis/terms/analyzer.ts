/** Loading the wink model and binding the pipelines into one TermAnalyzer. */
import { createWink } from '../wink.ts';
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

/** An analyser on a wink instance of its own (the model loads on first use, once per process). */
export function createTermAnalyzer(options: TermAnalyzerOptions = {}): TermAnalyzer {
  const segmenter = createSegmenterTokenizer();
  const recycleAfter = Math.max(1, options.recycleAfterDocuments ?? 1000);
  const build = (): ((doc: DocumentInput) => DocumentTerms) =>
    createDocumentAnalyzer({
      english: createEnglishTokenizer(createWink(WINK_PIPE)),
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
