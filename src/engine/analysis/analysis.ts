import { createHash } from 'node:crypto';
import { extract } from './extract/index.ts';
import type { Extraction } from './extract/types.ts';
import { createTermAnalyzer } from './terms/index.ts';
import type { DocumentTerms, TermAnalyzer } from './terms/types.ts';
import type { AnalyzedPage } from './score/types.ts';

/**
 * The analysis shared by Optimize, research and Autopilot: extraction and term analysis. The language model loads
 * on first use (not at start-up), once per engine.
 */
export function createAnalysis() {
  let analyzer: TermAnalyzer | undefined;
  const getAnalyzer = () => (analyzer ??= createTermAnalyzer());
  return {
    get analyzer(): TermAnalyzer {
      return getAnalyzer();
    },
    extract(html: string, url: string): Extraction {
      return extract(html, { url });
    },
    /** Term analysis of an extraction: main text, headings and title. */
    terms(extraction: Extraction, language: string): DocumentTerms {
      return getAnalyzer().analyzeDocument({
        text: extraction.mainText,
        headings: extraction.headings.map((h) => h.text),
        title: extraction.title,
        language,
      });
    },
    analyze(url: string, extraction: Extraction, language: string): AnalyzedPage {
      return { url, extraction, terms: this.terms(extraction, language) };
    },
  };
}

export type Analysis = ReturnType<typeof createAnalysis>;

export function contentHash(body: string): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}
