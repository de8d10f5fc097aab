import { createHash } from 'node:crypto';
import { lru } from '../platform/lru.ts';
import { extract } from './extract/index.ts';
import type { Extraction } from './extract/types.ts';
import { createTermAnalyzer } from './terms/index.ts';
import type { DocumentTerms, TermAnalyzer } from './terms/types.ts';
import type { AnalyzedPage } from './score/types.ts';

/** Analyses kept per engine: the same ranking pages come back across runs, and analysis is a pure function. */
const CACHE_ENTRIES = 512;

const digest = (...parts: string[]) => {
  const h = createHash('sha1');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('base64');
};

/**
 * The analysis shared by Optimize, research and Autopilot: extraction and term analysis. The language model loads
 * on first use (not at start-up), once per engine. Results are cached by content (extraction by URL and HTML, terms
 * by the analysed text and language), so a page seen again costs nothing; cached values are never mutated by callers.
 */
export function createAnalysis() {
  let analyzer: TermAnalyzer | undefined;
  const getAnalyzer = () => (analyzer ??= createTermAnalyzer());
  const extractions = lru<Extraction>(CACHE_ENTRIES);
  const termsCache = lru<DocumentTerms>(CACHE_ENTRIES);

  /** The analyzer with documents memoised by content: what the writers get, so a page they analyse again is free. */
  const cachedAnalyzer: TermAnalyzer = {
    analyzeDocument(doc) {
      const key = digest(doc.language ?? '', doc.title ?? '', (doc.headings ?? []).join('\n'), doc.text);
      let t = termsCache.get(key);
      if (!t) {
        t = getAnalyzer().analyzeDocument(doc);
        termsCache.set(key, t);
      }
      return t;
    },
    analyzeCompetitors: (docs, options) => getAnalyzer().analyzeCompetitors(docs, options),
  };

  function terms(extraction: Extraction, language: string): DocumentTerms {
    return cachedAnalyzer.analyzeDocument({
      text: extraction.mainText,
      headings: extraction.headings.map((h) => h.text),
      title: extraction.title,
      language,
    });
  }

  return {
    get analyzer(): TermAnalyzer {
      return getAnalyzer();
    },
    cachedAnalyzer,
    extract(html: string, url: string): Extraction {
      const key = digest(url, html);
      let e = extractions.get(key);
      if (!e) {
        e = extract(html, { url });
        extractions.set(key, e);
      }
      return e;
    },
    /** Term analysis of an extraction: main text, headings and title. */
    terms,
    analyze(url: string, extraction: Extraction, language: string, known?: DocumentTerms): AnalyzedPage {
      return { url, extraction, terms: known ?? terms(extraction, language) };
    },
  };
}

export type Analysis = ReturnType<typeof createAnalysis>;

export function contentHash(body: string): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}
